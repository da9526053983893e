// The Grafana dashboard against a real Prometheus (issue 36): a Prometheus on loopback scrapes a
// running operator and receiver while they hold, check, launch, refuse and take deliveries;
// then every panel query of charts/waitgate/dashboards/waitgate.json, as Grafana would send it,
// must return at least one series. A panel on a metric, or a label, that does not exist fails.
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Phase, RefusalToken } from '../../api/vocabulary.js';
import { afterIn, heldJob } from '../support/builders.js';
import { ROOT } from '../support/env.js';
import { githubLabeled, post } from '../support/forge.js';
import { operatorMetricsUrl } from '../support/metrics.js';
import { fixtureScript, profilesConfigMap } from '../support/profiles.js';
import { PrometheusProcess } from '../support/prometheus.js';
import { trigger, withReceiver } from '../support/receiver-scenario.js';
import { phaseReached, type Scenario } from '../support/scenario.js';
import { operatorProcess } from '../support/service-process.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

interface Panel {
  readonly title: string;
  readonly targets?: readonly { readonly expr: string }[];
}

/** Every panel query of the dashboard, with its panel's title. */
function panelQueries(): { panel: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(join(ROOT, 'charts', 'waitgate', 'dashboards', 'waitgate.json'), 'utf8')) as {
    panels: Panel[];
  };
  return dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));
}

/** The query as Grafana sends it: the dashboard's variables given values. */
const asGrafanaSends = (expr: string, namespace: string) => expr.replaceAll('$__rate_interval', '30s').replaceAll('$namespace', namespace);

const hostPort = (url: string) => new URL(url).host;

describe('the Grafana dashboard on a real Prometheus', () => {
  test.concurrent(
    'every panel query returns a series once an operator and a receiver have held, checked, launched, refused and taken deliveries',
    () =>
      withReceiver(
        'prom-dash',
        {
          triggers: [trigger({ waitFor: [{ after: afterIn(2000).after }] })],
          profilesData: profilesConfigMap({ ok: fixtureScript('exit-0.sh'), notyet: fixtureScript('exit-3.sh') }),
        },
        async (s) => {
          const operator = operatorProcess(
            {
              WAITGATE_WATCH_NAMESPACE: s.namespace,
              WAITGATE_NAMESPACE: s.namespace,
              WAITGATE_VALKEY_PREFIX: s.env['WAITGATE_VALKEY_PREFIX'] ?? '',
            },
            `${s.namespace}-operator`,
          );
          const started = await operator.start();
          const prometheus = new PrometheusProcess([
            { address: hostPort(operatorMetricsUrl(started)), labels: { namespace: s.namespace, component: 'operator' } },
            { address: hostPort(s.metricsUrl), labels: { namespace: s.namespace, component: 'receiver' } },
          ]);
          try {
            await prometheus.start();
            const scenario = { kube: s.kube, namespace: s.namespace } as Scenario;
            // A delivery held and one refused (superseded) at the receiver; a hold launched on a
            // profile's check; one held on a profile; one refused by the operator (an instant past the
            // 30-day bound).
            const first = await post(s.url, githubLabeled({ label: 'waitgate:deploy' }));
            const second = await post(s.url, githubLabeled({ label: 'waitgate:deploy' }));
            expect(first.json['results']).toMatchObject([{ outcome: 'held' }]);
            expect(second.json['results']).toMatchObject([{ outcome: 'refused', token: RefusalToken.Superseded }]);
            await s.kube.createHeldJob(s.namespace, heldJob({ name: 'checked', target: 'acme/api#3', waitFor: [{ profile: 'ok' }] }));
            // One held on a profile that says not yet, for the per-profile panel.
            await s.kube.createHeldJob(s.namespace, heldJob({ name: 'gated', target: 'acme/web#5', waitFor: [{ profile: 'notyet' }] }));
            await s.kube.createHeldJob(
              s.namespace,
              heldJob({ name: 'too-far', target: 'acme/ops#4', waitFor: [{ after: afterIn(40 * 86_400_000).after }] }),
            );
            await phaseReached(scenario, 'checked', Phase.Running);
            await phaseReached(scenario, 'too-far', Phase.Refused);
            await phaseReached(scenario, 'gated', Phase.Held);

            // Prometheus has the targets up, from both processes.
            await eventually(
              'both targets up in prometheus',
              async () => ((await prometheus.query(`sum(up{namespace="${s.namespace}"})`))[0]?.value[1] === '2' ? true : undefined),
              Timeouts.shortMs,
            );
            const queries = panelQueries();
            expect(queries.length).toBeGreaterThanOrEqual(12);
            await eventually(
              'every dashboard panel query to return a series',
              async () => {
                const empty: string[] = [];
                for (const q of queries) {
                  if ((await prometheus.query(asGrafanaSends(q.expr, s.namespace))).length === 0) empty.push(`${q.panel}: ${q.expr}`);
                }
                if (empty.length === 0) return true;
                throw new Error(`no series for ${empty.length} of ${queries.length} panel queries:\n${empty.join('\n')}`);
              },
              Timeouts.jobMs,
            );
            // The same check tells an absent metric: a panel on one would have failed above.
            expect(
              await prometheus.query(
                asGrafanaSends(
                  `sum by (outcome) (rate(waitgate_no_such_metric_total{namespace=~"$namespace"}[$__rate_interval]))`,
                  s.namespace,
                ),
              ),
            ).toEqual([]);
            // The main figure counted both ends: the launch and the refusal.
            const ended = await prometheus.query(`sum by (outcome) (waitgate_hold_duration_seconds_count{namespace="${s.namespace}"})`);
            const launched = ended.find((r) => r.metric['outcome'] === 'launched');
            expect(Number(launched?.value[1] ?? 0)).toBeGreaterThanOrEqual(1);
          } catch (err) {
            throw new Error(`${(err as Error).message}\n(operator log: ${operator.logPath}; prometheus log: ${prometheus.logPath})`, {
              cause: err,
            });
          } finally {
            await prometheus.stop();
            await operator.stop();
          }
        },
      ),
    Timeouts.testMs,
  );
});
