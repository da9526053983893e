import { describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { CheckVerdict, verdictOf } from '../../api/check-verdict.js';
import { ProfileMode, type Profile } from '../../api/profiles.js';
import { checkPod, checkPodName, createFailed, podAnswer } from './pod-check.js';

const profile: Profile = { name: 'ci', mode: ProfileMode.Pod, script: 'ci.sh', image: 'alpine:3.20' };
const base = {
  name: 'p',
  namespace: 'waitgate-system',
  profile,
  target: 'acme/web#7',
  key: 'team-a/web-7',
  worker: 'w',
  configMap: 'waitgate-profiles',
  timeoutMs: 10_000,
  startTimeoutMs: 0,
};
type CheckPodInput = Parameters<typeof checkPod>[0];

describe('checkPod', () => {
  const pod = checkPod(base);
  const spec = pod.spec as k8s.V1PodSpec;
  const c = spec.containers[0] as k8s.V1Container;

  test('argv is [script, target]: no shell', () => {
    expect(c.command).toEqual(['/waitgate/profiles/ci.sh']);
    expect(c.args).toEqual(['acme/web#7']);
  });
  test('a target full of shell syntax is still one argument, as given', () => {
    const target = 'acme/web#7; rm -rf / $(id) `id`';
    expect(checkPod({ ...base, target }).spec?.containers[0]?.args).toEqual([target]);
  });
  test('named and placed as asked, with the profile image', () => {
    expect(pod.metadata).toMatchObject({ name: 'p', namespace: 'waitgate-system' });
    expect(c.image).toBe('alpine:3.20');
    expect(spec.containers).toHaveLength(1);
  });
  test('no service-account token, no service links, never restarted, a short grace', () => {
    expect(spec.automountServiceAccountToken).toBe(false);
    expect(spec.enableServiceLinks).toBe(false);
    expect(spec.restartPolicy).toBe('Never');
    expect(spec.terminationGracePeriodSeconds).toBe(2);
  });
  test('non-root, read-only root filesystem, no privilege escalation, every capability dropped', () => {
    expect(spec.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(c.securityContext).toEqual({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: ['ALL'] },
    });
  });
  test('the script is mounted read-only from the profiles ConfigMap, that key alone; a small scratch directory is TMPDIR', () => {
    expect(c.volumeMounts).toEqual([
      { name: 'profiles', mountPath: '/waitgate/profiles', readOnly: true },
      { name: 'scratch', mountPath: '/var/run/waitgate/tmp' },
    ]);
    expect(spec.volumes).toEqual([
      { name: 'profiles', configMap: { name: 'waitgate-profiles', defaultMode: 0o555, items: [{ key: 'ci.sh', path: 'ci.sh' }] } },
      { name: 'scratch', emptyDir: { sizeLimit: '16Mi' } },
    ]);
    expect(c.env).toEqual([{ name: 'TMPDIR', value: '/var/run/waitgate/tmp' }]);
  });

  test.each<[string, number, number]>([
    ['whole seconds', 10_000, 10],
    ['a part second rounds up', 1_500, 2],
    ['just over a minute', 60_001, 61],
    ['under a second is one second', 1, 1],
    ['zero is still one second (never no deadline)', 0, 1],
  ])('the deadline comes from the check timeout: %s', (_name, timeoutMs, seconds) => {
    expect(checkPod({ ...base, timeoutMs }).spec?.activeDeadlineSeconds).toBe(seconds);
  });

  test.each<[string, number, number, number]>([
    ['the start timeout and the check timeout together', 120_000, 10_000, 130],
    ['a part second rounds up', 1_500, 1_000, 3],
  ])('a backstop deadline long enough for the start and the check: %s', (_name, startTimeoutMs, timeoutMs, seconds) => {
    expect(checkPod({ ...base, startTimeoutMs, timeoutMs }).spec?.activeDeadlineSeconds).toBe(seconds);
  });

  test.each<[string, k8s.V1ResourceRequirements | undefined, k8s.V1ResourceRequirements]>([
    [
      'by default: small requests and limits',
      undefined,
      { requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '200m', memory: '64Mi' } },
    ],
    [
      "the profile's limits, the default requests",
      { limits: { cpu: '1', memory: '1Gi' } },
      { requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '1', memory: '1Gi' } },
    ],
    [
      'only requests: the default limits still apply',
      { requests: { cpu: '20m', memory: '32Mi' } },
      { requests: { cpu: '20m', memory: '32Mi' }, limits: { cpu: '200m', memory: '64Mi' } },
    ],
  ])('resources %s', (_name, resources, expected) => {
    const p = checkPod({ ...base, profile: { ...profile, ...(resources ? { resources: resources as Record<string, unknown> } : {}) } });
    expect(p.spec?.containers[0]?.resources).toEqual(expected);
  });

  test.each<[string, Partial<CheckPodInput>, Record<string, unknown>]>([
    [
      'plain names',
      {},
      {
        'waitgate.dev/check': 'true',
        'app.kubernetes.io/managed-by': 'waitgate',
        'waitgate.dev/worker': 'w',
        'waitgate.dev/heldjob': 'web-7',
      },
    ],
    ['a key without a namespace', { key: 'web-7' }, { 'waitgate.dev/heldjob': 'web-7' }],
    // Anything a label cannot hold as it is keeps a readable head and gains a hash of the whole.
    [
      'a worker with characters a label may not hold',
      { worker: 'op-0@node:1/x' },
      { 'waitgate.dev/worker': expect.stringMatching(/^op-0-node-1-x-[0-9a-f]{10}$/) },
    ],
    [
      'a worker longer than a label',
      { worker: `w${'x'.repeat(80)}` },
      { 'waitgate.dev/worker': expect.stringMatching(new RegExp(`^w${'x'.repeat(51)}-[0-9a-f]{10}$`)) },
    ],
    [
      'a worker with no label characters at its ends',
      { worker: '--op-0--' },
      { 'waitgate.dev/worker': expect.stringMatching(/^op-0-[0-9a-f]{10}$/) },
    ],
    ['a worker with nothing a label may hold', { worker: '@@@' }, { 'waitgate.dev/worker': expect.stringMatching(/^[0-9a-f]{10}$/) }],
  ])('labels for its HeldJob and its worker: %s', (_name, input, labels) => {
    const got = checkPod({ ...base, ...input }).metadata?.labels ?? {};
    expect(got).toMatchObject(labels);
    for (const v of Object.values(got)) expect(v).toMatch(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/);
  });

  test('annotations: the profile its own, and which HeldJob and profile the Pod checks for (these win)', () => {
    const annotated = { ...profile, annotations: { 'sidecar.istio.io/inject': 'false', 'waitgate.dev/heldjob': 'forged' } };
    expect(checkPod({ ...base, profile: annotated }).metadata?.annotations).toEqual({
      'sidecar.istio.io/inject': 'false',
      'waitgate.dev/heldjob': 'team-a/web-7',
      'waitgate.dev/profile': 'ci',
    });
  });
});

