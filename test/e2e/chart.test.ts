// The Helm chart (charts/waitgate): its schema refuses bad values, its CRD template is crds/
// under the chart's metadata, what it renders is accepted by the real apiserver, it installs and uninstalls, and
// the RBAC it grants is enough for the real operator and receiver, run as the chart's own
// ServiceAccounts, to do their whole job, and no more.
import { describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Phase, RefusalToken } from '../../api/vocabulary.js';
import { operatorPermissions } from '../../cli/doctor/rbac.js';
import { afterIn, heldJob } from '../support/builders.js';
import {
  baseValues,
  canI,
  canIArgs,
  CHART_DIR,
  deploymentEnv,
  helm,
  installNotes,
  kubectl,
  mountedConfigMaps,
  mustRun,
  OPERATOR_SA,
  RECEIVER_SA,
  RELEASE,
  runTool,
  serviceAccountKubeconfig,
  valuesFile,
  withChart,
  type ChartInstall,
} from '../support/chart.js';
import { ROOT, requireEnv } from '../support/env.js';
import { GITHUB_SECRET, githubLabeled, post } from '../support/forge.js';
import { TestKube } from '../support/kube.js';
import { fixtureScript } from '../support/profiles.js';
import { RECEIVER_ALLOCATOR_ENV, RECEIVER_NODE_OPTIONS } from '../../bench/fuzz.js';
import { trigger } from '../support/receiver-scenario.js';
import { operatorProcess, receiverProcess, receiverUrls, type ServiceProcess } from '../support/service-process.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const NAME = 'web-7-deploy';
const PROFILE = 'chart-go';

type Manifest = { kind: string; metadata: { name: string; namespace?: string }; [k: string]: unknown };
type Container = { env?: { name: string; value?: string }[]; volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[] };

