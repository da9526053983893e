// The chart's `helm test` hook (templates/tests/doctor.yaml): a Pod of the operator's image that
// runs `waitgate doctor` against the operator's own settings, as a ServiceAccount that may read
// only what doctor reads. What it renders is checked with `helm template`; then, since kwok's fake
// nodes run no container (so `helm test` itself cannot execute here), the Pod's exact command,
// with the environment the kubelet would give it, runs as a process authenticated as the Pod's
// own ServiceAccount (a TokenRequest token) against an installed release.
import { describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { spawn } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import {
  baseValues,
  canI,
  CHART_DIR,
  helm,
  kubectl,
  mustRun,
  OPERATOR_SA,
  RELEASE,
  runTool,
  serviceAccountKubeconfig,
  withChart,
  type ChartInstall,
} from '../support/chart.js';
import { kubeconfigPath, ROOT } from '../support/env.js';
import { fixtureScript } from '../support/profiles.js';
import { trigger } from '../support/receiver-scenario.js';
import { Timeouts } from '../support/timeouts.js';

const DOCTOR = `${RELEASE}-doctor`;
const PROFILE = 'hook-go';
/**
 * The tests' base values, with the admission policies off: bound to every namespace (no
 * watchNamespace here), they would refuse HeldJobs of other tests' releases running meanwhile
 * (test/e2e/admission-policy.test.ts tests them).
 */
const hookValues = (ns: string): Record<string, unknown> => ({ ...baseValues(ns), admissionPolicy: { enabled: false } });
/** An exec-mode profile and a trigger naming it: doctor then reads the operator's Deployment and ServiceAccount too. */
const execProfile = {
  profiles: { [PROFILE]: { mode: 'exec', script: fixtureScript('exit-0.sh') } },
  triggers: [trigger({ name: 'deploy', waitFor: [{ profile: PROFILE }] })],
};

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  securityContext?: Record<string, unknown>;
}
interface PodSpec {
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  restartPolicy?: string;
  securityContext?: Record<string, unknown>;
  containers: Container[];
}
interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec?: { template?: { spec: PodSpec } } & Partial<PodSpec>;
  rules?: { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }[];
  automountServiceAccountToken?: boolean;
  [k: string]: unknown;
}