describe('checkPodName', () => {
  test('the same HeldJob always gives the same stem; the suffix tells checks apart', () => {
    expect(checkPodName('team-a/web-7', 'abc123')).toBe(checkPodName('team-a/web-7', 'abc123'));
    expect(checkPodName('team-a/web-7', 'abc123')).not.toBe(checkPodName('team-a/web-8', 'abc123'));
    const a = checkPodName('team-a/web-7');
    const b = checkPodName('team-a/web-7');
    expect(a.slice(0, -6)).toBe(b.slice(0, -6));
  });
  test.each(['team-a/web-7', 'x', `${'n'.repeat(63)}/${'h'.repeat(253)}`])('a DNS-1123 label whatever the key: %s', (key) => {
    expect(checkPodName(key)).toMatch(/^waitgate-check-[0-9a-f]{10}-[0-9a-f]{6}$/);
    expect(checkPodName(key).length).toBeLessThanOrEqual(63);
  });
});

describe('podAnswer: what a check Pod says so far, and the verdict it reads as', () => {
  const container = (state: k8s.V1ContainerState): k8s.V1ContainerStatus => ({
    name: 'check',
    image: 'x',
    imageID: '',
    ready: false,
    restartCount: 0,
    state,
  });
  const pod = (s: k8s.V1PodStatus): k8s.V1Pod => ({ status: s });
  const waiting = (reason: string) => pod({ phase: 'Pending', containerStatuses: [container({ waiting: { reason } })] });
  const none = { stdoutBytes: 0, stderrBytes: 0, signal: null };

  test.each<[string, k8s.V1Pod, object | undefined, CheckVerdict | undefined]>([
    ['no status yet', {}, undefined, undefined],
    ['pending', pod({ phase: 'Pending' }), undefined, undefined],
    ['its image on the way', waiting('ContainerCreating'), undefined, undefined],
    ['running', pod({ phase: 'Running', containerStatuses: [container({ running: {} })] }), undefined, undefined],
    [
      'scheduling gated (not unschedulable)',
      pod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] }),
      undefined,
      undefined,
    ],
    [
      'exited 0',
      pod({ phase: 'Succeeded', containerStatuses: [container({ terminated: { exitCode: 0 } })] }),
      { ...none, exitCode: 0, timedOut: false },
      CheckVerdict.Go,
    ],
    [
      'exited 3',
      pod({ phase: 'Failed', containerStatuses: [container({ terminated: { exitCode: 3 } })] }),
      { ...none, exitCode: 3, timedOut: false },
      CheckVerdict.NotYet,
    ],
    [
      'exited 2',
      pod({ phase: 'Failed', containerStatuses: [container({ terminated: { exitCode: 2 } })] }),
      { ...none, exitCode: 2, timedOut: false },
      CheckVerdict.Never,
    ],
    [
      'exited 137 (killed): a code like any other unknown one',
      pod({ phase: 'Failed', containerStatuses: [container({ terminated: { exitCode: 137 } })] }),
      { ...none, exitCode: 137, timedOut: false },
      CheckVerdict.CouldNotTell,
    ],
    [
      'an exit code read before the deadline wins over the deadline',
      pod({ phase: 'Failed', reason: 'DeadlineExceeded', containerStatuses: [container({ terminated: { exitCode: 3 } })] }),
      { ...none, exitCode: 3, timedOut: false },
      CheckVerdict.NotYet,
    ],
    [
      'past its deadline',
      pod({ phase: 'Failed', reason: 'DeadlineExceeded' }),
      { ...none, exitCode: null, timedOut: true },
      CheckVerdict.CouldNotTell,
    ],
    [
      'evicted',
      pod({ phase: 'Failed', reason: 'Evicted' }),
      { ...none, exitCode: null, timedOut: false, spawnError: 'Evicted' },
      CheckVerdict.CouldNotTell,
    ],
    [
      'failed for no stated reason',
      pod({ phase: 'Failed' }),
      { ...none, exitCode: null, timedOut: false, spawnError: 'PodFailed' },
      CheckVerdict.CouldNotTell,
    ],
    ...['InvalidImageName', 'ErrImageNeverPull'].map((reason): [string, k8s.V1Pod, object, CheckVerdict] => [
      `can never start: ${reason}`,
      waiting(reason),
      { ...none, exitCode: null, timedOut: false, spawnError: reason },
      CheckVerdict.CouldNotTell,
    ]),
    // May clear by itself on a real cluster: no answer yet; the start timeout bounds it (pod-check-timing.ts).
    ...['ErrImagePull', 'ImagePullBackOff', 'CreateContainerConfigError', 'CreateContainerError', 'RunContainerError'].map(
      (reason): [string, k8s.V1Pod, undefined, undefined] => [`not started yet: ${reason}`, waiting(reason), undefined, undefined],
    ),
    [
      'unschedulable (for now: an autoscaler may add a node)',
      pod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] }),
      undefined,
      undefined,
    ],
  ])('%s', (_n, p, expected, verdict) => {
    const a = podAnswer(p);
    expect(a).toEqual(expected);
    if (a) expect(verdictOf(a)).toBe(verdict);
  });
});

