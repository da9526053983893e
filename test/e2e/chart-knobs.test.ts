// The chart's knobs a platform team sets (issue #36): service accounts of their own or existing
// ones with a cloud identity, commonLabels on every object, a parent chart's global pull secrets
// and priority class, extraObjects, envFrom, revisionHistoryLimit, the receiver pinned by digest,
// names that follow the release (so several releases fit in one namespace), and a schema that
// accepts no key that no template reads.
import { describe, expect, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { baseValues, CHART_DIR, kubectl, mustRun, runTool, valuesFile, type Manifest } from '../support/chart.js';
import { TestKube } from '../support/kube.js';
import { Timeouts } from '../support/timeouts.js';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;

/** `helm template RELEASE` of the chart into ns with these values (a Valkey URL added); the manifests. */
async function render(release: string, ns: string, values: object): Promise<Manifest[]> {
  const file = valuesFile(`knobs-${release}`, { valkey: { url: 'redis://valkey:6379' }, ...values });
  const r = await mustRun('helm', ['template', release, CHART_DIR, '-n', ns, '-f', file]);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

/** helm's refusal of these values (the command must fail); its stderr. */
async function refusal(values: object): Promise<string> {
  const file = valuesFile('knobs-refused', { valkey: { url: 'redis://valkey:6379' }, ...values });
  const r = await runTool('helm', ['template', 'waitgate', CHART_DIR, '-n', 'team-a', '-f', file]);
  expect(r.code).not.toBe(0);
  return r.stderr;
}

function find(ms: readonly Manifest[], kind: string, name: string): Manifest {
  const m = ms.find((x) => x.kind === kind && x.metadata.name === name);
  if (!m) throw new Error(`no ${kind} ${name} among ${ms.map((x) => `${x.kind}/${x.metadata.name}`).join(', ')}`);
  return m;
}

interface PodSpec {
  serviceAccountName?: string;
  imagePullSecrets?: { name: string }[];
  priorityClassName?: string;
  containers: { image: string; env?: { name: string; value?: string }[]; envFrom?: unknown[] }[];
  volumes?: { name: string; configMap?: { name: string } }[];
}

function podSpec(m: Manifest): PodSpec {
  const spec = m['spec'] as { template?: { spec: PodSpec } } & PodSpec;
  return m.kind === 'Pod' ? spec : (spec.template as { spec: PodSpec }).spec;
}

function envOf(m: Manifest): Record<string, string | undefined> {
  return Object.fromEntries((podSpec(m).containers[0]?.env ?? []).map((e) => [e.name, e.value]));
}

function labelsOf(m: Manifest): Record<string, string> {
  return (m.metadata['labels'] ?? {}) as Record<string, string>;
}

type Subject = { kind: string; name: string; namespace?: string };
const subjectsOf = (m: Manifest) => (m['subjects'] ?? []) as Subject[];

describe('serviceAccount: create, name, annotations', () => {
  test.concurrent(
    'by default each component gets its own, named after the release, and the RBAC is bound to it',
    async () => {
      const ms = await render('waitgate', 'team-a', {});
      expect(find(ms, 'ServiceAccount', 'waitgate-operator').metadata['annotations']).toBeUndefined();
      expect(podSpec(find(ms, 'Deployment', 'waitgate-operator')).serviceAccountName).toBe('waitgate-operator');
      expect(podSpec(find(ms, 'Deployment', 'waitgate-receiver')).serviceAccountName).toBe('waitgate-receiver');
      expect(subjectsOf(find(ms, 'RoleBinding', 'waitgate-operator'))).toEqual([
        { kind: 'ServiceAccount', name: 'waitgate-operator', namespace: 'team-a' },
      ]);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'annotations (IRSA, Workload Identity) land on the ServiceAccount; create false runs as an existing one, every binding and policy follows its name',
    async () => {
      const ms = await render('waitgate', 'team-a', {
        operator: {
          serviceAccount: { name: 'ops-robot', annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::123456789012:role/waitgate' } },
        },
        receiver: { serviceAccount: { create: false, name: 'hooks-robot' } },
      });
      expect(find(ms, 'ServiceAccount', 'ops-robot').metadata['annotations']).toEqual({
        'eks.amazonaws.com/role-arn': 'arn:aws:iam::123456789012:role/waitgate',
      });
      // The receiver's is not made: it exists already.
      expect(ms.filter((m) => m.kind === 'ServiceAccount').map((m) => m.metadata.name)).toEqual(['ops-robot', 'waitgate-doctor']);
      expect(podSpec(find(ms, 'Deployment', 'waitgate-operator')).serviceAccountName).toBe('ops-robot');
      expect(podSpec(find(ms, 'Deployment', 'waitgate-receiver')).serviceAccountName).toBe('hooks-robot');
      const bound = ms
        .filter((m) => m.kind === 'RoleBinding' || m.kind === 'ClusterRoleBinding')
        .flatMap((m) => subjectsOf(m).map((s) => `${m.metadata.name}:${s.name}`))
        .sort();
      expect(bound).toEqual([
        'team-a-waitgate-doctor:waitgate-doctor',
        'team-a-waitgate-operator:ops-robot',
        'waitgate-doctor:waitgate-doctor',
        'waitgate-operator:ops-robot',
        'waitgate-receiver-heldjobs:hooks-robot',
      ]);
      // The admission policies know the accounts by these names, and so does helm test's doctor.
      const policies = JSON.stringify(ms.filter((m) => m.kind === 'ValidatingAdmissionPolicy'));
      expect(policies).toContain('system:serviceaccount:team-a:ops-robot');
      expect(policies).toContain('system:serviceaccount:team-a:hooks-robot');
      expect(policies).not.toContain('system:serviceaccount:team-a:waitgate-operator');
      const doctor = find(ms, 'Pod', 'waitgate-doctor');
      expect(JSON.stringify(doctor)).toContain('system:serviceaccount:team-a:ops-robot');
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'create false without a name is refused, naming the key',
    async () => {
      expect(await refusal({ operator: { serviceAccount: { create: false } } })).toMatch(
        /operator\.serviceAccount\.create is false and operator\.serviceAccount\.name is empty/,
      );
    },
    Timeouts.testMs,
  );
});

describe('commonLabels', () => {
  test.concurrent(
    'every object the chart renders carries them (and its Pods), selectors stay as they were',
    async () => {
      const common = { 'example.com/team': 'platform', costCenter: 'cc-7' };
      const ms = await render('waitgate', 'team-a', {
        commonLabels: common,
        valkey: { url: '', deploy: true },
        prometheusRule: { enabled: true },
        serviceMonitor: { enabled: true },
        receiver: { ingress: { enabled: true } },
        extraObjects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'extra', labels: { costCenter: 'own' } } }],
      });
      expect(ms.length).toBeGreaterThan(40);
      const missing = ms
        .filter((m) => !(m.metadata.name === 'extra' || Object.entries(common).every(([k, v]) => labelsOf(m)[k] === v)))
        .map((m) => `${m.kind}/${m.metadata.name}`);
      expect(missing).toEqual([]);
      // An extra object's own label wins.
      expect(labelsOf(find(ms, 'ConfigMap', 'extra'))).toEqual({ 'example.com/team': 'platform', costCenter: 'own' });
      for (const name of ['waitgate-operator', 'waitgate-receiver', 'waitgate-valkey']) {
        const d = find(ms, 'Deployment', name);
        const spec = d['spec'] as {
          selector: { matchLabels: Record<string, string> };
          template: { metadata: { labels: Record<string, string> } };
        };
        expect(spec.template.metadata.labels).toMatchObject(common);
        expect(Object.keys(spec.selector.matchLabels)).not.toContain('costCenter');
      }
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'a label key that is not one is refused by the schema',
    async () => {
      expect(await refusal({ commonLabels: { 'bad key!': 'x' } })).toMatch(/invalid propertyName 'bad key!'/);
    },
    Timeouts.testMs,
  );
});

describe("global.imagePullSecrets and global.priorityClassName (a parent chart's)", () => {
  test.concurrent(
    "reach every Pod of the chart's own, after the chart's own pull secrets and under a component's own priority class",
    async () => {
      const ms = await render('waitgate', 'team-a', {
        imagePullSecrets: [{ name: 'regcred' }],
        // A bare name and an object, a repeat dropped; global keys of other charts let through.
        global: { imagePullSecrets: ['mirror', { name: 'regcred' }], priorityClassName: 'platform-high', storageClass: 'fast' },
        operator: { priorityClassName: 'waitgate-critical' },
        valkey: { url: '', deploy: true },
      });
      const pods = [
        ['Deployment', 'waitgate-operator', 'waitgate-critical'],
        ['Deployment', 'waitgate-receiver', 'platform-high'],
        ['Deployment', 'waitgate-valkey', 'platform-high'],
        // helm test's doctor runs where the operator runs.
        ['Pod', 'waitgate-doctor', 'waitgate-critical'],
      ] as const;
      for (const [kind, name, priority] of pods) {
        const spec = podSpec(find(ms, kind, name));
        expect([name, spec.imagePullSecrets]).toEqual([name, [{ name: 'regcred' }, { name: 'mirror' }]]);
        expect([name, spec.priorityClassName]).toEqual([name, priority]);
      }
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'unset: no imagePullSecrets and no priorityClassName at all',
    async () => {
      const spec = podSpec(find(await render('waitgate', 'team-a', {}), 'Deployment', 'waitgate-operator'));
      expect(spec.imagePullSecrets).toBeUndefined();
      expect(spec.priorityClassName).toBeUndefined();
    },
    Timeouts.testMs,
  );
});

describe('extraObjects, envFrom, revisionHistoryLimit, receiver.imageDigest', () => {
  test.concurrent(
    'extraObjects are rendered with tpl, as maps or as strings; one that is not a manifest is refused',
    async () => {
      const ms = await render('blue', 'team-a', {
        extraObjects: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: '{{ .Release.Name }}-extra' },
            data: { ns: '{{ .Release.Namespace }}' },
          },
          'apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ include "waitgate.fullname" . }}-extra\nstringData:\n  a: b\n',
        ],
      });
      expect(find(ms, 'ConfigMap', 'blue-extra')['data']).toEqual({ ns: 'team-a' });
      expect(find(ms, 'Secret', 'blue-waitgate-extra')['stringData']).toEqual({ a: 'b' });
      expect(await refusal({ extraObjects: ['just: [text'] })).toMatch(/extraObjects\[0\] is not a YAML manifest/);
      expect(await refusal({ extraObjects: [{ metadata: { name: 'x' } }] })).toMatch(/extraObjects\[0\] has no apiVersion or kind/);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'envFrom per component, revisionHistoryLimit on every Deployment, the receiver by digest (its tag then ignored)',
    async () => {
      const ms = await render('waitgate', 'team-a', {
        revisionHistoryLimit: 2,
        valkey: { url: '', deploy: true },
        operator: { envFrom: [{ secretRef: { name: 'jira-credentials' } }] },
        receiver: { envFrom: [{ configMapRef: { name: 'proxy', optional: true }, prefix: 'P_' }], imageTag: '0.1.0', imageDigest: DIGEST },
      });
      expect(podSpec(find(ms, 'Deployment', 'waitgate-operator')).containers[0]?.envFrom).toEqual([
        { secretRef: { name: 'jira-credentials' } },
      ]);
      expect(podSpec(find(ms, 'Deployment', 'waitgate-receiver')).containers[0]?.envFrom).toEqual([
        { configMapRef: { name: 'proxy', optional: true }, prefix: 'P_' },
      ]);
      for (const d of ms.filter((m) => m.kind === 'Deployment')) {
        expect([d.metadata.name, (d['spec'] as { revisionHistoryLimit: number }).revisionHistoryLimit]).toEqual([d.metadata.name, 2]);
      }
      expect(podSpec(find(ms, 'Deployment', 'waitgate-receiver')).containers[0]?.image).toBe(`ghcr.io/waitgate/waitgate@${DIGEST}`);
      // The operator keeps the chart's image.
      expect(podSpec(find(ms, 'Deployment', 'waitgate-operator')).containers[0]?.image).toMatch(/^ghcr\.io\/waitgate\/waitgate:/);
      const tagOnly = await render('waitgate', 'team-a', { receiver: { imageTag: '0.1.0' } });
      expect(podSpec(find(tagOnly, 'Deployment', 'waitgate-receiver')).containers[0]?.image).toBe('ghcr.io/waitgate/waitgate:0.1.0');
      expect(await refusal({ receiver: { imageDigest: 'sha256:abc' } })).toMatch(/imageDigest/);
      expect(await refusal({ operator: { envFrom: [{ secret: { name: 'x' } }] } })).toMatch(/envFrom/);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'all the knobs at once: `kubectl apply --dry-run=server` accepts what they render',
    async () => {
      const kube = new TestKube();
      const ns = await kube.createNamespace('chart-knobs-dry');
      try {
        const file = valuesFile(ns, {
          ...baseValues(ns),
          commonLabels: { team: 'platform' },
          global: { imagePullSecrets: ['mirror'] },
          revisionHistoryLimit: 1,
          extraObjects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '{{ .Release.Name }}-extra' } }],
          operator: {
            envFrom: [{ secretRef: { name: 'jira', optional: true } }],
            serviceAccount: { annotations: { 'iam.gke.io/gcp-service-account': 'w@p.iam.gserviceaccount.com' } },
          },
          receiver: { envFrom: [{ configMapRef: { name: 'proxy', optional: true } }], imageDigest: DIGEST },
        });
        const rendered = await mustRun('helm', ['template', 'blue', CHART_DIR, '-n', ns, '-f', file]);
        // The helm test Pod needs its ServiceAccount to exist even in a dry run (as in chart.test.ts).
        const serviceAccounts = rendered.stdout
          .split(/^---$/m)
          .filter((doc) => /^kind: ServiceAccount$/m.test(doc))
          .join('\n---\n');
        expect((await kubectl(['apply', '-n', ns, '-f', '-'], { input: serviceAccounts })).code).toBe(0);
        const applied = await kubectl(['apply', '--dry-run=server', '-n', ns, '-f', '-'], { input: rendered.stdout });
        expect(applied.stderr).toBe('');
        expect(applied.stdout).toMatch(/configmap\/blue-extra created \(server dry run\)/);
        expect(applied.stdout).toMatch(/deployment\.apps\/blue-waitgate-receiver created \(server dry run\)/);
      } finally {
        await kube.deleteNamespace(ns);
      }
    },
    Timeouts.testMs,
  );
});

