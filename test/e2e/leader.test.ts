// Two operator replicas with leader election: only one reconciles; when it dies, the other
// takes over within 15 s.
import { describe, expect, test } from '@jest/globals';
import { Phase } from '../../api/vocabulary.js';
import { afterIn, heldJob } from '../support/builders.js';
import { TestKube } from '../support/kube.js';
import { operatorProcess } from '../support/service-process.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

describe('leader election', () => {
  test.concurrent(
    'one leader reconciles; SIGKILL it and the follower leads within 15 s',
    async () => {
      const kube = new TestKube();
      const ns = await kube.createNamespace('leader');
      const env = {
        WAITGATE_WATCH_NAMESPACE: ns,
        WAITGATE_NAMESPACE: ns,
        WAITGATE_VALKEY_PREFIX: `test-${ns}`,
        WAITGATE_LEADER_ELECTION: 'true',
      };
      const replicas = [operatorProcess(env, `${ns}-a`), operatorProcess(env, `${ns}-b`)];
      const led = (o: (typeof replicas)[number]) => o.logLines().some((l) => l['msg'] === 'Became leader');
      try {
        // Start one, then the other: the first leads.
        await replicas[0]!.start();
        await replicas[1]!.startAndWaitFor('Waiting to lead');
        expect(led(replicas[0]!)).toBe(true);
        expect(led(replicas[1]!)).toBe(false);

        const first = afterIn(1000);
        await kube.createHeldJob(ns, heldJob({ name: 'one', waitFor: [{ after: first.after }] }));
        await eventually(
          'the first to succeed',
          async () => ((await kube.getHeldJob(ns, 'one'))?.status?.phase === Phase.Succeeded ? true : undefined),
          Timeouts.jobMs,
        );
        expect(replicas[1]!.logLines().filter((l) => l['msg'] === 'Created Job')).toHaveLength(0);

        await replicas[0]!.kill('SIGKILL');
        const killedAt = Date.now();
        await eventually('the follower to lead', () => (led(replicas[1]!) ? true : undefined), 20_000);
        expect(Date.now() - killedAt).toBeLessThan(15_000);
        await kube.createHeldJob(ns, heldJob({ name: 'two' }));
        await eventually(
          'the second to succeed under the new leader',
          async () => ((await kube.getHeldJob(ns, 'two'))?.status?.phase === Phase.Succeeded ? true : undefined),
          Timeouts.jobMs,
        );
        expect(await kube.listJobs(ns)).toHaveLength(2);
      } finally {
        await Promise.all(replicas.map((o) => o.stop()));
        await kube.deleteNamespace(ns);
      }
    },
    Timeouts.testMs,
  );
});