const SCRATCH = { name: 'scratch', emptyDir: { sizeLimit: '16Mi' } };
const SCRATCH_MOUNTED = { name: 'scratch', mountPath: '/var/run/waitgate/tmp' };
const TMPDIR = { name: 'TMPDIR', value: '/var/run/waitgate/tmp' };

describe('checkPod: the Secrets a profile names', () => {
  const withSecrets = (p: Partial<Profile>) => checkPod({ ...base, profile: { ...profile, ...p } });
  test.each<
    [
      string,
      Partial<Profile>,
      Pick<k8s.V1PodSpec, 'volumes'> & { mounts: k8s.V1VolumeMount[]; env: k8s.V1EnvVar[]; fsGroup: number | undefined },
    ]
  >([
    [
      'none: only the script and the scratch directory, no fsGroup, no Secret in the env',
      {},
      {
        volumes: [
          { name: 'profiles', configMap: { name: 'waitgate-profiles', defaultMode: 0o555, items: [{ key: 'ci.sh', path: 'ci.sh' }] } },
          SCRATCH,
        ],
        mounts: [{ name: 'profiles', mountPath: '/waitgate/profiles', readOnly: true }, SCRATCH_MOUNTED],
        env: [TMPDIR],
        fsGroup: undefined,
      },
    ],
    [
      'files only: each Secret read-only under /var/run/waitgate/secrets/<name>, 0440 to the check group',
      { secrets: ['jira', 'ci.example.com'] },
      {
        volumes: [
          { name: 'profiles', configMap: { name: 'waitgate-profiles', defaultMode: 0o555, items: [{ key: 'ci.sh', path: 'ci.sh' }] } },
          SCRATCH,
          { name: 'secret-0', secret: { secretName: 'jira', defaultMode: 0o440 } },
          { name: 'secret-1', secret: { secretName: 'ci.example.com', defaultMode: 0o440 } },
        ],
        mounts: [
          { name: 'profiles', mountPath: '/waitgate/profiles', readOnly: true },
          SCRATCH_MOUNTED,
          { name: 'secret-0', mountPath: '/var/run/waitgate/secrets/jira', readOnly: true },
          { name: 'secret-1', mountPath: '/var/run/waitgate/secrets/ci.example.com', readOnly: true },
        ],
        env: [TMPDIR],
        fsGroup: 65532,
      },
    ],
    [
      'env only for the keys asked, sorted by name, each a secretKeyRef',
      { secrets: ['jira'], env: { ZED: { secret: 'jira', key: 'z' }, JIRA_TOKEN: { secret: 'jira', key: 'token' } } },
      {
        volumes: [
          { name: 'profiles', configMap: { name: 'waitgate-profiles', defaultMode: 0o555, items: [{ key: 'ci.sh', path: 'ci.sh' }] } },
          SCRATCH,
          { name: 'secret-0', secret: { secretName: 'jira', defaultMode: 0o440 } },
        ],
        mounts: [
          { name: 'profiles', mountPath: '/waitgate/profiles', readOnly: true },
          SCRATCH_MOUNTED,
          { name: 'secret-0', mountPath: '/var/run/waitgate/secrets/jira', readOnly: true },
        ],
        env: [
          TMPDIR,
          { name: 'JIRA_TOKEN', valueFrom: { secretKeyRef: { name: 'jira', key: 'token' } } },
          { name: 'ZED', valueFrom: { secretKeyRef: { name: 'jira', key: 'z' } } },
        ],
        fsGroup: 65532,
      },
    ],
  ])('%s', (_what, p, want) => {
    const pod = withSecrets(p);
    const spec = pod.spec as k8s.V1PodSpec;
    const c = spec.containers[0] as k8s.V1Container;
    expect({ volumes: spec.volumes, mounts: c.volumeMounts, env: c.env, fsGroup: spec.securityContext?.fsGroup }).toEqual(want);
    // Never envFrom (the whole Secret), never a projected volume, and still no token.
    expect(c.envFrom).toBeUndefined();
    expect(spec.automountServiceAccountToken).toBe(false);
    expect(spec.securityContext?.runAsUser).toBe(65532);
  });
});

