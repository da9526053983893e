// A cron trigger is refused when its file loads (trigger-cron, and waitfor-on-cron beside it when
// it also waits), by the real receiver and the real operator reading the waitgate-triggers
// ConfigMap on the real apiserver: the receiver keeps the file it had (or, with none, holds
// nothing and is not ready), counts the refusal and never creates a HeldJob from the refused
// file; the operator says it cannot compare its holds with their triggers.
import { describe, expect, test } from '@jest/globals';
import { TriggerRefusalCode as Code } from '../../api/triggers/refusal-codes.js';
import { heldJob } from '../support/builders.js';
import { githubLabeled, post } from '../support/forge.js';
import { metricValue, operatorMetricsUrl } from '../support/metrics.js';
import { cronTrigger, putConfigMap, trigger, withReceiver, type ReceiverScenario } from '../support/receiver-scenario.js';
import { phaseReached, withScenario } from '../support/scenario.js';
import type { ServiceProcess } from '../support/service-process.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const REFUSALS = 'waitgate_receiver_triggers_file_refusals_total';

interface Refused {
  readonly refusals: { readonly where?: string; readonly path: string; readonly code: string }[];
  readonly keptPrevious: boolean;
}

/** The receiver's log line for the `n`th triggers file it refused. */
function refusedFile(p: ServiceProcess, n = 1): Promise<Refused> {
  return p.loggedTimes('Refused triggers file', n).then((lines) => lines[n - 1] as unknown as Refused);
}

const putTriggers = (s: ReceiverScenario, triggers: object[]) =>
  putConfigMap(s.kube, s.namespace, 'waitgate-triggers', { 'triggers.json': JSON.stringify(triggers) });

/** The trigger each HeldJob of the scenario was made for. */
const triggersHeld = async (s: ReceiverScenario) =>
  (await s.kube.listHeldJobs(s.namespace)).map((h) => (h.spec as { trigger?: string } | undefined)?.trigger);

const outcomes = (r: { json: Record<string, unknown> }) => r.json;

describe('a cron trigger is refused at load', () => {
  test.concurrent(
    'receiver: a file with a cron entry is refused (trigger-cron, counted) and the file before it stays in force',
    () =>
      withReceiver('cron-keep', { triggers: [trigger({ name: 'deploy', labels: ['waitgate:deploy'] })] }, async (s) => {
        expect(await metricValue(s.metricsUrl, REFUSALS)).toBe(0);
        // The new file: a cron entry, and a label trigger of its own that would fire on waitgate:release.
        await putTriggers(s, [cronTrigger({ name: 'nightly' }), trigger({ name: 'release', labels: ['waitgate:release'] })]);

        const refused = await refusedFile(s.receiver);
        expect(refused.refusals).toEqual([{ where: 'nightly', path: '$[0].on.type', code: Code.Cron }]);
        expect(refused.keptPrevious).toBe(true);
        await eventually('the refusal counted', async () => ((await metricValue(s.metricsUrl, REFUSALS)) === 1 ? true : undefined));
        expect((await fetch(`${s.metricsUrl}/readyz`)).status).toBe(200);

        // The refused file fires nothing, not even its label trigger; the previous one still does.
        const release = await post(s.url, githubLabeled({ label: 'waitgate:release' }));
        expect(release.status).toBe(202);
        expect(outcomes(release)).toEqual({ outcome: 'ignored' });
        const deploy = await post(s.url, githubLabeled({ label: 'waitgate:deploy', number: 8 }));
        expect(deploy.status).toBe(202);
        expect(outcomes(deploy)).toMatchObject({ outcome: 'handled', results: [{ trigger: 'deploy', outcome: 'held' }] });
        expect(await triggersHeld(s)).toEqual(['deploy']);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'receiver: with only a cron file (one that waits, too) nothing is in force: not ready, deliveries 503, no HeldJob',
    () =>
      withReceiver(
        'cron-only',
        {
          triggers: [cronTrigger({ name: 'nightly', waitFor: [{ after: '2026-09-01T09:00:00Z' }] }), trigger({ name: 'deploy' })],
          awaitReady: false,
        },
        async (s) => {
          const refused = await refusedFile(s.receiver);
          expect(refused.keptPrevious).toBe(false);
          expect(refused.refusals.map((r) => r.code).sort()).toEqual([Code.OnCron, Code.Cron].sort());
          expect(refused.refusals.every((r) => r.where === 'nightly')).toBe(true);
          expect(await metricValue(s.metricsUrl, REFUSALS)).toBe(1);
          expect((await fetch(`${s.metricsUrl}/readyz`)).status).toBe(503);

          const answer = await post(s.url, githubLabeled({ label: 'waitgate:deploy' }));
          expect(answer.status).toBe(503);
          expect(await s.kube.listHeldJobs(s.namespace)).toEqual([]);

          // Without the cron entry the same file loads, and the same label now holds.
          await putTriggers(s, [trigger({ name: 'deploy' })]);
          await eventually('the receiver to be ready', async () =>
            (await fetch(`${s.metricsUrl}/readyz`)).status === 200 ? true : undefined,
          );
          const again = await post(s.url, githubLabeled({ label: 'waitgate:deploy', number: 9 }));
          expect(outcomes(again)).toMatchObject({ outcome: 'handled', results: [{ trigger: 'deploy', outcome: 'held' }] });
          expect(await triggersHeld(s)).toEqual(['deploy']);
          expect(await metricValue(s.metricsUrl, REFUSALS)).toBe(1);
        },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'operator: a file with a cron entry reads as unreadable (waitgate_triggers_readable 0, TriggersUnreadable naming trigger-cron); holds still run',
    () =>
      withScenario(
        'cron-operator',
        async (s) => {
          const metricsUrl = operatorMetricsUrl(await s.operator.logged('Started'));
          await eventually('waitgate_triggers_readable 0', async () =>
            (await metricValue(metricsUrl, 'waitgate_triggers_readable')) === 0 ? true : undefined,
          );
          const logged = await s.operator.logged('Cannot compare holds with their triggers');
          expect(logged['triggers']).toEqual({ state: 'unreadable', problem: `1 refusal(s), first: ${Code.Cron} at $[0].on.type` });

          await s.kube.createHeldJob(s.namespace, heldJob({ name: 'by-hand', trigger: 'deploy', exitCode: 0 }));
          const hj = await phaseReached(s, 'by-hand', 'Succeeded');
          const checked = hj.status?.conditions?.find((c) => c.type === 'TriggerChecked');
          expect(checked).toMatchObject({ status: 'Unknown', reason: 'TriggersUnreadable' });
          expect(checked?.message).toContain(Code.Cron);

          // The same file without its cron entry loads.
          await putConfigMap(s.kube, s.namespace, 'waitgate-triggers', { 'triggers.json': JSON.stringify([trigger({ name: 'deploy' })]) });
          await eventually('waitgate_triggers_readable 1', async () =>
            (await metricValue(metricsUrl, 'waitgate_triggers_readable')) === 1 ? true : undefined,
          );
        },
        {
          configMaps: {
            'waitgate-triggers': { 'triggers.json': JSON.stringify([cronTrigger({ name: 'nightly' }), trigger({ name: 'deploy' })]) },
          },
        },
      ),
    Timeouts.testMs,
  );
});
