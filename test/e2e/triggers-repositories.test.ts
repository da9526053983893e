// on.repositories narrows a trigger to the repositories it names (issue 22, item 3), with the
// real receiver and the real operator on the real apiserver: a delivery from a named repository
// becomes a HeldJob, one from another repository of the same hook creates nothing and is
// answered 202 ignored (no trigger matched), and a file that misspells the filter (on.repos) is
// refused with on-unknown-key by both, the way any refused file is: the receiver keeps the file
// it had and counts the refusal, the operator reads the file as unreadable and says so.
import { describe, expect, test } from '@jest/globals';
import { TriggerRefusalCode as Code } from '../../api/triggers/refusal-codes.js';
import { heldJob } from '../support/builders.js';
import { githubLabeled, gitlabMergeRequestLabeled, post } from '../support/forge.js';
import { metricValue, operatorMetricsUrl } from '../support/metrics.js';
import { putConfigMap, trigger, withReceiver, type ReceiverScenario } from '../support/receiver-scenario.js';
import { phaseReached, withScenario } from '../support/scenario.js';
import type { ServiceProcess } from '../support/service-process.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const REFUSALS = 'waitgate_receiver_triggers_file_refusals_total';
const deliveries = (s: ReceiverScenario, forge: string, outcome: string) =>
  metricValue(s.metricsUrl, `waitgate_receiver_deliveries_total{forge="${forge}",outcome="${outcome}"}`);

interface Refused {
  readonly refusals: { readonly where?: string; readonly path: string; readonly code: string }[];
  readonly keptPrevious: boolean;
}

/** The receiver's log line for the first triggers file it refused. */
function refusedFile(p: ServiceProcess): Promise<Refused> {
  return p.logged('Refused triggers file').then((line) => line as unknown as Refused);
}

/** [trigger, target] of every HeldJob of the scenario, sorted. */
const held = async (s: ReceiverScenario) =>
  (await s.kube.listHeldJobs(s.namespace))
    .map((h) => {
      const spec = h.spec as { trigger?: string; target?: string } | undefined;
      return [spec?.trigger, spec?.target];
    })
    .sort();