describe('several releases in one namespace', () => {
  test.concurrent(
    "the default release keeps waitgate-profiles and waitgate-triggers; another's follow its name, and the operator, the receiver and doctor are told",
    async () => {
      const main = await render('waitgate', 'team-a', {});
      expect(main.filter((m) => m.kind === 'ConfigMap').map((m) => m.metadata.name)).toEqual(['waitgate-profiles', 'waitgate-triggers']);
      expect(envOf(find(main, 'Deployment', 'waitgate-operator'))).toMatchObject({
        WAITGATE_PROFILES_CONFIGMAP: 'waitgate-profiles',
        WAITGATE_TRIGGERS_CONFIGMAP: 'waitgate-triggers',
        WAITGATE_LEADER_ELECTION_ID: 'waitgate-operator',
      });

      const blue = await render('blue', 'team-a', {});
      expect(blue.filter((m) => m.kind === 'ConfigMap').map((m) => m.metadata.name)).toEqual([
        'blue-waitgate-profiles',
        'blue-waitgate-triggers',
      ]);
      const op = find(blue, 'Deployment', 'blue-waitgate-operator');
      expect(envOf(op)).toMatchObject({
        WAITGATE_PROFILES_CONFIGMAP: 'blue-waitgate-profiles',
        WAITGATE_TRIGGERS_CONFIGMAP: 'blue-waitgate-triggers',
        // Its own Lease: two releases' operators would otherwise elect one leader between them.
        WAITGATE_LEADER_ELECTION_ID: 'blue-waitgate-operator',
      });
      expect(podSpec(op).volumes).toContainEqual(
        expect.objectContaining({ name: 'profiles', configMap: expect.objectContaining({ name: 'blue-waitgate-profiles' }) }),
      );
      const rc = podSpec(find(blue, 'Deployment', 'blue-waitgate-receiver'));
      expect(rc.volumes?.filter((v) => v.configMap).map((v) => v.configMap?.name)).toEqual([
        'blue-waitgate-triggers',
        'blue-waitgate-profiles',
      ]);
      const role = find(blue, 'Role', 'blue-waitgate-operator')['rules'] as { resources: string[]; resourceNames?: string[] }[];
      expect(role.find((r) => r.resourceNames)?.resourceNames).toEqual(['blue-waitgate-operator']);
      const doctorRole = find(blue, 'Role', 'blue-waitgate-doctor')['rules'] as { resources: string[]; resourceNames?: string[] }[];
      expect(doctorRole.find((r) => r.resources.includes('configmaps'))?.resourceNames).toEqual([
        'blue-waitgate-profiles',
        'blue-waitgate-triggers',
      ]);

      // No two releases in one namespace share a namespaced object's name (the CRDs are the cluster's).
      const names = (ms: readonly Manifest[]) =>
        new Set(ms.filter((m) => !m.kind.startsWith('CustomResourceDefinition')).map((m) => `${m.kind}/${m.metadata.name}`));
      const green = names(await render('green', 'team-a', {}));
      expect([...names(blue)].filter((n) => green.has(n))).toEqual([]);
      expect([...names(main)].filter((n) => green.has(n))).toEqual([]);

      // Named by hand, for a ConfigMap the chart does not make.
      const named = await render('blue', 'team-a', { profilesConfigMap: { create: false, name: 'shared-profiles' } });
      expect(envOf(find(named, 'Deployment', 'blue-waitgate-operator'))['WAITGATE_PROFILES_CONFIGMAP']).toBe('shared-profiles');
      expect(named.filter((m) => m.kind === 'ConfigMap').map((m) => m.metadata.name)).toEqual(['blue-waitgate-triggers']);
    },
    Timeouts.testMs,
  );
});