/** `helm template` of the chart into namespace ns with extra helm arguments; the parsed manifests. */
async function render(ns: string, args: readonly string[] = []): Promise<Manifest[]> {
  const r = await mustRun('helm', ['template', RELEASE, CHART_DIR, '-n', ns, '--set', 'valkey.url=redis://valkey:6379', ...args]);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

function find(ms: Manifest[], kind: string, name: string): Manifest {
  const m = ms.find((x) => x.kind === kind && x.metadata.name === name);
  if (!m) throw new Error(`no ${kind} ${name} among ${ms.map((x) => `${x.kind}/${x.metadata.name}`).join(', ')}`);
  return m;
}

function podSpecOf(d: Manifest): {
  containers: Container[];
  volumes?: { name: string; configMap?: { name: string; defaultMode?: number } }[];
  serviceAccountName?: string;
} {
  return (d as unknown as { spec: { template: { spec: ReturnType<typeof podSpecOf> } } }).spec.template.spec;
}

function envOf(d: Manifest): Record<string, string | undefined> {
  return Object.fromEntries((podSpecOf(d).containers[0]?.env ?? []).map((e) => [e.name, e.value]));
}

// --- values.schema.json and the chart's own rules -----------------------------------------------

describe('the chart refuses bad values before anything reaches the cluster', () => {
  test.concurrent(
    "`helm lint` passes with the chart's own values",
    async () => {
      const r = await runTool('helm', ['lint', CHART_DIR]);
      expect(r.stderr + r.stdout).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
      expect(r.code).toBe(0);
    },
    Timeouts.testMs,
  );

  test.concurrent.each<[string, string[], RegExp]>([
    ['an interval under the 30 s floor', ['--set', 'wait.intervalMs=1000'], /\/wait\/intervalMs': minimum: got 1,000, want 30,000/],
    ['no faults allowed', ['--set', 'wait.maxFaults=0'], /\/wait\/maxFaults': minimum/],
    ['no checks allowed', ['--set', 'wait.maxChecks=0'], /\/wait\/maxChecks': minimum/],
    ['no check slot', ['--set', 'wait.checkSlots=0'], /\/wait\/checkSlots': minimum/],
    ['a zero check timeout', ['--set', 'wait.checkTimeoutMs=0'], /\/wait\/checkTimeoutMs': minimum/],
    ['a zero maximum wait', ['--set', 'wait.maxMs=0'], /\/wait\/maxMs': minimum/],
    ['a zero after maximum', ['--set', 'wait.afterMaxMs=0'], /\/wait\/afterMaxMs': minimum/],
    ['a kill grace over a minute', ['--set', 'wait.killGraceMs=60001'], /\/wait\/killGraceMs': maximum/],
    ['a zero pod start timeout', ['--set', 'wait.podStartTimeoutMs=0'], /\/wait\/podStartTimeoutMs': minimum/],
    ['a negative finished time to live', ['--set', 'finishedTtlMs=-1'], /\/finishedTtlMs': minimum/],
    ['a concurrency that is not a number', ['--set', 'concurrency=x'], /\/concurrency': got string, want integer/],
    ['a fractional concurrency', ['--set-json', 'concurrency=2.5'], /\/concurrency': got number, want integer/],
    ['a negative concurrency', ['--set', 'concurrency=-1'], /\/concurrency': minimum/],
    ['a concurrency over 10000', ['--set', 'concurrency=10001'], /\/concurrency': maximum/],
    ['an empty worker name', ['--set', 'workerName='], /\/workerName'/],
    ['a Valkey URL that is not redis:// or rediss://', ['--set', 'valkey.url=http://valkey:6379'], /\/valkey\/url'/],
    [
      'a pause window at 25:00',
      ['--set-json', 'pauseWindows=[{"start":"25:00","end":"06:00","timeZone":"UTC"}]'],
      /\/pauseWindows\/0\/start'/,
    ],
    [
      'a pause window with an unknown field',
      ['--set-json', 'pauseWindows=[{"start":"22:00","end":"06:00","timeZone":"UTC","tz":"x"}]'],
      /\/pauseWindows\/0'/,
    ],
    ['a profile name with capitals', ['--set-json', 'profiles={"Jira":{"script":"#!/bin/sh\\nexit 0\\n"}}'], /invalid propertyName 'Jira'/],
    ['a script without #!', ['--set-json', 'profiles={"jira":{"script":"exit 0"}}'], /\/profiles\/jira\/script'/],
    [
      'an exec-mode profile with an image',
      ['--set-json', 'profiles={"ci":{"mode":"exec","image":"alpine","script":"#!/bin/sh\\n"}}'],
      /\/profiles\/ci'/,
    ],
    [
      'an exec-mode profile with Pod annotations',
      ['--set-json', 'profiles={"ci":{"mode":"exec","annotations":{"a":"b"},"script":"#!/bin/sh\\n"}}'],
      /\/profiles\/ci'/,
    ],
    ['a trigger without "on"', ['--set-json', 'triggers=[{"name":"deploy","run":{}}]'], /\/triggers\/0': missing property 'on'/],
    ['a value the chart does not have', ['--set', 'wait.interval=60000'], /additional properties 'interval' not allowed/],
  ])(
    '`helm lint` fails on %s, naming the value',
    async (_what, args, message) => {
      const r = await runTool('helm', ['lint', CHART_DIR, ...args]);
      expect(r.code).not.toBe(0);
      expect(r.stdout + r.stderr).toMatch(/values don't meet the specifications of the schema/);
      expect(r.stdout + r.stderr).toMatch(message);
    },
    Timeouts.testMs,
  );

  test.concurrent.each<[string, string[], RegExp]>([
    [
      'leader election off with two replicas',
      ['--set', 'operator.leaderElection.enabled=false'],
      /every replica would reconcile the same HeldJobs/,
    ],
    [
      'a receiver creating HeldJobs outside the watched namespace',
      ['--set', 'watchNamespace=elsewhere'],
      /receiver.jobNamespace \(chart-lint\) is outside watchNamespace \(elsewhere\)/,
    ],
    ['no Valkey at all (the chart has no default URL)', ['--set', 'valkey.url='], /valkey\.url is required \(or valkey\.existingSecret/],
    [
      'a pause window that starts where it ends',
      ['--set-json', 'pauseWindows=[{"start":"22:00","end":"22:00","timeZone":"UTC"}]'],
      /pauseWindows\[0\]: start and end are both 22:00/,
    ],
    [
      'two triggers of one name',
      ['--set-json', 'triggers=[{"name":"d","on":{},"run":{}},{"name":"d","on":{},"run":{}}]'],
      /triggers\[1\]: the name "d" is used twice/,
    ],
  ])(
    '`helm template` fails on %s, saying why',
    async (_what, args, message) => {
      const r = await runTool('helm', [
        'template',
        RELEASE,
        CHART_DIR,
        '-n',
        'chart-lint',
        '--set',
        'valkey.url=redis://valkey:6379',
        ...args,
      ]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(message);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    '`helm install` with a bad value fails at install time and leaves no release and no object behind',
    async () => {
      const kube = new TestKube();
      const ns = await kube.createNamespace('chart-bad');
      try {
        const r = await helm([
          'install',
          RELEASE,
          CHART_DIR,
          '-n',
          ns,
          '-f',
          valuesFile(ns, baseValues(ns)),
          '--set',
          'wait.intervalMs=1000',
        ]);
        expect(r.code).not.toBe(0);
        expect(r.stderr).toMatch(/\/wait\/intervalMs': minimum: got 1,000, want 30,000/);
        const noValkey = await helm(['install', RELEASE, CHART_DIR, '-n', ns, '--set', 'crds.enabled=false']);
        expect(noValkey.code).not.toBe(0);
        expect(noValkey.stderr).toMatch(/valkey\.url is required \(or valkey\.existingSecret naming a Secret that holds it\)/);
        expect((await helm(['list', '-n', ns, '-q'])).stdout.trim()).toBe('');
        expect((await kube.core.listNamespacedConfigMap({ namespace: ns })).items.map((c) => c.metadata?.name)).not.toContain(
          'waitgate-profiles',
        );
      } finally {
        await kube.deleteNamespace(ns);
      }
    },
    Timeouts.testMs,
  );
});

// --- the CRD -----------------------------------------------------------------------------------

describe("the chart's CRDs", () => {
  test.each([
    ['heldjobs.waitgate.dev', 'waitgate.dev_heldjobs.yaml'],
    ['oncerecords.waitgate.dev', 'waitgate.dev_oncerecords.yaml'],
  ])(
    "%s is the generated CRD (crds/) under the chart's metadata, behind crds.enabled, kept on uninstall by crds.keep",
    async (name, file) => {
      const check = await runTool(join(ROOT, 'hack', 'chart-crd.sh'), ['--check']);
      expect(check.stderr).toBe('');
      expect(check.code).toBe(0);
      const source = parseAllDocuments(readFileSync(join(ROOT, 'crds', file), 'utf8'))[0]?.toJS() as Manifest;
      const crdOf = async (args: string[]) =>
        (await render('default', args)).find((m) => m.kind === 'CustomResourceDefinition' && m.metadata.name === name);
      const byDefault = await crdOf([]);
      expect(byDefault?.['spec']).toEqual(source['spec']);
      expect(byDefault?.metadata).toMatchObject({
        name,
        labels: { 'app.kubernetes.io/managed-by': 'Helm', 'app.kubernetes.io/part-of': 'waitgate' },
        annotations: { 'helm.sh/resource-policy': 'keep' },
      });
      expect((await crdOf(['--set', 'crds.keep=false']))?.metadata).not.toHaveProperty('annotations');
      expect(await crdOf(['--set', 'crds.enabled=false'])).toBeUndefined();
    },
    Timeouts.testMs,
  );
});

// --- what the chart renders ---------------------------------------------------------------------

describe('what the chart renders', () => {
  test.concurrent.each<[string, string[]]>([
    ['watching every namespace (a ClusterRole)', []],
    [
      'watching one namespace (Roles only), every option on',
      ['--set', 'watchNamespace=NS', '--set', 'receiver.github.webhookSecret=s', '--set', 'receiver.gitlab.webhookToken=t'],
    ],
    ['with one operator replica and no receiver', ['--set', 'operator.replicas=1', '--set', 'receiver.enabled=false']],
  ])(
    '`helm template` (the CRD with it) | `kubectl apply --dry-run=server` is accepted, %s',
    async (_what, args) => {
      const kube = new TestKube();
      const ns = await kube.createNamespace('chart-dry');
      try {
        const rendered = await mustRun('helm', [
          'template',
          RELEASE,
          CHART_DIR,
          '-n',
          ns,
          '-f',
          valuesFile(ns, baseValues(ns)),
          '--set',
          'crds.enabled=true',
          ...args.map((a) => a.replace('=NS', `=${ns}`)),
        ]);
        // The ServiceAccount admission plugin (on, as in every real cluster) refuses a Pod whose
        // ServiceAccount does not exist, and a dry run creates none: the helm test Pod's goes in first.
        const serviceAccounts = rendered.stdout
          .split(/^---$/m)
          .filter((doc) => /^kind: ServiceAccount$/m.test(doc))
          .join('\n---\n');
        expect((await kubectl(['apply', '-n', ns, '-f', '-'], { input: serviceAccounts })).code).toBe(0);
        const applied = await kubectl(['apply', '--dry-run=server', '-n', ns, '-f', '-'], { input: rendered.stdout });
        expect(applied.stderr).toBe('');
        expect(applied.code).toBe(0);
        expect(applied.stdout).toMatch(/deployment\.apps\/waitgate-operator created \(server dry run\)/);
        expect(applied.stdout).toMatch(/customresourcedefinition\.apiextensions\.k8s\.io\/heldjobs\.waitgate\.dev .*\(server dry run\)/);
      } finally {
        await kube.deleteNamespace(ns);
      }
    },
    Timeouts.testMs,
  );

  test.concurrent.each<[string, string[], string, RegExp]>([
    [
      'off by default: 0, and NOTES says there is no fleet-wide cap',
      [],
      '0',
      /^Jobs: {5}no fleet-wide cap on running Jobs \(concurrency 0\).*\n {2}1 per repository \(scopeLimit\)\. Check slots: 1\.$/m,
    ],
    [
      'a cap when set, and NOTES says so',
      ['--set', 'concurrency=4', '--set', 'scopeLimit=2'],
      '4',
      /^Jobs: {5}at most 4 running at once across the fleet \(concurrency\), 2 per repository \(scopeLimit\);\n {2}check slots: 1\.$/m,
    ],
    [
      'a cap at or under the check slots: NOTES says they are kept below it',
      ['--set', 'concurrency=4', '--set', 'wait.checkSlots=6'],
      '4',
      /^ {2}check slots: 3 \(wait\.checkSlots 6, kept below concurrency\)\.$/m,
    ],
  ])(
    'concurrency (the fleet-wide Job cap): %s',
    async (_n, args, variable, said) => {
      const op = find(await render('team-a', args), 'Deployment', 'waitgate-operator');
      expect(envOf(op)['WAITGATE_CONCURRENCY']).toBe(variable);
      expect(await installNotes('team-a', ['--set', 'valkey.url=redis://valkey:6379', ...args])).toMatch(said);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'every knob reaches the operator and the receiver as its variable',
    async () => {
      const values = {
        wait: {
          intervalMs: 45000,
          checkTimeoutMs: 7000,
          checkSlots: 3,
          maxMs: 3600000,
          afterMaxMs: 2592000000,
          maxChecks: 12,
          maxFaults: 2,
          killGraceMs: 500,
          podStartTimeoutMs: 300000,
        },
        finishedTtlMs: 86400000,
        concurrency: 9,
        scopeLimit: 2,
        workerName: 'cluster-eu-1',
        pauseWindows: [{ start: '22:00', end: '06:00', timeZone: 'Europe/Berlin', days: ['mon', 'fri'] }],
        watchNamespace: 'team-a',
        valkey: { existingSecret: 'shared-valkey', existingSecretKey: 'connection', prefix: 'fleet' },
        receiver: {
          existingSecret: 'forge-secrets',
          metricsPort: 9102,
          limits: { headersTimeoutMs: 5000, requestTimeoutMs: 9000, maxConnections: 64, maxInflightBodyBytes: 8388608 },
        },
        operator: { checkEnv: { allow: ['JIRA_URL', 'HTTPS_PROXY'] } },
        profiles: {
          jira: { script: '#!/bin/sh\nexit 3\n' },
          ci: {
            mode: 'pod',
            image: 'alpine:3.20',
            resources: { limits: { cpu: '100m' } },
            annotations: { 'sidecar.istio.io/inject': 'false' },
            script: '#!/bin/sh\nexit 0\n',
          },
        },
        triggers: [trigger({ name: 'deploy', waitFor: [{ profile: 'jira' }] })],
      };
      const ms = await render('team-a', ['-f', valuesFile('knobs', values)]);
      const op = find(ms, 'Deployment', 'waitgate-operator');
      expect(envOf(op)).toMatchObject({
        WAITGATE_WAIT_INTERVAL_MS: '45000',
        WAITGATE_WAIT_CHECK_TIMEOUT_MS: '7000',
        WAITGATE_WAIT_CHECK_SLOTS: '3',
        WAITGATE_WAIT_MAX_MS: '3600000',
        WAITGATE_WAIT_AFTER_MAX_MS: '2592000000',
        WAITGATE_WAIT_MAX_CHECKS: '12',
        WAITGATE_WAIT_MAX_FAULTS: '2',
        WAITGATE_CHECK_KILL_GRACE_MS: '500',
        WAITGATE_POD_START_TIMEOUT_MS: '300000',
        WAITGATE_FINISHED_TTL_MS: '86400000',
        WAITGATE_CONCURRENCY: '9',
        WAITGATE_SCOPE_LIMIT: '2',
        WAITGATE_WORKER_NAME: 'cluster-eu-1',
        WAITGATE_PAUSE_WINDOWS: JSON.stringify([{ days: ['mon', 'fri'], end: '06:00', start: '22:00', timeZone: 'Europe/Berlin' }]),
        WAITGATE_NAMESPACE: 'team-a',
        WAITGATE_WATCH_NAMESPACE: 'team-a',
        WAITGATE_VALKEY_PREFIX: 'fleet',
        WAITGATE_PROFILES_DIR: '/etc/waitgate/profiles',
        WAITGATE_LEADER_ELECTION: 'true',
        WAITGATE_LEADER_ELECTION_ID: 'waitgate-operator',
        WAITGATE_CHECK_ENV_ALLOW: 'JIRA_URL,HTTPS_PROXY',
        WAITGATE_CHECK_ENV_INHERIT: 'false',
      });
      // tini is PID 1 and reaps what killed checks leave: the command replaces the image's ENTRYPOINT.
      expect((podSpecOf(op).containers[0] as { command?: string[] }).command).toEqual([
        '/usr/bin/tini',
        '--',
        'node',
        'dist/operator/main.js',
      ]);
      const opEnv = podSpecOf(op).containers[0]?.env ?? [];
      expect(opEnv.find((e) => e.name === 'VALKEY_URL')).toEqual({
        name: 'VALKEY_URL',
        valueFrom: { secretKeyRef: { name: 'shared-valkey', key: 'connection' } },
      });
      // The profiles ConfigMap mounted read-only, every key executable and nobody's to write.
      expect(podSpecOf(op).volumes).toContainEqual({
        name: 'profiles',
        configMap: { name: 'waitgate-profiles', defaultMode: 0o555, optional: true },
      });
      expect(podSpecOf(op).containers[0]?.volumeMounts).toContainEqual({
        name: 'profiles',
        mountPath: '/etc/waitgate/profiles',
        readOnly: true,
      });

      const rc = find(ms, 'Deployment', 'waitgate-receiver');
      expect(envOf(rc)).toMatchObject({
        WAITGATE_NAMESPACE: 'team-a',
        WAITGATE_JOB_NAMESPACE: 'team-a',
        WAITGATE_WAIT_AFTER_MAX_MS: '2592000000',
        WAITGATE_VALKEY_PREFIX: 'fleet',
        WAITGATE_RECEIVER_METRICS_PORT: '9102',
        WAITGATE_RECEIVER_HEADERS_TIMEOUT_MS: '5000',
        WAITGATE_RECEIVER_REQUEST_TIMEOUT_MS: '9000',
        WAITGATE_RECEIVER_MAX_CONNECTIONS: '64',
        WAITGATE_RECEIVER_MAX_INFLIGHT_BODY_BYTES: '8388608',
        // As the fuzz run measures it.
        NODE_OPTIONS: RECEIVER_NODE_OPTIONS,
        ...RECEIVER_ALLOCATOR_ENV,
        // Triggers and profiles as files: the receiver has no right on ConfigMaps.
        WAITGATE_RECEIVER_TRIGGERS_DIR: '/etc/waitgate/triggers',
        WAITGATE_RECEIVER_PROFILES_DIR: '/etc/waitgate/profiles',
      });
      for (const name of ['triggers', 'profiles']) {
        expect(podSpecOf(rc).volumes).toContainEqual({ name, configMap: { name: `waitgate-${name}`, defaultMode: 0o444, optional: true } });
        expect(podSpecOf(rc).containers[0]?.volumeMounts).toContainEqual({ name, mountPath: `/etc/waitgate/${name}`, readOnly: true });
      }
      const rcEnv = podSpecOf(rc).containers[0]?.env ?? [];
      expect(rcEnv.find((e) => e.name === 'WAITGATE_GITHUB_WEBHOOK_SECRET')).toMatchObject({
        valueFrom: { secretKeyRef: { name: 'forge-secrets', key: 'github-webhook-secret' } },
      });
      // A rotation's further secrets come from their own optional keys.
      expect(rcEnv.find((e) => e.name === 'WAITGATE_GITHUB_WEBHOOK_SECRETS')).toMatchObject({
        valueFrom: { secretKeyRef: { name: 'forge-secrets', key: 'github-webhook-secrets', optional: true } },
      });
      expect(rcEnv.find((e) => e.name === 'WAITGATE_GITLAB_WEBHOOK_TOKENS')).toMatchObject({
        valueFrom: { secretKeyRef: { name: 'forge-secrets', key: 'gitlab-webhook-tokens', optional: true } },
      });
      // /metrics and /readyz on their own port, behind a Service of their own: the webhook
      // Service exposes the webhook port alone.
      const rcContainer = podSpecOf(rc).containers[0] as {
        ports?: { name: string; containerPort: number }[];
        readinessProbe?: { httpGet?: { path: string; port: string } };
        livenessProbe?: { httpGet?: { path: string; port: string } };
      };
      expect(rcContainer.ports).toEqual([
        expect.objectContaining({ name: 'http', containerPort: 8080 }),
        expect.objectContaining({ name: 'metrics', containerPort: 9102 }),
      ]);
      expect(rcContainer.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
      expect(rcContainer.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
      const servicePorts = (name: string) =>
        (
          (find(ms, 'Service', name) as unknown as { spec: { ports: { name: string; port: number; targetPort: string }[] } }).spec.ports ??
          []
        ).map((p) => `${p.name}:${String(p.port)}->${p.targetPort}`);
      expect(servicePorts('waitgate-receiver')).toEqual(['http:80->http']);
      expect(servicePorts('waitgate-receiver-metrics')).toEqual(['metrics:9102->metrics']);
      // Existing Secrets are used, never made; no ClusterRole for the operator or the receiver when
      // one namespace is watched (only the HeldJob roles aggregated to view and edit, and the helm
      // test Pod's reads of the CRD and SubjectAccessReviews, which are cluster-scoped).
      expect(ms.filter((m) => m.kind === 'Secret')).toHaveLength(0);
      expect(ms.filter((m) => m.kind === 'ClusterRoleBinding').map((m) => m.metadata.name)).toEqual(['team-a-waitgate-doctor']);
      expect(ms.filter((m) => m.kind === 'ClusterRole').map((m) => m.metadata.name)).toEqual([
        'team-a-waitgate-heldjobs-view',
        'team-a-waitgate-heldjobs-edit',
        'team-a-waitgate-doctor',
      ]);

      const profiles = find(ms, 'ConfigMap', 'waitgate-profiles') as unknown as { data: Record<string, string> };
      expect(JSON.parse(profiles.data['profiles.json'] as string)).toEqual({
        // Silent on mode: pod mode, in the operator's check image (exec is only ever chosen).
        jira: { mode: 'pod', script: 'jira.sh' },
        ci: {
          mode: 'pod',
          script: 'ci.sh',
          image: 'alpine:3.20',
          resources: { limits: { cpu: '100m' } },
          annotations: { 'sidecar.istio.io/inject': 'false' },
        },
      });
      expect(profiles.data['jira.sh']).toBe('#!/bin/sh\nexit 3\n');
      const triggers = find(ms, 'ConfigMap', 'waitgate-triggers') as unknown as { data: Record<string, string> };
      expect(JSON.parse(triggers.data['triggers.json'] as string)).toEqual(values.triggers);

      // One replica: no election; the image tag defaults to the chart's appVersion.
      const single = find(await render('team-a', ['--set', 'operator.replicas=1']), 'Deployment', 'waitgate-operator');
      expect(envOf(single)['WAITGATE_LEADER_ELECTION']).toBe('false');
      const appVersion = /^appVersion: "?([^"\n]+)"?$/m.exec(readFileSync(join(CHART_DIR, 'Chart.yaml'), 'utf8'))?.[1];
      expect((podSpecOf(single).containers[0] as { image?: string }).image).toBe(`ghcr.io/waitgate/waitgate:${appVersion}`);
      // The receiver can stay on its running tag while the operator moves first (docs/helm.md).
      const staged = await render('team-a', ['--set', 'image.tag=2.0.0', '--set', 'receiver.imageTag=1.9.0']);
      expect((podSpecOf(find(staged, 'Deployment', 'waitgate-operator')).containers[0] as { image?: string }).image).toBe(
        'ghcr.io/waitgate/waitgate:2.0.0',
      );
      expect((podSpecOf(find(staged, 'Deployment', 'waitgate-receiver')).containers[0] as { image?: string }).image).toBe(
        'ghcr.io/waitgate/waitgate:1.9.0',
      );

      // The optional ServiceMonitors, for the operator's and the receiver's /metrics.
      // Pinned by digest: the tag is ignored, for both Deployments.
      const digest = `sha256:${'ab'.repeat(32)}`;
      const pinned = await render('team-a', ['--set', `image.digest=${digest}`, '--set', 'image.tag=9.9.9']);
      for (const d of ['waitgate-operator', 'waitgate-receiver']) {
        expect((podSpecOf(find(pinned, 'Deployment', d)).containers[0] as { image?: string }).image).toBe(
          `ghcr.io/waitgate/waitgate@${digest}`,
        );
      }
      // Startup probes, extra volumes and spread constraints (a labelSelector filled in).
      const extras = await render('team-a', [
        '--set-json',
        'operator.extraVolumes=[{"name":"ca","configMap":{"name":"corp-ca"}}]',
        '--set-json',
        'operator.extraVolumeMounts=[{"name":"ca","mountPath":"/etc/corp-ca","readOnly":true}]',
        '--set-json',
        'receiver.topologySpreadConstraints=[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"ScheduleAnyway"}]',
      ]);
      const extraOp = podSpecOf(find(extras, 'Deployment', 'waitgate-operator')) as unknown as {
        volumes: { name: string }[];
        containers: { volumeMounts: { name: string; mountPath: string }[]; startupProbe?: object }[];
      };
      expect(extraOp.volumes.map((v) => v.name)).toContain('ca');
      expect(extraOp.containers[0]?.volumeMounts).toContainEqual(expect.objectContaining({ name: 'ca', mountPath: '/etc/corp-ca' }));
      expect(extraOp.containers[0]?.startupProbe).toMatchObject({ httpGet: { path: '/healthz', port: 'metrics' } });
      const extraRc = podSpecOf(find(extras, 'Deployment', 'waitgate-receiver')) as unknown as {
        topologySpreadConstraints: { labelSelector: { matchLabels: Record<string, string> } }[];
        containers: { startupProbe?: object }[];
      };
      expect(extraRc.topologySpreadConstraints[0]?.labelSelector.matchLabels).toMatchObject({ 'app.kubernetes.io/component': 'receiver' });
      expect(extraRc.containers[0]?.startupProbe).toMatchObject({ httpGet: { path: '/healthz', port: 'http' } });
      // The PrometheusRule: one alert per fault docs/metrics.md names.
      const rules = (await render('team-a', ['--set', 'prometheusRule.enabled=true'])).filter((m) => m.kind === 'PrometheusRule');
      const alerts =
        (rules[0] as unknown as { spec: { groups: { rules: { alert: string; expr: string }[] }[] } }).spec.groups[0]?.rules ?? [];
      expect(alerts.map((r) => r.alert)).toEqual([
        'WaitgateTriggersUnreadable',
        'WaitgateProfilesUnreadable',
        'WaitgateCapacityExceeded',
        'WaitgateRefusalRateHigh',
        'WaitgateNoLeader',
        'WaitgateScopeOvercommitted',
      ]);
      for (const r of alerts) expect(r.expr).toContain('namespace="team-a"');
      const monitors = (await render('team-a', ['--set', 'serviceMonitor.enabled=true'])).filter((m) => m.kind === 'ServiceMonitor');
      expect(monitors.map((m) => m.metadata.name).sort()).toEqual(['waitgate-operator', 'waitgate-receiver']);
      const endpoints = monitors.map((m) => (m as unknown as { spec: { endpoints: { port: string; path: string }[] } }).spec.endpoints);
      expect(endpoints).toEqual([
        [expect.objectContaining({ port: 'metrics', path: '/metrics' })],
        [expect.objectContaining({ port: 'metrics', path: '/metrics' })],
      ]);
      // A rotation's secrets, given as values, land in the chart's Secret one a line.
      const rotating = await render('team-a', ['--set', 'receiver.github.webhookSecrets={new,old}']);
      const secret = find(rotating, 'Secret', 'waitgate-receiver-webhooks') as unknown as { stringData: Record<string, string> };
      expect(secret.stringData['github-webhook-secrets']).toBe('new\nold');
    },
    Timeouts.testMs,
  );
});

// --- installed ----------------------------------------------------------------------------------

describe('helm install', () => {
  test.concurrent(
    'makes the Deployments, Services, RBAC, PDBs, ConfigMaps and Secrets; cluster-wide RBAC as rendered; helm uninstall takes them away',
    async () => {
      let clusterRole = '';
      let ns = '';
      await withChart(
        'chart-install',
        // Installed for every namespace, the heldjob-launchers policy would also refuse the
        // receivers of the other tests' releases running meanwhile (admission-policy.test.ts tests it).
        (n) => ({ ...baseValues(n), admissionPolicy: { enabled: false } }),
        async (c) => {
          ns = c.namespace;
          clusterRole = `${ns}-waitgate-operator`;
          const names = async (args: string[]) => {
            const r = await kubectl([...args, '-o', 'name']);
            if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
            return r.stdout.trim().split('\n').sort();
          };
          expect(await names(['get', 'deployments', '-n', ns])).toEqual([
            'deployment.apps/waitgate-operator',
            'deployment.apps/waitgate-receiver',
          ]);
          expect(await names(['get', 'services', '-n', ns])).toEqual([
            'service/waitgate-operator-metrics',
            'service/waitgate-receiver',
            'service/waitgate-receiver-metrics',
          ]);
          expect(await names(['get', 'serviceaccounts', '-n', ns, '-l', 'app.kubernetes.io/instance=waitgate'])).toEqual([
            'serviceaccount/waitgate-doctor',
            `serviceaccount/${OPERATOR_SA}`,
            `serviceaccount/${RECEIVER_SA}`,
          ]);
          expect(await names(['get', 'roles', '-n', ns])).toEqual([
            'role.rbac.authorization.k8s.io/waitgate-doctor',
            'role.rbac.authorization.k8s.io/waitgate-operator',
            'role.rbac.authorization.k8s.io/waitgate-receiver-heldjobs',
          ]);
          expect(await names(['get', 'rolebindings', '-n', ns])).toEqual([
            'rolebinding.rbac.authorization.k8s.io/waitgate-doctor',
            'rolebinding.rbac.authorization.k8s.io/waitgate-operator',
            'rolebinding.rbac.authorization.k8s.io/waitgate-receiver-heldjobs',
          ]);
          expect(await names(['get', 'clusterrole', clusterRole])).toEqual([`clusterrole.rbac.authorization.k8s.io/${clusterRole}`]);
          expect(await names(['get', 'clusterrolebinding', clusterRole])).toEqual([
            `clusterrolebinding.rbac.authorization.k8s.io/${clusterRole}`,
          ]);
          expect(await names(['get', 'poddisruptionbudgets', '-n', ns])).toEqual([
            'poddisruptionbudget.policy/waitgate-operator',
            'poddisruptionbudget.policy/waitgate-receiver',
          ]);
          expect(await names(['get', 'configmaps', '-n', ns, '-l', 'app.kubernetes.io/instance=waitgate'])).toEqual([
            'configmap/waitgate-profiles',
            'configmap/waitgate-triggers',
          ]);
          expect(await names(['get', 'secrets', '-n', ns, '-l', 'app.kubernetes.io/instance=waitgate'])).toEqual([
            'secret/waitgate-valkey',
          ]);

          const apps = c.kube.kc.makeApiClient(k8s.AppsV1Api);
          expect((await apps.readNamespacedDeployment({ name: 'waitgate-operator', namespace: ns })).spec?.replicas).toBe(2);
          expect((await apps.readNamespacedDeployment({ name: 'waitgate-receiver', namespace: ns })).spec?.replicas).toBe(2);

          // Cluster-wide, as rendered by default: HeldJobs and Jobs everywhere, Secrets nowhere,
          // ConfigMaps, Leases and Pods only at home.
          const op = await serviceAccountKubeconfig(c.kube, ns, OPERATOR_SA);
          expect(await canI(op, ['list', 'heldjobs.waitgate.dev', '--all-namespaces'])).toBe(true);
          expect(await canI(op, ['watch', 'jobs.batch', '--all-namespaces'])).toBe(true);
          expect(await canI(op, ['create', 'jobs.batch', '-n', 'default'])).toBe(true);
          expect(await canI(op, ['update', 'heldjobs.waitgate.dev', '--subresource=status', '-n', 'default'])).toBe(true);
          expect(await canI(op, ['get', 'secrets', '--all-namespaces'])).toBe(false);
          expect(await canI(op, ['list', 'configmaps', '-n', 'default'])).toBe(false);
          expect(await canI(op, ['create', 'pods', '-n', 'default'])).toBe(false);
          expect(await canI(op, ['update', 'leases.coordination.k8s.io', '-n', 'default'])).toBe(false);
        },
      );
      expect((await kubectl(['get', 'clusterrole', clusterRole])).stderr).toMatch(/NotFound/);
      expect((await kubectl(['get', 'clusterrolebinding', clusterRole])).stderr).toMatch(/NotFound/);
      // The helm test Pod's RBAC is the release's own too: gone with it.
      expect((await kubectl(['get', 'clusterrole', `${ns}-waitgate-doctor`])).stderr).toMatch(/NotFound/);
      expect((await kubectl(['get', 'clusterrolebinding', `${ns}-waitgate-doctor`])).stderr).toMatch(/NotFound/);
    },
    Timeouts.testMs,
  );
});

// --- the chart's RBAC is enough, and no more --------------------------------------------------

interface ChartRun extends ChartInstall {
  /** The operator process, authenticated as the chart's operator ServiceAccount. */
  readonly operator: ServiceProcess;
  /** The kubeconfig of that ServiceAccount. */
  readonly operatorKubeconfig: string;
}

/** The env a pod of the Deployment would get, for a process outside a pod. */
async function chartEnv(c: ChartInstall, deployment: string, kubeconfig: string): Promise<Record<string, string>> {
  return {
    ...(await deploymentEnv(c.kube, c.namespace, deployment)),
    KUBECONFIG: kubeconfig,
    // The kubelet fills this from the chart's Secret in a pod; neither ServiceAccount may read it.
    VALKEY_URL: requireEnv('VALKEY_URL'),
    WAITGATE_LOG_LEVEL: 'debug',
  };
}

/**
 * helm install into a fresh namespace N, watching N only (so the test's operator sees nothing
 * of other tests), then the real operator with the env the chart rendered for its Deployment,
 * authenticated with a TokenRequest token of the chart's operator ServiceAccount.
 */
function withChartOperator(label: string, values: Record<string, unknown>, body: (r: ChartRun) => Promise<void>): Promise<void> {
  return withChart(
    label,
    (ns) => ({ ...baseValues(ns), watchNamespace: ns, ...values }),
    async (c) => {
      const operatorKubeconfig = await serviceAccountKubeconfig(c.kube, c.namespace, OPERATOR_SA);
      const env = await chartEnv(c, 'waitgate-operator', operatorKubeconfig);
      expect(env['WAITGATE_WATCH_NAMESPACE']).toBe(c.namespace);
      const operator = operatorProcess(
        {
          ...env,
          // Outside a pod: no mounted ConfigMap (the operator writes the scripts from it itself),
          // and the metrics port must not collide with other tests'.
          WAITGATE_PROFILES_DIR: '',
          WAITGATE_METRICS_HOST: '127.0.0.1',
          WAITGATE_METRICS_PORT: '0',
        },
        `${c.namespace}-operator-as-sa`,
      );
      try {
        await operator.start();
        await body({ ...c, operator, operatorKubeconfig });
        // Nothing it tried was refused by RBAC (some refusals only warn, e.g. an Event).
        expect(operator.logText()).not.toMatch(/forbidden/i);
      } catch (err) {
        throw new Error(`${(err as Error).message}\n(operator log: ${operator.logPath})`, { cause: err });
      } finally {
        await operator.stop();
      }
    },
  );
}

const ends = (r: ChartInstall, name: string, phase: string, timeoutMs: number = Timeouts.jobMs) =>
  eventually(
    `${r.namespace}/${name} to reach ${phase}`,
    async () => {
      const hj = await r.kube.getHeldJob(r.namespace, name);
      return hj?.status?.phase === phase ? hj : undefined;
    },
    timeoutMs,
  );

// Exec mode, chosen: the operator runs here as a host process, so its check runs as one too.
const chartProfiles = { profiles: { [PROFILE]: { mode: 'exec', script: fixtureScript('exit-0.sh') } } };
const chartTriggers = { triggers: [trigger({ name: 'deploy', waitFor: [{ profile: PROFILE }] })] };

describe("the operator, run as the chart's ServiceAccount, does its whole job", () => {
  test.concurrent(
    'an `after` 2 s ahead: held, then its Job is created, owned by the HeldJob, and ends Succeeded with its Events',
    () =>
      withChartOperator('chart-op-after', { ...chartProfiles, ...chartTriggers }, async (r) => {
        const { after, atMs } = afterIn(2000);
        await r.kube.createHeldJob(r.namespace, heldJob({ name: NAME, waitFor: [{ after }], exitCode: 0 }));
        // Held (heldSince stays once set, so a busy machine polling late still sees it).
        await eventually('the HeldJob to be held', async () =>
          (await r.kube.getHeldJob(r.namespace, NAME))?.status?.heldSince ? true : undefined,
        );
        const hj = await ends(r, NAME, Phase.Succeeded);

        const jobs = await r.kube.listJobs(r.namespace);
        expect(jobs).toHaveLength(1);
        // Not before the instant (read from the Job itself, so a slow poll cannot blur it).
        expect(new Date(jobs[0]?.metadata?.creationTimestamp as Date).getTime()).toBeGreaterThanOrEqual(atMs);
        expect(jobs[0]?.metadata?.ownerReferences).toEqual([
          expect.objectContaining({ kind: 'HeldJob', name: NAME, uid: hj.metadata.uid, controller: true, blockOwnerDeletion: true }),
        ]);
        // Finished: the operator takes its finalizer off again (a metadata patch).
        await eventually('the finalizer to be removed', async () => {
          const now = await r.kube.getHeldJob(r.namespace, NAME);
          return (now?.metadata.finalizers ?? []).length === 0 ? true : undefined;
        });
        // Events go out just after the status they tell of.
        await eventually('the Launched and Succeeded Events', async () => {
          const reasons = (await r.kube.eventsFor(r.namespace, NAME)).map((e) => e.reason);
          return reasons.includes('Launched') && reasons.includes('Succeeded') ? true : undefined;
        });
        // The triggers ConfigMap the chart rendered was read and compared.
        expect(hj.status?.conditions).toContainEqual(
          expect.objectContaining({ type: 'TriggerChecked', status: 'True', reason: 'Matches' }),
        );
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    "a profile from the chart's values (a script that exits 0): checked, then Succeeded",
    () =>
      withChartOperator('chart-op-profile', { ...chartProfiles, ...chartTriggers }, async (r) => {
        await r.kube.createHeldJob(r.namespace, heldJob({ name: NAME, waitFor: [{ profile: PROFILE }], exitCode: 0 }));
        const hj = await ends(r, NAME, Phase.Succeeded);
        expect(hj.status).toMatchObject({ checks: 1, lastExitCode: 0 });
        await eventually('one Event for the one check', async () =>
          (await r.kube.eventsFor(r.namespace, NAME)).filter((e) => (e.reason ?? '').startsWith('Check')).length === 1 ? true : undefined,
        );
        await r.operator.logged((l) => l['msg'] === 'Checked profile' && l['profile'] === PROFILE && l['exitCode'] === 0);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    "a pod-mode profile from the chart's values: a check Pod in the release namespace answers 0, is deleted, and the Job runs",
    () =>
      withChartOperator(
        'chart-op-pod',
        {
          // kwok ends the check Pod with the exit code in this annotation, which the profile passes on.
          profiles: {
            [PROFILE]: {
              mode: 'pod',
              image: 'busybox:1.36',
              annotations: { 'waitgate.dev/exit-code': '0' },
              script: fixtureScript('exit-0.sh'),
            },
          },
          ...chartTriggers,
        },
        async (r) => {
          await r.kube.createHeldJob(r.namespace, heldJob({ name: NAME, waitFor: [{ profile: PROFILE }], exitCode: 0 }));
          const hj = await ends(r, NAME, Phase.Succeeded);
          expect(hj.status).toMatchObject({ checks: 1, lastExitCode: 0 });
          await eventually('the check Pod to be deleted', async () =>
            (await r.kube.core.listNamespacedPod({ namespace: r.namespace, labelSelector: 'waitgate.dev/check=true' })).items.length === 0
              ? true
              : undefined,
          );
        },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    '`kubectl delete` of a running HeldJob: the garbage collector deletes its Job and the operator says operator-cancel',
    () =>
      withChartOperator('chart-op-cancel', chartTriggers, async (r) => {
        const { after } = afterIn(1000);
        await r.kube.createHeldJob(r.namespace, heldJob({ name: NAME, waitFor: [{ after }], exitCode: 'never' }));
        await ends(r, NAME, Phase.Running);
        const jobName = (await r.kube.getHeldJob(r.namespace, NAME))?.status?.jobName as string;
        await eventually(
          "the Job's Pod to run",
          async () => ((await r.kube.listPods(r.namespace)).some((p) => p.status?.phase === 'Running') ? true : undefined),
          Timeouts.jobMs,
        );
        expect((await kubectl(['delete', 'heldjob', NAME, '-n', r.namespace, '--wait=false'])).code).toBe(0);
        await eventually(
          'the Job to be deleted',
          async () => ((await r.kube.jobExists(r.namespace, jobName)) ? undefined : true),
          Timeouts.gcMs,
        );
        await eventually('the HeldJob to be gone', async () => ((await r.kube.getHeldJob(r.namespace, NAME)) ? undefined : true));
        const cancel = await eventually('the OperatorCancel Event', async () =>
          (await r.kube.eventsFor(r.namespace, NAME)).find((e) => e.reason === 'OperatorCancel'),
        );
        expect(cancel.message).toMatch(/operator-cancel/);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    "two replicas with the chart's leader election: one leads, and after a SIGKILL the other leads once the Lease lapses",
    () =>
      withChartOperator('chart-op-leader', chartTriggers, async (r) => {
        // The first replica (withChartOperator's) leads; the chart renders election on for 2 replicas.
        await r.operator.logged('Became leader');
        const env = await chartEnv(r, 'waitgate-operator', r.operatorKubeconfig);
        expect(env['WAITGATE_LEADER_ELECTION']).toBe('true');
        const follower = operatorProcess(
          { ...env, WAITGATE_PROFILES_DIR: '', WAITGATE_METRICS_HOST: '127.0.0.1', WAITGATE_METRICS_PORT: '0' },
          `${r.namespace}-operator-as-sa-2`,
        );
        try {
          await follower.startAndWaitFor('Waiting to lead');
          await r.operator.kill('SIGKILL');
          const killedAt = Date.now();
          await follower.logged('Became leader', 30_000);
          // A 15 s lease, seen at most a 2 s retry late, taken at the first look after it.
          expect(Date.now() - killedAt).toBeLessThan(22_000);
          const { after } = afterIn(1000);
          await r.kube.createHeldJob(r.namespace, heldJob({ name: NAME, waitFor: [{ after }], exitCode: 0 }));
          await ends(r, NAME, Phase.Succeeded);
          expect(await follower.loggedTimes('Created Job', 1)).toHaveLength(1);
          expect(follower.logText()).not.toMatch(/forbidden/i);
        } catch (err) {
          throw new Error(`${(err as Error).message}\n(follower log: ${follower.logPath})`, { cause: err });
        } finally {
          await follower.stop();
        }
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'and no more: no Secrets anywhere, nothing outside its namespaces, only its own Lease',
    () =>
      withChartOperator('chart-op-deny', {}, async (r) => {
        const kc = r.operatorKubeconfig;
        for (const ns of ['kube-system', r.namespace]) {
          const got = await kubectl(['get', 'secrets', '-n', ns], { kubeconfig: kc });
          expect(got.code).not.toBe(0);
          expect(got.stderr).toMatch(
            new RegExp(
              `Forbidden.*system:serviceaccount:${r.namespace}:${OPERATOR_SA}.*cannot list resource "secrets".*in the namespace "${ns}"`,
            ),
          );
        }
        const n = ['-n', r.namespace];
        // Exactly doctor's table (cli/doctor/rbac.ts), which the chart's rendered RBAC is unit-tested against.
        const allowed: string[][] = operatorPermissions({
          namespace: r.namespace,
          watchNamespace: r.namespace,
          leaseName: 'waitgate-operator',
        }).map(canIArgs);
        const denied: string[][] = [
          ['get', 'secrets', ...n],
          ['list', 'secrets', '--all-namespaces'],
          ['update', 'heldjobs.waitgate.dev', ...n],
          // It deletes finished HeldJobs past their time to live, only where it watches.
          ['delete', 'heldjobs.waitgate.dev', '-n', 'default'],
          ['create', 'heldjobs.waitgate.dev', ...n],
          ['update', 'jobs.batch', ...n],
          ['list', 'heldjobs.waitgate.dev', '-n', 'default'],
          ['create', 'jobs.batch', '-n', 'default'],
          ['list', 'configmaps', '-n', 'kube-system'],
          ['update', 'configmaps', ...n],
          ['update', 'leases.coordination.k8s.io/someone-else', ...n],
          ['create', 'pods', '-n', 'default'],
          ['create', 'pods', '--subresource=exec', ...n],
          ['create', 'serviceaccounts', '--subresource=token', ...n],
          ['create', 'roles.rbac.authorization.k8s.io', ...n],
        ];
        const answers = await Promise.all([...allowed, ...denied].map(async (a) => [a.join(' '), await canI(kc, a)] as const));
        expect(Object.fromEntries(answers)).toEqual(
          Object.fromEntries([...allowed.map((a) => [a.join(' '), true]), ...denied.map((a) => [a.join(' '), false])]),
        );
      }),
    Timeouts.testMs,
  );
});

describe("the receiver, run as the chart's ServiceAccount", () => {
  test.concurrent(
    'creates HeldJobs in the job namespace and marks a refusal record; the operator launches the hold; no Secrets',
    () =>
      withChartOperator(
        'chart-rc',
        {
          ...chartProfiles,
          triggers: [
            trigger({ name: 'deploy', labels: ['waitgate:deploy'], waitFor: [{ profile: PROFILE }] }),
            trigger({ name: 'deploy-undeclared', labels: ['waitgate:deploy'], waitFor: [{ profile: 'undeclared' }] }),
            // Its record is an OnceRecord the receiver creates, reads and patches in the job namespace.
            trigger({ name: 'deploy-once', labels: ['waitgate:deploy'], once: true }),
          ],
          receiver: { github: { webhookSecret: GITHUB_SECRET } },
        },
        async (r) => {
          const kc = await serviceAccountKubeconfig(r.kube, r.namespace, RECEIVER_SA);
          const env = await chartEnv(r, 'waitgate-receiver', kc);
          expect(env['WAITGATE_JOB_NAMESPACE']).toBe(r.namespace);
          // In a pod the kubelet mounts the triggers and profiles there; here, a folder of ours
          // in its layout. The ServiceAccount may not read them.
          expect(env['WAITGATE_RECEIVER_TRIGGERS_DIR']).toBe('/etc/waitgate/triggers');
          expect(env['WAITGATE_RECEIVER_PROFILES_DIR']).toBe('/etc/waitgate/profiles');
          const receiver = receiverProcess(
            // The kubelet would fill the webhook secret from the chart's Secret.
            {
              ...env,
              ...(await mountedConfigMaps(r.kube, r.namespace)),
              WAITGATE_GITHUB_WEBHOOK_SECRET: GITHUB_SECRET,
              WAITGATE_RECEIVER_HOST: '127.0.0.1',
              WAITGATE_RECEIVER_PORT: '0',
              WAITGATE_RECEIVER_METRICS_HOST: '127.0.0.1',
              WAITGATE_RECEIVER_METRICS_PORT: '0',
            },
            `${r.namespace}-receiver-as-sa`,
          );
          try {
            const ready = await receiver.start();
            const { url, metricsUrl } = receiverUrls(ready);
            await eventually('the receiver to be ready', async () =>
              (await fetch(`${metricsUrl}/readyz`)).status === 200 ? true : undefined,
            );
            const res = await post(url, githubLabeled({ label: 'waitgate:deploy' }));
            expect(res.status).toBe(202);
            const results = res.json['results'] as { trigger: string; outcome: string; heldJob: string; token?: string }[];
            expect(results).toEqual(
              expect.arrayContaining([
                expect.objectContaining({ trigger: 'deploy', outcome: 'held' }),
                expect.objectContaining({ trigger: 'deploy-undeclared', outcome: 'refused', token: RefusalToken.ProfileUnknown }),
                expect.objectContaining({ trigger: 'deploy-once', outcome: 'held' }),
              ]),
            );
            const again = await post(url, githubLabeled({ label: 'waitgate:deploy' }));
            expect(again.json['results']).toEqual(
              expect.arrayContaining([expect.objectContaining({ trigger: 'deploy-once', outcome: 'once-spent' })]),
            );
            const held = results.find((x) => x.trigger === 'deploy')?.heldJob as string;
            const refused = results.find((x) => x.outcome === 'refused')?.heldJob as string;
            // The refusal record's status was written by the receiver (patch heldjobs/status).
            expect((await r.kube.getHeldJob(r.namespace, refused))?.status).toMatchObject({
              phase: Phase.Refused,
              reason: RefusalToken.ProfileUnknown,
            });
            await ends(r, held, Phase.Succeeded);
            expect(receiver.logText()).not.toMatch(/forbidden/i);

            for (const ns of ['kube-system', r.namespace]) {
              const got = await kubectl(['get', 'secrets', '-n', ns], { kubeconfig: kc });
              expect(got.code).not.toBe(0);
              expect(got.stderr).toMatch(
                new RegExp(`Forbidden.*system:serviceaccount:${r.namespace}:${RECEIVER_SA}.*cannot list resource "secrets"`),
              );
            }
            const n = ['-n', r.namespace];
            const allowed = [
              ['create', 'heldjobs.waitgate.dev', ...n],
              ['get', 'heldjobs.waitgate.dev', ...n],
              // The count on a refusal record, in its annotations.
              ['patch', 'heldjobs.waitgate.dev', ...n],
              ['list', 'heldjobs.waitgate.dev', ...n],
              ['patch', 'heldjobs.waitgate.dev', '--subresource=status', ...n],
              ['create', 'oncerecords.waitgate.dev', ...n],
              ['get', 'oncerecords.waitgate.dev', ...n],
              ['patch', 'oncerecords.waitgate.dev', ...n],
              // An expired record, removed (uid first) before it is claimed anew.
              ['delete', 'oncerecords.waitgate.dev', ...n],
            ];
            const denied = [
              ['get', 'secrets', ...n],
              ['delete', 'heldjobs.waitgate.dev', ...n],
              ['update', 'heldjobs.waitgate.dev', ...n],
              ['watch', 'heldjobs.waitgate.dev', ...n],
              ['patch', 'heldjobs.waitgate.dev', '-n', 'default'],
              ['update', 'heldjobs.waitgate.dev', '--subresource=status', ...n],
              ['create', 'heldjobs.waitgate.dev', '-n', 'default'],
              ['create', 'jobs.batch', ...n],
              ['create', 'pods', ...n],
              // No ConfigMap at all (test/e2e/chart-receiver-rbac.test.ts asks every verb).
              ['list', 'configmaps', ...n],
              ['watch', 'configmaps', ...n],
              ['create', 'configmaps', ...n],
              ['get', 'configmaps', ...n],
              ['patch', 'configmaps', ...n],
              ['update', 'configmaps', ...n],
              ['delete', 'configmaps', ...n],
              ['create', 'configmaps', '-n', 'default'],
              ['list', 'oncerecords.waitgate.dev', ...n],
              ['create', 'oncerecords.waitgate.dev', '-n', 'default'],
            ];
            const answers = await Promise.all([...allowed, ...denied].map(async (a) => [a.join(' '), await canI(kc, a)] as const));
            expect(Object.fromEntries(answers)).toEqual(
              Object.fromEntries([...allowed.map((a) => [a.join(' '), true]), ...denied.map((a) => [a.join(' '), false])]),
            );
          } catch (err) {
            throw new Error(`${(err as Error).message}\n(receiver log: ${receiver.logPath})`, { cause: err });
          } finally {
            await receiver.stop();
          }
        },
      ),
    Timeouts.testMs,
  );
});
