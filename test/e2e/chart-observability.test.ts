// The chart's observability knobs as `helm template` renders them: the Grafana dashboard
// ConfigMap (the sidecar's label, its labels, annotations and namespace, the dashboard file as
// it is in the chart) and the ServiceMonitor's namespace, scheme, TLS, honorLabels and
// relabelings; the schema refusing what no template reads.
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHART_DIR, manifest, RELEASE, renderChart, runTool, valuesFile, type Manifest } from '../support/chart.js';
import { Timeouts } from '../support/timeouts.js';

const VALKEY = ['--set', 'valkey.url=redis://valkey:6379'];
const DASHBOARD = `${RELEASE}-dashboard`;
const render = (values: object) => renderChart('team-a', [...VALKEY, '-f', valuesFile('observability', values)]);
const endpoint = (m: Manifest) => (m['spec'] as { endpoints: Record<string, unknown>[] }).endpoints[0];

describe('grafanaDashboard', () => {
  test.concurrent(
    'off by default: no dashboard ConfigMap',
    async () => {
      const ms = await render({});
      expect(ms.filter((m) => m.kind === 'ConfigMap' && m.metadata.name === DASHBOARD)).toEqual([]);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    "on: the sidecar's label, the given labels, annotations and namespace, and the chart's dashboard file as it is",
    async () => {
      const ms = await render({
        grafanaDashboard: {
          enabled: true,
          namespace: 'monitoring',
          labels: { team: 'platform' },
          annotations: { grafana_folder: 'Waitgate' },
        },
      });
      const cm = manifest(ms, 'ConfigMap', DASHBOARD);
      expect(cm.metadata.namespace).toBe('monitoring');
      expect(cm.metadata['labels']).toMatchObject({ grafana_dashboard: '1', team: 'platform', 'app.kubernetes.io/instance': RELEASE });
      expect(cm.metadata['annotations']).toEqual({ grafana_folder: 'Waitgate' });
      const data = (cm['data'] as Record<string, string>)['waitgate.json'] ?? '';
      expect(JSON.parse(data)).toEqual(JSON.parse(readFileSync(join(CHART_DIR, 'dashboards', 'waitgate.json'), 'utf8')));
      // Without a namespace given: the release's.
      const own = manifest(await render({ grafanaDashboard: { enabled: true } }), 'ConfigMap', DASHBOARD);
      expect(own.metadata.namespace).toBe('team-a');
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'a key no template reads is refused by the schema',
    async () => {
      const r = await runTool('helm', ['template', RELEASE, CHART_DIR, ...VALKEY, '--set', 'grafanaDashboard.folder=x']);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/grafanaDashboard.*folder|additional properties 'folder'/);
    },
    Timeouts.testMs,
  );
});

describe('serviceMonitor', () => {
  test.concurrent(
    'defaults: in the release namespace, http, no relabelings, labels not honoured',
    async () => {
      const ms = await render({ serviceMonitor: { enabled: true } });
      for (const name of [`${RELEASE}-operator`, `${RELEASE}-receiver`]) {
        const sm = manifest(ms, 'ServiceMonitor', name);
        expect(sm.metadata.namespace).toBe('team-a');
        expect(endpoint(sm)).toEqual({ port: 'metrics', path: '/metrics', interval: '30s', scrapeTimeout: '10s', scheme: 'http' });
      }
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'namespace, scheme, tlsConfig, honorLabels, relabelings and metricRelabelings reach both endpoints; the Services are still selected in the release namespace',
    async () => {
      const relabelings = [{ action: 'replace', targetLabel: 'cluster', replacement: 'eu-1' }];
      const metricRelabelings = [{ action: 'drop', sourceLabels: ['__name__'], regex: 'nodejs_.*' }];
      const tlsConfig = { serverName: 'waitgate-operator.team-a.svc', ca: { secret: { name: 'ca', key: 'ca.crt' } } };
      const ms = await render({
        serviceMonitor: {
          enabled: true,
          namespace: 'monitoring',
          scheme: 'https',
          tlsConfig,
          honorLabels: true,
          relabelings,
          metricRelabelings,
        },
      });
      for (const name of [`${RELEASE}-operator`, `${RELEASE}-receiver`]) {
        const sm = manifest(ms, 'ServiceMonitor', name);
        expect(sm.metadata.namespace).toBe('monitoring');
        expect((sm['spec'] as { namespaceSelector: unknown }).namespaceSelector).toEqual({ matchNames: ['team-a'] });
        expect(endpoint(sm)).toMatchObject({ scheme: 'https', tlsConfig, honorLabels: true, relabelings, metricRelabelings });
      }
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'a scheme other than http or https is refused',
    async () => {
      const r = await runTool('helm', ['template', RELEASE, CHART_DIR, ...VALKEY, '--set', 'serviceMonitor.scheme=ftp']);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/scheme/);
    },
    Timeouts.testMs,
  );
});