describe('on.repositories: a trigger fires only for the repositories it names', () => {
  test.concurrent(
    'GitHub: acme/web fires the trigger that names it; acme/api, on the same hook and label, creates nothing (202 ignored)',
    () =>
      withReceiver('repos-github', { triggers: [trigger({ name: 'deploy', repositories: ['acme/web'] })] }, async (s) => {
        const named = await post(s.url, githubLabeled({ repo: 'acme/web', label: 'waitgate:deploy' }));
        expect(named.status).toBe(202);
        expect(named.json).toMatchObject({ outcome: 'handled', results: [{ trigger: 'deploy', outcome: 'held' }] });

        const other = await post(s.url, githubLabeled({ repo: 'acme/api', label: 'waitgate:deploy' }));
        expect(other.status).toBe(202);
        expect(other.json).toEqual({ outcome: 'ignored' });

        expect(await held(s)).toEqual([['deploy', 'acme/web#7']]);
        expect(await deliveries(s, 'github', 'held')).toBe(1);
        expect(await deliveries(s, 'github', 'ignored')).toBe(1);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'GitLab: group/sub/* fires for group/sub/repo, not for group/other/repo nor group/sub/deeper/repo',
    () =>
      withReceiver(
        'repos-gitlab',
        { triggers: [trigger({ name: 'deploy', kind: 'gitlab', repositories: ['group/sub/*'] })] },
        async (s) => {
          const inside = await post(s.url, gitlabMergeRequestLabeled({ project: 'group/sub/repo', label: 'waitgate:deploy' }));
          expect(inside.json).toMatchObject({ outcome: 'handled', results: [{ trigger: 'deploy', outcome: 'held' }] });
          for (const project of ['group/other/repo', 'group/sub/deeper/repo']) {
            const outside = await post(s.url, gitlabMergeRequestLabeled({ project, label: 'waitgate:deploy' }));
            expect(outside.status).toBe(202);
            expect(outside.json).toEqual({ outcome: 'ignored' });
          }
          expect(await held(s)).toEqual([['deploy', 'group/sub/repo!12']]);
        },
      ),
    Timeouts.testMs,
  );
});

describe('on.repos (a misspelt on.repositories) is refused at load, not ignored', () => {
  test.concurrent(
    'receiver: the file is refused (on-unknown-key at $[0].on.repos, counted) and the file before it stays in force',
    () =>
      withReceiver('repos-misspelt', { triggers: [trigger({ name: 'deploy', repositories: ['acme/web'] })] }, async (s) => {
        expect(await metricValue(s.metricsUrl, REFUSALS)).toBe(0);
        await putConfigMap(s.kube, s.namespace, 'waitgate-triggers', {
          'triggers.json': JSON.stringify([trigger({ name: 'release', labels: ['waitgate:release'], onExtra: { repos: ['acme/web'] } })]),
        });

        const refused = await refusedFile(s.receiver);
        expect(refused.refusals).toEqual([{ where: 'release', path: '$[0].on.repos', code: Code.OnUnknownKey }]);
        expect(refused.keptPrevious).toBe(true);
        await eventually('the refusal counted', async () => ((await metricValue(s.metricsUrl, REFUSALS)) === 1 ? true : undefined));
        expect((await fetch(`${s.metricsUrl}/readyz`)).status).toBe(200);

        // The refused file fires nothing, from any repository; the one before it, still narrowed to acme/web, does.
        for (const repo of ['acme/web', 'acme/api']) {
          expect((await post(s.url, githubLabeled({ repo, label: 'waitgate:release' }))).json).toEqual({ outcome: 'ignored' });
        }
        expect((await post(s.url, githubLabeled({ repo: 'acme/api', label: 'waitgate:deploy' }))).json).toEqual({ outcome: 'ignored' });
        const deploy = await post(s.url, githubLabeled({ repo: 'acme/web', label: 'waitgate:deploy', number: 8 }));
        expect(deploy.json).toMatchObject({ outcome: 'handled', results: [{ trigger: 'deploy', outcome: 'held' }] });
        expect(await held(s)).toEqual([['deploy', 'acme/web#8']]);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'operator: the same file reads as unreadable (waitgate_triggers_readable 0, TriggerChecked naming on-unknown-key), as any refused file does',
    () =>
      withScenario(
        'repos-operator',
        async (s) => {
          const metricsUrl = operatorMetricsUrl(await s.operator.logged('Started'));
          await eventually('waitgate_triggers_readable 0', async () =>
            (await metricValue(metricsUrl, 'waitgate_triggers_readable')) === 0 ? true : undefined,
          );
          const logged = await s.operator.logged('Cannot compare holds with their triggers');
          expect(logged['triggers']).toEqual({
            state: 'unreadable',
            problem: `1 refusal(s), first: ${Code.OnUnknownKey} at $[0].on.repos`,
          });

          await s.kube.createHeldJob(s.namespace, heldJob({ name: 'by-hand', trigger: 'deploy', exitCode: 0 }));
          const hj = await phaseReached(s, 'by-hand', 'Succeeded');
          const checked = hj.status?.conditions?.find((c) => c.type === 'TriggerChecked');
          expect(checked).toMatchObject({ status: 'Unknown', reason: 'TriggersUnreadable' });
          expect(checked?.message).toContain(Code.OnUnknownKey);

          // Spelt on.repositories, the same file loads.
          await putConfigMap(s.kube, s.namespace, 'waitgate-triggers', {
            'triggers.json': JSON.stringify([trigger({ name: 'deploy', repositories: ['acme/web'] })]),
          });
          await eventually('waitgate_triggers_readable 1', async () =>
            (await metricValue(metricsUrl, 'waitgate_triggers_readable')) === 1 ? true : undefined,
          );
        },
        {
          configMaps: {
            'waitgate-triggers': { 'triggers.json': JSON.stringify([trigger({ name: 'deploy', onExtra: { repos: ['acme/web'] } })]) },
          },
        },
      ),
    Timeouts.testMs,
  );
});
