// The held-job gauges against the real apiserver (issue 22): kept from the informer's events
// rather than counted on each scrape, they must still follow holds through their phases and
// let go of the deleted ones.
import { describe, test } from '@jest/globals';
import { API_GROUP, API_VERSION, HELDJOB_PLURAL, Phase } from '../../api/vocabulary.js';
import { afterIn, heldJob } from '../support/builders.js';
import { metricValue, operatorMetricsUrl } from '../support/metrics.js';
import { fixtureScript, profilesConfigMap } from '../support/profiles.js';
import { phaseReached, withScenario, type Scenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

/** Polls /metrics until each series reads as given; a timeout says what they last read. */
async function gaugesRead(s: Scenario, what: string, want: Record<string, number>): Promise<void> {
  const url = operatorMetricsUrl(await s.operator.logged('Started'));
  await eventually(
    `the gauges to read ${what}: ${JSON.stringify(want)}`,
    async () => {
      const read = Object.fromEntries(await Promise.all(Object.keys(want).map(async (k) => [k, await metricValue(url, k)] as const)));
      if (Object.entries(want).every(([k, v]) => read[k] === v)) return true;
      throw new Error(`read ${JSON.stringify(read)}`);
    },
    Timeouts.jobMs,
  );
}

const deleteHeldJob = (s: Scenario, name: string) =>
  s.kube.custom.deleteNamespacedCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    plural: HELDJOB_PLURAL,
    namespace: s.namespace,
    name,
  });

const phase = (p: Phase) => `waitgate_heldjobs{phase="${p}"}`;

describe('the held-job gauges', () => {
  test.concurrent(
    'follow holds through their phases, by profile while held, and drop the deleted ones',
    () =>
      withScenario(
        'heldjob-gauges',
        async (s) => {
          // Held on an instant far away; held on a profile that says not yet; one that runs on; one that
          // ends (each of the last two in a repository of its own: one launch at a time in each).
          await s.kube.createHeldJob(s.namespace, heldJob({ name: 'later', waitFor: [{ after: afterIn(10 * 60_000).after }] }));
          await s.kube.createHeldJob(s.namespace, heldJob({ name: 'gated', waitFor: [{ profile: 'notyet' }] }));
          await s.kube.createHeldJob(s.namespace, heldJob({ name: 'runs', target: 'acme/ops#8', exitCode: 'never' }));
          await s.kube.createHeldJob(s.namespace, heldJob({ name: 'ends', target: 'acme/api#9', exitCode: 0 }));
          await phaseReached(s, 'runs', Phase.Running);
          await phaseReached(s, 'ends', Phase.Succeeded);
          await gaugesRead(s, 'two held, one running, one succeeded', {
            [phase(Phase.Held)]: 2,
            [phase(Phase.Running)]: 1,
            [phase(Phase.Succeeded)]: 1,
            [phase(Phase.Pending)]: 0,
            'waitgate_held_by_profile{profile="notyet"}': 1,
          });

          // The held ones go: their counts, and the profile's, with them.
          await deleteHeldJob(s, 'gated');
          await deleteHeldJob(s, 'later');
          await gaugesRead(s, 'the held ones gone', {
            [phase(Phase.Held)]: 0,
            [phase(Phase.Running)]: 1,
            [phase(Phase.Succeeded)]: 1,
            'waitgate_held_by_profile{profile="notyet"}': 0,
          });

          await deleteHeldJob(s, 'ends');
          await deleteHeldJob(s, 'runs');
          await gaugesRead(s, 'the deleted ones dropped', {
            [phase(Phase.Held)]: 0,
            [phase(Phase.Running)]: 0,
            [phase(Phase.Succeeded)]: 0,
            [phase(Phase.Pending)]: 0,
          });
        },
        { configMaps: { 'waitgate-profiles': profilesConfigMap({ notyet: fixtureScript('exit-3.sh') }) } },
      ),
    Timeouts.testMs,
  );
});