describe('createFailed: a check Pod the apiserver would not create', () => {
  const apiError = (code: number, message: string) =>
    new k8s.ApiException(code, 'Forbidden', JSON.stringify({ kind: 'Status', message }), {});
  test.each<[string, unknown, { spawnError: string; refusedSecret?: string }]>([
    [
      'refused by check-pod-secrets: the Secret is named, a slip in configuration',
      apiError(
        403,
        "pods \"waitgate-check-1\" is forbidden: ValidatingAdmissionPolicy 'waitgate-check-pod-secrets' with binding 'waitgate-check-pod-secrets' denied request: waitgate: a check Pod references Secret plain-token which is not labelled waitgate.dev/check-secret=true",
      ),
      { spawnError: 'PodCreate403', refusedSecret: 'plain-token' },
    ],
    [
      'forbidden by RBAC: could not tell, as before',
      apiError(403, 'pods is forbidden: User "x" cannot create resource "pods"'),
      { spawnError: 'PodCreate403' },
    ],
    [
      'another policy: could not tell',
      apiError(
        403,
        "ValidatingAdmissionPolicy 'waitgate-operator-pods' denied request: waitgate: a Pod the operator creates opens no hostPort",
      ),
      { spawnError: 'PodCreate403' },
    ],
    ['a server error', apiError(500, 'etcdserver: timeout'), { spawnError: 'PodCreate500' }],
    ['no status at all', new Error('socket hang up'), { spawnError: 'PodCreate' }],
  ])('%s', (_what, err, want) => {
    const a = createFailed(err);
    expect({ spawnError: a.spawnError, ...(a.refusedSecret !== undefined ? { refusedSecret: a.refusedSecret } : {}) }).toEqual(want);
    expect(a.exitCode).toBeNull();
    expect(verdictOf(a)).toBe(CheckVerdict.CouldNotTell);
  });
});

