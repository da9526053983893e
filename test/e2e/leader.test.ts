// Two operator replicas with leader election: only one reconciles; when it dies, the other
// takes over once the Lease has lapsed; when its apiserver stalls, it steps down (exits) before
// the other takes over; when it is stopped, it finishes what it is doing before letting go.
import { describe, expect, test } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Phase } from '../../api/vocabulary.js';
import { LEASE_DURATION_MS, RENEW_DEADLINE_MS, RETRY_PERIOD_MS } from '../../operator/adapters/leader-election.js';
import { VERSION } from '../../lib/version.js';
import { afterIn, heldJob } from '../support/builders.js';
import { kubeconfigPath, ROOT } from '../support/env.js';
import { TestKube } from '../support/kube.js';
import { profilesConfigMap } from '../support/profiles.js';
import { operatorProcess, type ServiceProcess } from '../support/service-process.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

/** A follower sees the last renewal within a retry period, and takes over at its first look a whole lease later. */
const TAKEOVER_MS = LEASE_DURATION_MS + 2 * RETRY_PERIOD_MS;
/** Room for a loaded machine: process start-up, polling, log writes. */
const SLACK_MS = 3_000;
/** How long the slow check runs. */
const SLOW_CHECK_S = 3;

/** When a process first logged `msg` (its pino time), waiting for the line: it may reach the file late, even after the exit. */
async function loggedAt(o: ServiceProcess, msg: string, timeoutMs?: number): Promise<number> {
  return Date.parse((await o.logged(msg, timeoutMs))['time'] as string);
}

/** When a process last logged anything. */
function lastLogAt(o: ServiceProcess): number {
  return Math.max(...o.logLines().map((l) => Date.parse(l['time'] as string)));
}

function succeeds(kube: TestKube, ns: string, name: string): Promise<true> {
  return eventually(
    `${ns}/${name} to succeed`,
    async () => ((await kube.getHeldJob(ns, name))?.status?.phase === Phase.Succeeded ? true : undefined),
    Timeouts.jobMs,
  );
}

function electionEnv(ns: string): Record<string, string> {
  return {
    WAITGATE_WATCH_NAMESPACE: ns,
    WAITGATE_NAMESPACE: ns,
    WAITGATE_VALKEY_PREFIX: `test-${ns}`,
    WAITGATE_LEADER_ELECTION: 'true',
  };
}