function parse(yaml: string): Manifest[] {
  return parseAllDocuments(yaml)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

async function render(ns: string, sets: readonly string[] = []): Promise<Manifest[]> {
  const r = await mustRun('helm', [
    'template',
    RELEASE,
    CHART_DIR,
    '-n',
    ns,
    '--set',
    'valkey.url=redis://valkey:6379',
    ...sets.flatMap((s) => ['--set', s]),
  ]);
  return parse(r.stdout);
}

function find(ms: readonly Manifest[], kind: string, name: string): Manifest {
  const m = ms.find((x) => x.kind === kind && x.metadata.name === name);
  if (!m) throw new Error(`no ${kind} ${name} among ${ms.map((x) => `${x.kind}/${x.metadata.name}`).join(', ')}`);
  return m;
}

function testPod(ms: readonly Manifest[]): { pod: Manifest; spec: PodSpec; container: Container } {
  const pod = find(ms, 'Pod', DOCTOR);
  const spec = pod.spec as PodSpec;
  const container = spec.containers[0];
  if (!container) throw new Error('the test Pod has no container');
  return { pod, spec, container };
}

function operatorContainer(ms: readonly Manifest[]): { spec: PodSpec; container: Container } {
  const spec = find(ms, 'Deployment', `${RELEASE}-operator`).spec?.template?.spec;
  const container = spec?.containers.find((c) => c.name === 'operator');
  if (!spec || !container) throw new Error('the operator Deployment has no operator container');
  return { spec, container };
}

const envVar = (c: Container, name: string): EnvVar | undefined => c.env?.find((e) => e.name === name);

/** What doctor reads (cli/commands/doctor.ts, cli/installed-settings.ts), and nothing else. */
const DOCTOR_ROLE_RULES = [
  { apiGroups: ['apps'], resources: ['deployments'], verbs: ['list'] },
  { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['list'] },
  { apiGroups: [''], resources: ['configmaps'], resourceNames: ['waitgate-profiles', 'waitgate-triggers'], verbs: ['get'] },
  { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['list'] },
];
const DOCTOR_CLUSTER_RULES = [
  {
    apiGroups: ['apiextensions.k8s.io'],
    resources: ['customresourcedefinitions'],
    resourceNames: ['heldjobs.waitgate.dev', 'oncerecords.waitgate.dev'],
    verbs: ['get'],
  },
  { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
  { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles', 'clusterrolebindings'], verbs: ['list'] },
  {
    apiGroups: ['admissionregistration.k8s.io'],
    resources: ['validatingadmissionpolicies', 'validatingadmissionpolicybindings'],
    verbs: ['list'],
  },
];

describe('the helm test hook, as the chart renders it', () => {
  test.concurrent(
    "a test hook Pod running `waitgate doctor` from the operator's image, on the operator's settings, hardened like it",
    async () => {
      const ns = 'hook-render';
      const ms = await render(ns);
      const { pod, spec, container } = testPod(ms);
      const operator = operatorContainer(ms);

      expect(pod.metadata.annotations?.['helm.sh/hook']).toBe('test');
      expect(pod.metadata.annotations?.['helm.sh/hook-delete-policy']).toBe('before-hook-creation,hook-succeeded');
      expect(spec.restartPolicy).toBe('Never');

      // The operator's image and the CLI's doctor, pointed at this release's operator.
      expect(container.image).toBe(operator.container.image);
      expect([...(container.command ?? []), ...(container.args ?? [])]).toEqual([
        'node',
        'bin/waitgate.js',
        'doctor',
        '--waitgate-namespace',
        ns,
        '--as',
        `system:serviceaccount:${ns}:${OPERATOR_SA}`,
      ]);
      // The settings come from the operator's Deployment; the Valkey URL, which doctor may not
      // read there, from the very Secret key the operator's comes from.
      expect(envVar(container, 'VALKEY_URL')?.valueFrom).toEqual(envVar(operator.container, 'VALKEY_URL')?.valueFrom);
      expect(container.env?.map((e) => e.name)).toEqual(['VALKEY_URL']);

      // Hardened exactly like the operator's pod and container.
      expect(spec.securityContext).toEqual(operator.spec.securityContext);
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true });
      expect(container.securityContext).toEqual(operator.container.securityContext);
      expect(container.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });

      // Its own ServiceAccount (no token unless a Pod asks), with only what doctor reads.
      expect(spec.serviceAccountName).toBe(DOCTOR);
      expect(spec.automountServiceAccountToken).toBe(true);
      expect(find(ms, 'ServiceAccount', DOCTOR).automountServiceAccountToken).toBe(false);
      expect(find(ms, 'Role', DOCTOR).rules).toEqual(DOCTOR_ROLE_RULES);
      expect(find(ms, 'ClusterRole', `${ns}-${DOCTOR}`).rules).toEqual(DOCTOR_CLUSTER_RULES);
      expect(find(ms, 'RoleBinding', DOCTOR)).toMatchObject({
        roleRef: { kind: 'Role', name: DOCTOR },
        subjects: [{ kind: 'ServiceAccount', name: DOCTOR, namespace: ns }],
      });
      expect(find(ms, 'ClusterRoleBinding', `${ns}-${DOCTOR}`)).toMatchObject({
        roleRef: { kind: 'ClusterRole', name: `${ns}-${DOCTOR}` },
        subjects: [{ kind: 'ServiceAccount', name: DOCTOR, namespace: ns }],
      });
      // The RBAC is the release's own (removed by `helm uninstall`); only the Pod is a hook.
      for (const m of ms.filter((x) => x.metadata.name.endsWith(DOCTOR) && x.kind !== 'Pod')) {
        expect(m.metadata.annotations?.['helm.sh/hook']).toBeUndefined();
      }
    },
    Timeouts.testMs,
  );

  test.concurrent.each([
    ['image.digest', ['image.digest=sha256:' + 'a'.repeat(64)]],
    ['image.tag', ['image.tag=9.9.9']],
    ['valkey.existingSecret', ['valkey.existingSecret=shared-valkey', 'valkey.existingSecretKey=uri']],
  ])(
    'follows the operator with %s',
    async (_what, sets) => {
      const ms = await render('hook-follow', sets);
      const { container } = testPod(ms);
      const operator = operatorContainer(ms);
      expect(container.image).toBe(operator.container.image);
      expect(envVar(container, 'VALKEY_URL')?.valueFrom).toEqual(envVar(operator.container, 'VALKEY_URL')?.valueFrom);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    "with Valkey's CA (valkey.tls.caSecret): the same file at the same path as the operator, which doctor's PING trusts",
    async () => {
      const ms = await render('hook-ca', ['valkey.url=rediss://valkey:6380', 'valkey.tls.caSecret=valkey-ca']);
      const { spec, container } = testPod(ms);
      const operator = operatorContainer(ms);
      const ca = envVar(container, 'WAITGATE_VALKEY_CA_FILE');
      expect(ca?.value).toBe('/etc/waitgate/valkey-ca/ca.crt');
      expect(ca).toEqual(envVar(operator.container, 'WAITGATE_VALKEY_CA_FILE'));
      const mount = (c: Container) => (c as { volumeMounts?: { name: string }[] }).volumeMounts?.find((m) => m.name === 'valkey-ca');
      const volume = (p: PodSpec) => (p as { volumes?: { name: string }[] }).volumes?.find((v) => v.name === 'valkey-ca');
      expect(mount(container)).toEqual(mount(operator.container));
      expect(volume(spec)).toEqual(volume(operator.spec));
      expect(volume(spec)).toMatchObject({ secret: { secretName: 'valkey-ca' } });
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'tests.enabled=false renders no test Pod, ServiceAccount or RBAC',
    async () => {
      const ms = await render('hook-off', ['tests.enabled=false']);
      expect(ms.filter((m) => m.metadata.name.endsWith(DOCTOR)).map((m) => m.kind)).toEqual([]);
      expect(ms.some((m) => m.metadata.annotations?.['helm.sh/hook'] !== undefined)).toBe(false);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'the Valkey NetworkPolicy lets the test Pod in, as it does the operator',
    async () => {
      const on = await render('hook-np', ['networkPolicy.valkey.podLabels.app=valkey']);
      const peers = (m: Manifest) =>
        (m.spec as unknown as { ingress: { from: { podSelector?: { matchLabels: Record<string, string> } }[] }[] }).ingress[0]?.from.map(
          (p) => p.podSelector?.matchLabels['app.kubernetes.io/component'],
        );
      expect(peers(find(on, 'NetworkPolicy', `${RELEASE}-valkey`))).toEqual(['operator', 'receiver', 'doctor']);
      const off = await render('hook-np', ['networkPolicy.valkey.podLabels.app=valkey', 'tests.enabled=false']);
      expect(peers(find(off, 'NetworkPolicy', `${RELEASE}-valkey`))).toEqual(['operator', 'receiver']);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'the schema bounds tests.activeDeadlineSeconds',
    async () => {
      const r = await runTool('helm', ['lint', CHART_DIR, '--set', 'valkey.url=redis://v:6379', '--set', 'tests.activeDeadlineSeconds=5']);
      expect(r.code).not.toBe(0);
      expect(r.stderr + r.stdout).toMatch(/tests\/activeDeadlineSeconds.*minimum/);
    },
    Timeouts.testMs,
  );
});

// --- the hook's command, run as its ServiceAccount against an installed release ------------------

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The test Pod of the installed release (`helm get hooks`), run as a process: its command and
 * args from ROOT (the image's WORKDIR holds the same bin/ and dist/), the environment the kubelet
 * would give it (Secret keys read here as the admin), and the in-cluster credentials replaced by
 * a kubeconfig with a token of the Pod's ServiceAccount.
 */
async function runHook(c: ChartInstall): Promise<Run> {
  const hooks = parse((await mustRun('helm', ['get', 'hooks', RELEASE, '-n', c.namespace, '--kubeconfig', kubeconfigPath()])).stdout);
  const { spec, container } = testPod(hooks);
  const core = c.kube.kc.makeApiClient(k8s.CoreV1Api);
  const env: Record<string, string> = {};
  for (const e of container.env ?? []) {
    const ref = e.valueFrom?.secretKeyRef;
    if (ref) {
      const data = (await core.readNamespacedSecret({ name: ref.name, namespace: c.namespace })).data?.[ref.key];
      if (data === undefined) throw new Error(`Secret ${ref.name} has no key ${ref.key}`);
      env[e.name] = Buffer.from(data, 'base64').toString('utf8');
    } else env[e.name] = e.value ?? '';
  }
  const kubeconfig = await serviceAccountKubeconfig(c.kube, c.namespace, spec.serviceAccountName ?? 'default');
  const [cmd, ...args] = [...(container.command ?? []), ...(container.args ?? [])];
  if (cmd !== 'node') throw new Error(`the test Pod runs ${String(cmd)}, not node`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', ...env, KUBECONFIG: kubeconfig },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), Timeouts.startMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Every node is a kwok fake node (its kubelet version says so): Pods are reported, never run. */
async function onlyKwokNodes(c: ChartInstall): Promise<boolean> {
  const nodes = (await c.kube.kc.makeApiClient(k8s.CoreV1Api).listNode()).items;
  return nodes.length > 0 && nodes.every((n) => n.status?.nodeInfo?.kubeletVersion.startsWith('kwok') === true);
}

describe("the helm test hook's command, run as the hook's ServiceAccount", () => {
  test.concurrent(
    "passes on a sound install: the operator's settings from its Deployment, its RBAC complete, nothing refused to doctor",
    () =>
      withChart(
        'hook-run',
        (ns) => ({ ...hookValues(ns), ...execProfile }),
        async (c) => {
          const ns = c.namespace;
          const r = await runHook(c);
          const out = `${r.stdout}\n${r.stderr}`;
          expect({ code: r.code, out }).toEqual({ code: 0, out: expect.stringMatching(/0 failures/) as unknown });
          expect(r.stdout).toMatch(new RegExp(`settings from Deployment ${ns}/${RELEASE}-operator\\b`));
          expect(r.stdout).toMatch(/^ok\s+settings: every WAITGATE_\* variable parses$/m);
          expect(r.stdout).toMatch(/^ok\s+valkey: .* answers PING/m);
          expect(r.stdout).toMatch(new RegExp(`^ok\\s+rbac: system:serviceaccount:${ns}:${OPERATOR_SA} has all \\d+ permissions`, 'm'));
          // Everything doctor reads, it may read: no warning about a refused read, no editors unknown.
          expect(r.stdout).not.toMatch(/cannot|forbidden|unknown \(the bindings/i);
          expect(r.stdout).toMatch(new RegExp(`who can edit ${ns}/waitgate-profiles, and so run code as the operator`));
          // The one warning is the exec-mode profile next to the operator's token and its
          // credentials: doctor read the operator's Deployment and ServiceAccount to say so.
          expect(r.stdout).toMatch(
            new RegExp(
              `^WARN\\s+checks: exec-mode profiles \\(${PROFILE}\\) run as the operator's user inside Deployment ${ns}/${RELEASE}-operator, which mounts a service-account token: .*environ \\(VALKEY_URL\\)`,
              'm',
            ),
          );
          // And the tests' Valkey, which asks no password.
          expect(r.stdout).toMatch(/^WARN\s+valkey-exposure: redis:\/\/127\.0\.0\.1:\d+ is used with no password/m);
          // And the admission policies these values turn off: nothing bounds the operator's Jobs.
          expect(r.stdout).toMatch(/^WARN\s+protection: no operator-jobs admission policy is bound/m);
          // Nor who may approve a hold.
          expect(r.stdout).toMatch(/^WARN\s+protection: no heldjob-approval admission policy is bound/m);
          expect(r.stdout).toMatch(/^0 failures, 4 warnings$/m);

          // And no more: no Secrets (the URL came from the kubelet's side), no Pods, no HeldJobs.
          const sa = await serviceAccountKubeconfig(c.kube, ns, DOCTOR);
          expect(await canI(sa, ['get', `secrets/${RELEASE}-valkey`, '-n', ns])).toBe(false);
          expect(await canI(sa, ['list', 'secrets', '-n', ns])).toBe(false);
          expect(await canI(sa, ['list', 'pods', '-n', ns])).toBe(false);
          expect(await canI(sa, ['list', 'heldjobs.waitgate.dev', '--all-namespaces'])).toBe(false);
          expect(await canI(sa, ['get', 'configmaps/other', '-n', ns])).toBe(false);
          expect(await canI(sa, ['get', 'customresourcedefinitions.apiextensions.k8s.io/other.example.com'])).toBe(false);

          // `helm test` itself, where the nodes are kwok's: Helm creates the hook Pod and the
          // apiserver admits it (its ServiceAccount exists, its security settings are valid).
          // kwok reports it Succeeded without running a container, so this shows the plumbing
          // only: a passed Pod is deleted, the ServiceAccount and its RBAC stay with the release.
          // (On real nodes the Pod would run doctor for real, from the chart's image, against a
          // Valkey URL that only this machine can reach.)
          if (!(await onlyKwokNodes(c))) return;
          const t = await helm(['test', RELEASE, '-n', ns, '--timeout', '60s']);
          expect({ code: t.code, out: t.stdout + t.stderr }).toEqual({
            code: 0,
            out: expect.stringMatching(new RegExp(`TEST SUITE:\\s+${DOCTOR}[\\s\\S]*Phase:\\s+Succeeded`)) as unknown,
          });
          expect((await kubectl(['get', 'pod', DOCTOR, '-n', ns])).stderr).toMatch(/NotFound/);
          expect((await kubectl(['get', 'serviceaccount', DOCTOR, '-n', ns])).code).toBe(0);
        },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'fails, naming the finding, when the operator could not reach its Valkey',
    () =>
      withChart(
        'hook-fail',
        (ns) => ({ ...hookValues(ns), valkey: { url: 'redis://127.0.0.1:1', prefix: `test-${ns}` } }),
        async (c) => {
          const r = await runHook(c);
          expect(r.code).toBe(1);
          expect(r.stdout).toMatch(/^FAIL\s+valkey: redis:\/\/127\.0\.0\.1:1 does not answer PING/m);
          expect(r.stdout).toMatch(/^1 failure\b/m);
        },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    "fails when the operator's own ServiceAccount lacks a right it needs",
    () =>
      withChart('hook-rbac', hookValues, async (c) => {
        await mustRun('kubectl', ['--kubeconfig', kubeconfigPath(), 'delete', 'clusterrolebinding', `${c.namespace}-${RELEASE}-operator`]);
        const r = await runHook(c);
        expect(r.code).toBe(1);
        expect(r.stdout).toMatch(
          new RegExp(
            `^FAIL\\s+rbac: system:serviceaccount:${c.namespace}:${OPERATOR_SA} may not .*heldjobs.*which the operator needs`,
            'm',
          ),
        );
        // helm uninstall still succeeds with the binding gone.
        expect((await helm(['status', RELEASE, '-n', c.namespace])).code).toBe(0);
      }),
    Timeouts.testMs,
  );
});