describe('checkPod: pull secrets and placement, the defaults under the profile', () => {
  const defaults = {
    imagePullSecrets: [{ name: 'registry' }],
    nodeSelector: { pool: 'checks' },
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'checks', effect: 'NoSchedule' }] as const,
    affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } },
    priorityClassName: 'waitgate-checks',
  };
  const fields = (p: k8s.V1Pod) => {
    const s = p.spec as k8s.V1PodSpec;
    return {
      imagePullSecrets: s.imagePullSecrets,
      nodeSelector: s.nodeSelector,
      tolerations: s.tolerations,
      affinity: s.affinity,
      priorityClassName: s.priorityClassName,
    };
  };
  const gpu = { key: 'gpu', operator: 'Exists' as const };
  test.each<[string, Partial<CheckPodInput>, Partial<Profile>, object]>([
    ['none: no such field at all', {}, {}, {}],
    ['the defaults, all five', { defaults: { ...defaults, tolerations: [...defaults.tolerations] } }, {}, defaults],
    [
      "a profile's own nodeSelector, tolerations and priorityClassName replace the defaults'; pull secrets and affinity stay",
      { defaults: { ...defaults, tolerations: [...defaults.tolerations] } },
      { placement: { nodeSelector: { pool: 'gpu' }, tolerations: [gpu], priorityClassName: 'high' } },
      { ...defaults, nodeSelector: { pool: 'gpu' }, tolerations: [gpu], priorityClassName: 'high' },
    ],
    ['a profile alone', {}, { placement: { priorityClassName: 'high' } }, { priorityClassName: 'high' }],
  ])('%s', (_what, input, p, expected) => {
    const got = fields(checkPod({ ...base, ...input, profile: { ...profile, ...p } }));
    const want = {
      imagePullSecrets: undefined,
      nodeSelector: undefined,
      tolerations: undefined,
      affinity: undefined,
      priorityClassName: undefined,
      ...expected,
    };
    expect(got).toEqual(want);
  });
});
