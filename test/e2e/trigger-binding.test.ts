// Issue 30, finding 2: a HeldJob made as the receiver makes them (waitgate.dev/made-by:
// receiver) runs only its trigger's Job. Against the real apiserver and a real operator
// process: one naming trigger `mine` with a privileged container instead of the trigger's
// template ends Failed JobNotTrigger, one naming a trigger nobody declared (`ghost`) ends
// Failed TriggerUndeclared, each with a Warning Event and no Job; the one the receiver would
// render from `mine` launches.
import { describe, expect, test } from '@jest/globals';
import { heldJobSpecOf } from '../../api/trigger-binding.js';
import type { Trigger } from '../../api/triggers/types.js';
import { API_GROUP, API_VERSION, FailureReason, HELDJOB_KIND, Labels, MADE_BY_RECEIVER, Phase } from '../../api/vocabulary.js';
import { trigger } from '../support/receiver-scenario.js';
import { phaseReached, withScenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually, staysTrue } from '../support/wait.js';

const mine = trigger({ name: 'mine' }) as Trigger;
const TARGET = 'acme/web#7';

/** A HeldJob as the receiver writes one: labelled, its spec `spec`. */
const asReceiver = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: `${API_GROUP}/${API_VERSION}`,
  kind: HELDJOB_KIND,
  metadata: { name, labels: { [Labels.forge]: 'github', [Labels.madeBy]: MADE_BY_RECEIVER } },
  spec,
});

describe('a HeldJob the receiver made is bound to its trigger', () => {
  test.concurrent(
    'another Job under trigger mine: Failed JobNotTrigger; trigger ghost: Failed TriggerUndeclared; no Job for either; the rendered one launches',
    () =>
      withScenario(
        'trigger-binding',
        async (s) => {
          const privileged = {
            backoffLimit: 0,
            template: {
              spec: { restartPolicy: 'Never', containers: [{ name: 'deploy', image: 'busybox', securityContext: { privileged: true } }] },
            },
          };
          await s.kube.createHeldJob(s.namespace, asReceiver('forged', { ...heldJobSpecOf(mine, TARGET), job: privileged }));
          await s.kube.createHeldJob(s.namespace, asReceiver('ghost', { ...heldJobSpecOf(mine, TARGET), trigger: 'ghost' }));
          await s.kube.createHeldJob(s.namespace, asReceiver('rendered', heldJobSpecOf(mine, 'acme/web#8')));

          const launched = await phaseReached(s, 'rendered', Phase.Succeeded, Timeouts.jobMs);
          expect(launched.status?.jobName).toBeDefined();

          // Held through the grace the receiver's head start gets, then failed for good.
          for (const [name, reason] of [
            ['forged', FailureReason.JobNotTrigger],
            ['ghost', FailureReason.TriggerUndeclared],
          ] as const) {
            const failed = await phaseReached(s, name, Phase.Failed, 90_000);
            expect(failed.status).toMatchObject({ phase: Phase.Failed, reason });
            const event = await eventually(`a ${reason} Event on ${name}`, async () =>
              (await s.kube.eventsFor(s.namespace, name)).find((e) => e.reason === reason && e.type === 'Warning'),
            );
            expect(event.message).toBeTruthy();
          }
          await staysTrue(
            'one Job in the namespace, the rendered one',
            async () => {
              const jobs = await s.kube.listJobs(s.namespace);
              return jobs.length === 1 && jobs[0]?.metadata?.name === launched.status?.jobName;
            },
            Date.now() + 3_000,
          );
        },
        { configMaps: { 'waitgate-triggers': { 'triggers.json': JSON.stringify([mine]) } } },
      ),
    Timeouts.testMs + 90_000,
  );
});