// --- values.schema.json: no key that no template reads ---------------------------------------

type SchemaNode = { type?: string | string[]; properties?: Record<string, SchemaNode>; additionalProperties?: boolean | object };

/** Every declared key of the schema, as a path of names: objects with properties are walked into. */
function schemaPaths(node: SchemaNode, path: string[] = []): string[][] {
  const props = node.properties;
  if (!props) return [path];
  return Object.entries(props).flatMap(([k, child]) => schemaPaths(child, [...path, k]));
}

/** Every object of the schema that declares properties but also lets others through. */
function openObjects(node: SchemaNode, path: string[] = []): string[] {
  if (!node.properties) return [];
  const here = node.additionalProperties === false ? [] : [path.join('.') || '(root)'];
  return [...here, ...Object.entries(node.properties).flatMap(([k, child]) => openObjects(child, [...path, k]))];
}

function templateText(): string {
  const dir = join(CHART_DIR, 'templates');
  const files = [...readdirSync(dir).map((f) => join(dir, f)), ...readdirSync(join(dir, 'tests')).map((f) => join(dir, 'tests', f))];
  return files
    .filter((f) => /\.(ya?ml|tpl|txt)$/.test(f))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
}

/**
 * Whether the templates read this key: its top-level name as `.Values.<top>` (or `index .Values
 * "<top>"` / `"<top>"` through a variable), and each deeper name as a field (`.name`) or a
 * string key (`"name"`) somewhere in them. A key no template names by any of these is read by none.
 */
