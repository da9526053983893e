// The chart's network boundaries: NetworkPolicies that let nothing reach the operator and the
// receiver but their own ports, and only them reach Valkey; Valkey over TLS with a CA mounted
// from a Secret or a ConfigMap. Rendered with helm, then installed on the real apiserver.
import { describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { baseValues, CHART_DIR, mustRun, RELEASE, runTool, withChart } from '../support/chart.js';
import { Timeouts } from '../support/timeouts.js';

type Manifest = { kind: string; metadata: { name: string; namespace?: string }; spec: Record<string, unknown> };
type PodSpec = {
  containers: { env?: { name: string; value?: string }[]; volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[] }[];
  volumes?: { name: string; secret?: object; configMap?: object }[];
};

async function render(ns: string, args: readonly string[] = []): Promise<Manifest[]> {
  const r = await mustRun('helm', ['template', RELEASE, CHART_DIR, '-n', ns, '--set', 'valkey.url=redis://valkey:6379', ...args]);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

const policies = (ms: Manifest[]) => ms.filter((m) => m.kind === 'NetworkPolicy');
const named = (ms: Manifest[], kind: string, name: string) => ms.find((m) => m.kind === kind && m.metadata.name === name);
const podSpec = (d: Manifest | undefined) => (d?.spec as { template: { spec: PodSpec } } | undefined)?.template.spec;
const selector = (component: string) => ({
  'app.kubernetes.io/name': 'waitgate',
  'app.kubernetes.io/instance': RELEASE,
  'app.kubernetes.io/component': component,
});

describe('NetworkPolicies', () => {
  test.concurrent(
    'by default: the operator takes its metrics port only, the receiver its webhook port and its metrics port; no Valkey policy; check Pods reach everything but the metadata address',
    async () => {
      const ms = await render('team-a');
      expect(policies(ms).map((m) => m.metadata.name)).toEqual(['waitgate-operator', 'waitgate-receiver', 'waitgate-checks-no-metadata']);
      // networkPolicy.denyMetadata: the only egress rule by default, and for check Pods only.
      expect(named(ms, 'NetworkPolicy', 'waitgate-checks-no-metadata')?.spec).toEqual({
        podSelector: { matchLabels: { 'waitgate.dev/check': 'true' } },
        policyTypes: ['Egress'],
        egress: [
          {
            to: [
              { namespaceSelector: {} },
              { ipBlock: { cidr: '0.0.0.0/0', except: ['169.254.169.254/32'] } },
              { ipBlock: { cidr: '::/0', except: ['fd00:ec2::254/128'] } },
            ],
          },
        ],
      });
      expect(named(ms, 'NetworkPolicy', 'waitgate-operator')?.spec).toEqual({
        podSelector: { matchLabels: selector('operator') },
        policyTypes: ['Ingress'],
        ingress: [{ ports: [{ port: 'metrics', protocol: 'TCP' }] }],
      });
      expect(named(ms, 'NetworkPolicy', 'waitgate-receiver')?.spec).toEqual({
        podSelector: { matchLabels: selector('receiver') },
        policyTypes: ['Ingress'],
        ingress: [{ ports: [{ port: 'http', protocol: 'TCP' }] }, { ports: [{ port: 8082, protocol: 'TCP' }] }],
      });
      expect(policies(await render('team-a', ['--set', 'networkPolicy.enabled=false']))).toEqual([]);
      expect(policies(await render('team-a', ['--set', 'receiver.enabled=false'])).map((m) => m.metadata.name)).toEqual([
        'waitgate-operator',
        'waitgate-checks-no-metadata',
      ]);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'metricsFrom narrows the metrics port; valkey.podLabels fences Valkey to the operator, the receiver and extraFrom',
    async () => {
      const monitoring = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } };
      const fleet = { ipBlock: { cidr: '10.20.0.0/16' } };
      const ms = await render('team-a', [
        '--set-json',
        `networkPolicy.metricsFrom=${JSON.stringify([monitoring])}`,
        '--set-json',
        'networkPolicy.valkey.podLabels={"app.kubernetes.io/name":"valkey"}',
        '--set',
        'networkPolicy.valkey.namespace=data',
        '--set',
        'networkPolicy.valkey.port=6380',
        '--set-json',
        `networkPolicy.valkey.extraFrom=${JSON.stringify([fleet])}`,
      ]);
      expect(named(ms, 'NetworkPolicy', 'waitgate-operator')?.spec['ingress']).toEqual([
        { ports: [{ port: 'metrics', protocol: 'TCP' }], from: [monitoring] },
      ]);
      const valkey = named(ms, 'NetworkPolicy', 'waitgate-valkey');
      expect(valkey?.metadata.namespace).toBe('data');
      const ours = (component: string) => ({
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'team-a' } },
        podSelector: { matchLabels: selector(component) },
      });
      expect(valkey?.spec).toEqual({
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'valkey' } },
        policyTypes: ['Ingress'],
        // The helm test Pod (tests.enabled) pings Valkey as the operator would.
        ingress: [{ ports: [{ port: 6380, protocol: 'TCP' }], from: [ours('operator'), ours('receiver'), ours('doctor'), fleet] }],
      });
    },
    Timeouts.testMs,
  );
});

/** The NOTES helm prints after an install, rendered client-side (nothing is installed). */
async function notes(args: readonly string[] = []): Promise<string> {
  const r = await mustRun('helm', [
    'install',
    RELEASE,
    CHART_DIR,
    '--dry-run=client',
    '-n',
    'team-a',
    '--set',
    'valkey.url=redis://valkey:6379',
    ...args,
  ]);
  return r.stdout.slice(r.stdout.indexOf('NOTES:'));
}

