// A wait condition with a key waitgate does not know (a typo, or a key of a newer version),
// against the real apiserver and a real operator process. The CRD keeps unknown fields in a
// condition (x-kubernetes-preserve-unknown-fields), so the apiserver stores the key as written
// rather than prune it into a condition that says nothing, and the operator's own check of the
// spec ends the hold wait-unreadable instead of running the job without the wait.
import { describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { EventReason, Phase, RefusalToken } from '../../api/vocabulary.js';
import { afterIn, heldJob } from '../support/builders.js';
import { phaseReached, withScenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually, staysTrue } from '../support/wait.js';

describe('an unknown key in a wait condition', () => {
  test.concurrent(
    'survives the apiserver as written and ends the hold wait-unreadable, with no Job; beside a known key the apiserver refuses it',
    () =>
      withScenario('unknown-condition-key', async (s) => {
        const soon = afterIn(2_000);
        // Alone, and beside a condition that reads: either way the spec does not read.
        const alone = [{ until: soon.after }];
        const beside = [{ after: soon.after }, { profiel: 'go' }];
        await s.kube.createHeldJob(s.namespace, heldJob({ name: 'alone', target: 'acme/web#1', waitFor: alone }));
        await s.kube.createHeldJob(s.namespace, heldJob({ name: 'beside', target: 'acme/web#2', waitFor: beside }));

        // Not pruned: the apiserver gives the conditions back as they were written.
        expect((await s.kube.getHeldJob(s.namespace, 'alone'))?.spec).toMatchObject({ waitFor: alone });
        expect((await s.kube.getHeldJob(s.namespace, 'beside'))?.spec).toMatchObject({ waitFor: beside });

        for (const [name, index] of [
          ['alone', 0],
          ['beside', 1],
        ] as const) {
          const refused = await phaseReached(s, name, Phase.Refused, Timeouts.shortMs);
          expect(refused.status).toMatchObject({ phase: Phase.Refused, reason: RefusalToken.Unreadable });
          expect(refused.status?.message).toContain(`spec.waitFor.${index}`);
          const event = await eventually(`a ${EventReason.Refused} Event on ${name}`, async () =>
            (await s.kube.eventsFor(s.namespace, name)).find((e) => e.reason === EventReason.Refused),
          );
          expect(event.message).toMatch(new RegExp(`^${RefusalToken.Unreadable}: `));
        }
        // Past the instant the known condition named, still no Job: the wait was never dropped.
        await staysTrue('no Job in the namespace', async () => (await s.kube.listJobs(s.namespace)).length === 0, soon.atMs + 2_000);

        // A condition is one key (maxProperties 1): an unknown key beside a known one in the
        // same condition is refused by the apiserver itself, and nothing is stored.
        const twoKeys = s.kube.createHeldJob(s.namespace, heldJob({ name: 'two-keys', waitFor: [{ after: soon.after, note: 'x' }] }));
        await expect(twoKeys).rejects.toMatchObject({ code: 422 });
        await expect(twoKeys).rejects.toBeInstanceOf(k8s.ApiException);
        expect(await s.kube.getHeldJob(s.namespace, 'two-keys')).toBeUndefined();
      }),
    Timeouts.testMs,
  );
});