function readBy(text: string, path: readonly string[]): boolean {
  const [top, ...rest] = path;
  if (top === undefined) return false;
  const field = (k: string) => new RegExp(`(\\.${k}\\b|"${k}")`).test(text);
  const topRead = new RegExp(`\\.Values\\.${top}\\b`).test(text) || new RegExp(`"${top}"`).test(text);
  return topRead && rest.every(field);
}

/**
 * Schema objects a template hands on whole (to toYaml / toJson): their keys are declared so the
 * schema can refuse a misspelt one, and are read with their parent, never one by one.
 */
const PASSED_WHOLE: readonly (readonly string[])[] = [['operator', 'checkPods', 'affinity']];

describe('values.schema.json', () => {
  const schema = JSON.parse(readFileSync(join(CHART_DIR, 'values.schema.json'), 'utf8')) as SchemaNode;

  test('accepts no key that no template reads: every declared key is named by some template', () => {
    const text = templateText();
    const paths = schemaPaths(schema);
    expect(paths.length).toBeGreaterThan(150);
    const passedWhole = (p: readonly string[]) =>
      PASSED_WHOLE.some((w) => w.length < p.length && w.every((k, i) => p[i] === k) && readBy(text, w));
    expect(paths.filter((p) => !readBy(text, p) && !passedWhole(p)).map((p) => p.join('.'))).toEqual([]);
    // The probe itself: a key of no template's is caught.
    expect(readBy(text, ['global', 'storageClass'])).toBe(false);
    expect(readBy(text, ['operator', 'serviceAccount', 'automount'])).toBe(false);
  });

  test('and lets no undeclared key through, except under global (a parent chart shares it with every subchart)', () => {
    expect(openObjects(schema)).toEqual(['global']);
    // global declares what is read of it.
    expect(Object.keys(schema.properties?.['global']?.properties ?? {})).toEqual(['imagePullSecrets', 'priorityClassName']);
  });

  test.concurrent(
    'values.yaml sets every top-level key the schema declares',
    async () => {
      const values = (parseAllDocuments(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8'))[0]?.toJS() ?? {}) as Record<string, unknown>;
      expect(Object.keys(values).sort()).toEqual(Object.keys(schema.properties ?? {}).sort());
    },
    Timeouts.testMs,
  );
});