describe('leader election', () => {
  test.concurrent(
    'one leader reconciles; SIGKILL it and the follower leads once the Lease lapses',
    async () => {
      const kube = new TestKube();
      const ns = await kube.createNamespace('leader');
      const env = electionEnv(ns);
      const replicas = [operatorProcess(env, `${ns}-a`), operatorProcess(env, `${ns}-b`)];
      const led = (o: (typeof replicas)[number]) => o.logLines().some((l) => l['msg'] === 'Became leader');
      try {
        // Start one, then the other: the first leads.
        await replicas[0]!.start();
        await replicas[1]!.startAndWaitFor('Waiting to lead');
        await replicas[0]!.logged('Became leader');
        expect(led(replicas[1]!)).toBe(false);

        const first = afterIn(1000);
        await kube.createHeldJob(ns, heldJob({ name: 'one', waitFor: [{ after: first.after }] }));
        await succeeds(kube, ns, 'one');
        expect(replicas[1]!.logLines().filter((l) => l['msg'] === 'Created Job')).toHaveLength(0);

        await replicas[0]!.kill('SIGKILL');
        const killedAt = Date.now();
        await eventually('the follower to lead', () => (led(replicas[1]!) ? true : undefined), TAKEOVER_MS + SLACK_MS * 2);
        expect(Date.now() - killedAt).toBeLessThan(TAKEOVER_MS + SLACK_MS);
        await kube.createHeldJob(ns, heldJob({ name: 'two' }));
        await succeeds(kube, ns, 'two');
        expect(await kube.listJobs(ns)).toHaveLength(2);
      } finally {
        await Promise.all(replicas.map((o) => o.stop()));
        await kube.deleteNamespace(ns);
      }
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'a leader SIGKILLed mid pod check: the new leader deletes the check Pod it left, at once, not a sweep period later',
    async () => {
      const kube = new TestKube();
      const ns = await kube.createNamespace('leader-pods');
      const profiles = {
        'profiles.json': JSON.stringify({
          slow: { mode: 'pod', script: 'slow.sh', image: 'busybox:1.36', annotations: { 'waitgate.dev/exit-code': 'never' } },
        }),
        'slow.sh': '#!/bin/sh\nexit 0\n',
      };
      await kube.core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: 'waitgate-profiles', namespace: ns }, data: profiles },
      });
      // A long check timeout and the default sweep period: only the sweep on taking the lead can remove the Pod in time.
      const env = { ...electionEnv(ns), WAITGATE_WAIT_CHECK_TIMEOUT_MS: '120000' };
      const replicas = [operatorProcess(env, `${ns}-a`), operatorProcess(env, `${ns}-b`)];
      const checkPods = async () =>
        (await kube.core.listNamespacedPod({ namespace: ns, labelSelector: 'waitgate.dev/check=true' })).items.map((p) => p.metadata?.name);
      try {
        await replicas[0]!.start();
        await replicas[1]!.startAndWaitFor('Waiting to lead');
        await kube.createHeldJob(ns, heldJob({ name: 'held', waitFor: [{ profile: 'slow' }] }));
        const left = await eventually('the leader to start a check Pod', async () => (await checkPods())[0]);

        await replicas[0]!.kill('SIGKILL');
        await eventually(
          'the new leader to delete the check Pod the old one left',
          async () => ((await checkPods()).includes(left) ? undefined : true),
          TAKEOVER_MS + SLACK_MS * 2 + Timeouts.shortMs,
        );
        await replicas[1]!.logged((l) => l['msg'] === 'Deleted orphaned check Pod' && l['pod'] === left && l['sweep'] === 'start');
      } finally {
        await Promise.all(replicas.map((o) => o.stop()));
        await kube.deleteNamespace(ns);
      }
    },
    Timeouts.testMs,
  );

  test.concurrent(
    "the leader's apiserver accepts connections and never answers: it exits before the follower takes over",
    async () => {
      const kube = new TestKube();
      const ns = await kube.createNamespace('leader-stall');
      const kc = readFileSync(kubeconfigPath(), 'utf8');
      const apiPort = Number(/server: https:\/\/127\.0\.0\.1:(\d+)/.exec(kc)?.[1]);
      const proxy = new TcpProxy('127.0.0.1', apiPort);
      const port = await proxy.start();
      const proxied = join(tmpdir(), `waitgate-leader-stalled-${port}.kubeconfig`);
      writeFileSync(proxied, kc.replace(/server: https:\/\/127\.0\.0\.1:\d+/, `server: https://127.0.0.1:${port}`));
      const env = electionEnv(ns);
      // The leader reaches the apiserver through the proxy; the follower directly.
      const leader = operatorProcess({ ...env, KUBECONFIG: proxied }, `${ns}-stalled`);
      const follower = operatorProcess(env, `${ns}-follower`);
      try {
        await leader.start();
        await follower.startAndWaitFor('Waiting to lead');
        await kube.createHeldJob(ns, heldJob({ name: 'before', waitFor: [{ after: afterIn(1000).after }] }));
        await succeeds(kube, ns, 'before');
        expect(await leader.loggedTimes('Created Job', 1)).toHaveLength(1);

        proxy.stall();
        const stalledAt = Date.now();
        const ledAt = await loggedAt(follower, 'Became leader', TAKEOVER_MS + SLACK_MS * 3);

        // The stalled leader stepped down on its own timer within a renew deadline of its
        // last renewal, and its process was gone before the follower led.
        const lostAt = await loggedAt(leader, 'Lost leadership');
        expect(lostAt).toBeLessThanOrEqual(stalledAt + RENEW_DEADLINE_MS + SLACK_MS);
        expect(leader.exitedAt).toBeDefined();
        expect(await leader.exitCode()).toBe(1);
        expect(leader.exitedAt as number).toBeLessThan(ledAt);
        // Nothing at all from the old leader once the new one led: never two at once.
        expect(lastLogAt(leader)).toBeLessThan(ledAt);
        expect(await leader.logged('Lost leadership')).toMatchObject({ reason: 'renew deadline passed' });

        await kube.createHeldJob(ns, heldJob({ name: 'after' }));
        await succeeds(kube, ns, 'after');
        expect(await kube.listJobs(ns)).toHaveLength(2);
        expect(await follower.loggedTimes('Created Job', 1)).toHaveLength(1);
      } catch (err) {
        throw new Error(`${(err as Error).message}\n(logs: ${leader.logPath}, ${follower.logPath})`, { cause: err });
      } finally {
        // Cut first: a leader still hanging on the stalled apiserver then fails fast and stops.
        await proxy.cut();
        await Promise.all([leader.stop(), follower.stop()]);
        await kube.deleteNamespace(ns);
      }
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'SIGTERM while a check runs: the leader finishes it, then releases the Lease, and only then the follower leads',
    async () => {
      const kube = new TestKube();
      const ns = await kube.createNamespace('leader-drain');
      const dir = mkdtempSync(join(tmpdir(), 'waitgate-check-state-'));
      await kube.core.createNamespacedConfigMap({
        namespace: ns,
        body: {
          metadata: { name: 'waitgate-profiles', namespace: ns },
          data: profilesConfigMap({
            slow: `#!/bin/sh\ntouch "\${CHECK_STATE_DIR:?}/started"\nsleep ${SLOW_CHECK_S}\nexit 0\n`,
          }),
        },
      });
      const env = { ...electionEnv(ns), CHECK_STATE_DIR: dir };
      const leader = operatorProcess(env, `${ns}-stopped`);
      const follower = operatorProcess(env, `${ns}-follower`);
      try {
        await leader.start();
        await follower.startAndWaitFor('Waiting to lead');
        await kube.createHeldJob(ns, heldJob({ name: 'slow', waitFor: [{ profile: 'slow' }], exitCode: 0 }));
        await eventually('the check to start', () => (existsSync(join(dir, 'started')) ? true : undefined));

        const stoppedAt = Date.now();
        await leader.kill('SIGTERM');
        expect(await leader.exitCode()).toBe(0);
        const checkedAt = await loggedAt(leader, 'Checked profile');
        const releasedAt = await loggedAt(leader, 'Released the Lease');
        expect(checkedAt).toBeLessThanOrEqual(releasedAt);

        const ledAt = await loggedAt(follower, 'Became leader', TAKEOVER_MS + SLACK_MS);
        expect(releasedAt).toBeLessThanOrEqual(ledAt);
        expect(lastLogAt(leader)).toBeLessThanOrEqual(ledAt);
        // Released, not left to lapse: the follower led within a look of the release.
        expect(ledAt - stoppedAt).toBeLessThan(SLOW_CHECK_S * 1000 + RETRY_PERIOD_MS + SLACK_MS);

        await succeeds(kube, ns, 'slow');
        expect(await kube.listJobs(ns)).toHaveLength(1);
      } catch (err) {
        throw new Error(`${(err as Error).message}\n(logs: ${leader.logPath}, ${follower.logPath})`, { cause: err });
      } finally {
        await Promise.all([leader.stop(), follower.stop()]);
        await kube.deleteNamespace(ns);
      }
    },
    Timeouts.testMs,
  );
  test.concurrent(
    'the leader records its version on the Lease, and `waitgate version` reads it there',
    async () => {
      const kube = new TestKube();
      const ns = await kube.createNamespace('leader-version');
      const operator = operatorProcess(electionEnv(ns), `${ns}-a`);
      try {
        await operator.start();
        await operator.logged('Became leader');
        const { stdout } = await promisify(execFile)(
          process.execPath,
          [join(ROOT, 'bin', 'waitgate.js'), 'version', '--waitgate-namespace', ns, '-o', 'json'],
          { env: { PATH: process.env['PATH'] ?? '', KUBECONFIG: kubeconfigPath() }, timeout: Timeouts.testMs },
        );
        const v = JSON.parse(stdout) as { client: { version: string }; operator: Record<string, unknown> };
        expect(v.client.version).toBe(VERSION);
        expect(v.operator).toMatchObject({ namespace: ns, version: VERSION, source: 'lease' });
        expect(String(v.operator['detail'])).toMatch(/^held by /);
      } finally {
        await operator.stop();
        await kube.deleteNamespace(ns);
      }
    },
    Timeouts.testMs,
  );
});