describe('NOTES', () => {
  test.concurrent(
    'networkPolicy on: a warning while valkey.podLabels is empty (no Valkey policy is rendered), a note while metricsFrom is empty',
    async () => {
      const open = await notes();
      expect(open).toMatch(/^WARNING: networkPolicy\.valkey\.podLabels is empty, so this chart renders no NetworkPolicy for Valkey/m);
      expect(open).toMatch(
        /metrics ports \(operator and receiver\) are open to every Pod in the cluster until\s+networkPolicy\.metricsFrom/,
      );

      const fenced = await notes([
        '--set-json',
        'networkPolicy.valkey.podLabels={"app.kubernetes.io/name":"valkey"}',
        '--set-json',
        'networkPolicy.metricsFrom=[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"monitoring"}}}]',
      ]);
      expect(fenced).toMatch(/^Network: .*networkPolicy\.metricsFrom limits who reaches the metrics ports/m);
      expect(fenced).not.toMatch(/podLabels is empty|open to every Pod/);

      // Off: the chart renders no policy at all, and NOTES says nothing of them.
      expect(await notes(['--set', 'networkPolicy.enabled=false'])).not.toMatch(/^Network:|podLabels/m);
    },
    Timeouts.testMs,
  );
});

describe("Valkey's CA certificate", () => {
  test.concurrent(
    'valkey.tls.caSecret or caConfigMap: mounted read-only into the operator and the receiver, WAITGATE_VALKEY_CA_FILE names it',
    async () => {
      for (const [value, source] of [
        ['caSecret', { secret: { secretName: 'valkey-ca', defaultMode: 0o444, items: [{ key: 'tls.ca', path: 'ca.crt' }] } }],
        ['caConfigMap', { configMap: { name: 'valkey-ca', defaultMode: 0o444, items: [{ key: 'tls.ca', path: 'ca.crt' }] } }],
      ] as const) {
        const ms = await render('team-a', [
          '--set',
          'valkey.url=rediss://:pw@valkey.data:6380',
          '--set',
          `valkey.tls.${value}=valkey-ca`,
          '--set',
          'valkey.tls.caKey=tls.ca',
        ]);
        for (const name of ['waitgate-operator', 'waitgate-receiver']) {
          const spec = podSpec(named(ms, 'Deployment', name));
          expect(spec?.volumes).toContainEqual({ name: 'valkey-ca', ...source });
          expect(spec?.containers[0]?.volumeMounts).toContainEqual({
            name: 'valkey-ca',
            mountPath: '/etc/waitgate/valkey-ca',
            readOnly: true,
          });
          expect(spec?.containers[0]?.env).toContainEqual({ name: 'WAITGATE_VALKEY_CA_FILE', value: '/etc/waitgate/valkey-ca/ca.crt' });
        }
      }
      // Unset: nothing mounted, nothing named.
      const plain = await render('team-a');
      for (const name of ['waitgate-operator', 'waitgate-receiver']) {
        const spec = podSpec(named(plain, 'Deployment', name));
        expect((spec?.volumes ?? []).map((v) => v.name)).not.toContain('valkey-ca');
        expect((spec?.containers[0]?.env ?? []).map((e) => e.name)).not.toContain('WAITGATE_VALKEY_CA_FILE');
      }
    },
    Timeouts.testMs,
  );

  test.concurrent.each<[string, string[], RegExp]>([
    ['a CA with a redis:// URL', ['--set', 'valkey.tls.caSecret=valkey-ca'], /valkey.url is not a rediss:\/\/ URL/],
    [
      'both a Secret and a ConfigMap',
      ['--set', 'valkey.url=rediss://v:6380', '--set', 'valkey.tls.caSecret=a', '--set', 'valkey.tls.caConfigMap=b'],
      /set caSecret or caConfigMap, not both/,
    ],
  ])(
    'refused: %s',
    async (_what, args, message) => {
      const r = await runTool('helm', ['template', RELEASE, CHART_DIR, '-n', 'team-a', '--set', 'valkey.url=redis://valkey:6379', ...args]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(message);
    },
    Timeouts.testMs,
  );
});

describe('installed', () => {
  test.concurrent(
    'the apiserver accepts the NetworkPolicies, the Valkey fence and the CA mount',
    async () => {
      await withChart(
        'chart-net',
        (n) => ({
          ...baseValues(n),
          // The URL is only rendered into a Secret here; nothing dials it.
          valkey: { url: 'rediss://:pw@valkey:6380', prefix: `test-${n}`, tls: { caSecret: 'valkey-ca' } },
          watchNamespace: n,
          networkPolicy: { valkey: { podLabels: { 'app.kubernetes.io/name': 'valkey' } } },
        }),
        async (c) => {
          const ns = c.namespace;
          const net = c.kube.kc.makeApiClient(k8s.NetworkingV1Api);
          const names = (await net.listNamespacedNetworkPolicy({ namespace: ns })).items.map((p) => p.metadata?.name).sort();
          expect(names).toEqual(['waitgate-checks-no-metadata', 'waitgate-operator', 'waitgate-receiver', 'waitgate-valkey']);
          const apps = c.kube.kc.makeApiClient(k8s.AppsV1Api);
          for (const name of ['waitgate-operator', 'waitgate-receiver']) {
            const d = await apps.readNamespacedDeployment({ name, namespace: ns });
            expect(d.spec?.template.spec?.volumes?.find((v) => v.name === 'valkey-ca')?.secret?.secretName).toBe('valkey-ca');
          }
        },
      );
    },
    Timeouts.testMs,
  );
});
