// The whole path: a signed forge delivery → receiver → HeldJob → operator → Job → Pod on a
// kwok node → Succeeded; and a refused delivery that no operator ever launches.
import { describe, expect, test } from '@jest/globals';
import { Phase, RefusalToken } from '../../api/vocabulary.js';
import { afterIn } from '../support/builders.js';
import { githubLabeled, post } from '../support/forge.js';
import { trigger, withReceiver } from '../support/receiver-scenario.js';
import { operatorProcess } from '../support/service-process.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually, staysTrue } from '../support/wait.js';

describe('receiver and operator together', () => {
  test.concurrent(
    'a labelled issue runs its job once the after instant passes; a superseded redelivery never runs',
    () =>
      withReceiver('path', { triggers: [trigger({ waitFor: [afterIn(3000)].map(({ after }) => ({ after })) })] }, async (s) => {
        // It reads the triggers the receiver reads: a HeldJob the receiver made is bound to its trigger.
        const operator = operatorProcess(
          { WAITGATE_WATCH_NAMESPACE: s.namespace, WAITGATE_NAMESPACE: s.namespace },
          `${s.namespace}-operator`,
        );
        await operator.start();
        try {
          const first = await post(s.url, githubLabeled({ label: 'waitgate:deploy' }));
          const second = await post(s.url, githubLabeled({ label: 'waitgate:deploy' }));
          expect(first.json['results']).toMatchObject([{ outcome: 'held' }]);
          expect(second.json['results']).toMatchObject([{ outcome: 'refused', token: RefusalToken.Superseded }]);
          const held = (first.json['results'] as { heldJob: string }[])[0]!.heldJob;
          const refused = (second.json['results'] as { heldJob: string }[])[0]!.heldJob;

          await eventually(
            'the held delivery to succeed',
            async () => ((await s.kube.getHeldJob(s.namespace, held))?.status?.phase === Phase.Succeeded ? true : undefined),
            Timeouts.jobMs,
          );
          const rec = await s.kube.getHeldJob(s.namespace, refused);
          expect(rec?.status).toMatchObject({ phase: Phase.Refused, reason: RefusalToken.Superseded });
          await staysTrue('exactly one Job', async () => (await s.kube.listJobs(s.namespace)).length === 1, Date.now() + 2000);
        } finally {
          await operator.stop();
        }
      }),
    Timeouts.testMs,
  );
});
