// Checks as short-lived Pods (profile mode "pod"): the same contract as exec mode, read from
// the terminated container's exit code. The script comes from the profiles ConfigMap,
// mounted read-only; the Pod has no service-account token, runs as non-root with a read-only
// root filesystem, and is deleted as soon as its answer is read.
import { labelValue } from '../../api/label-value.js';
import { createHash, randomBytes } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Profile } from '../../api/profiles.js';
import { Labels, MANAGED_BY } from '../../api/vocabulary.js';
import type { CheckAnswer } from './exec-check.js';
import { checkPodResources } from './check-pod-resources.js';
import { RestartingInformer } from '../../lib/kube/informer.js';
import { apiMessageOf, statusCodeOf } from '../../lib/kube/client.js';
import { assertNever } from '../../api/vocabulary.js';
import { containerStartOf, podClock, startTimeoutDetail } from './pod-check-timing.js';
import { refusedSecretOf, SECRETS_MOUNT_ROOT } from '../../api/check-secrets.js';
import { checkPodPlacement, type CheckPodDefaults } from '../../api/check-pod-placement.js';

export const CHECK_LABEL = 'waitgate.dev/check';
export const WORKER_LABEL = 'waitgate.dev/worker';
export const SCRIPTS_MOUNT = '/waitgate/profiles';
/**
 * A small private scratch directory (an emptyDir), given to the check as TMPDIR: the root
 * filesystem, /tmp included, stays read-only, and `mktemp` still works.
 */
export const SCRATCH_MOUNT = '/var/run/waitgate/tmp';
export const SCRATCH_SIZE = '16Mi';
/**
 * Container states that can never turn into a start: it could not tell, at once. Every other
 * wait (an image pull backing off, a Pod not scheduled yet, a container config not there yet)
 * may clear by itself on a real cluster, and is a fault only past the start timeout.
 */
const NEVER_STARTS = new Set(['InvalidImageName', 'ErrImageNeverPull']);
/** The check container's user and group; its Secret files are this group's to read (0440). */
export const CHECK_UID = 65532;
/** Secret files: read-only to the owner and the Pod's fsGroup, nothing for others. */
export const SECRET_FILE_MODE = 0o440;

/** The volume of Secret `secret` in a check Pod (Secret names may hold '.', volume names may not). */
export function secretVolumeName(index: number): string {
  return `secret-${index}`;
}

export function checkPod(o: {
  name: string;
  namespace: string;
  profile: Profile;
  target: string;
  key: string;
  worker: string;
  configMap: string;
  /** The check's own timeout, from the container's start. */
  timeoutMs: number;
  /** How long scheduling and starting may take. */
  startTimeoutMs: number;
  /** Pull secrets and placement before the profile's own (WAITGATE_CHECK_POD_DEFAULTS). */
  defaults?: CheckPodDefaults;
}): k8s.V1Pod {
  const script = o.profile.script;
  const secrets = o.profile.secrets ?? [];
  // Only the keys asked for, each from a Secret the profile names (parseProfiles checks it).
  const env: k8s.V1EnvVar[] = Object.entries(o.profile.env ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, from]) => ({ name, valueFrom: { secretKeyRef: { name: from.secret, key: from.key } } }));
  const placement = checkPodPlacement(o.defaults, o.profile.placement);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: o.name,
      namespace: o.namespace,
      labels: {
        [CHECK_LABEL]: 'true',
        [Labels.managedBy]: MANAGED_BY,
        [WORKER_LABEL]: labelValue(o.worker),
        [Labels.heldJob]: labelValue(o.key.split('/')[1] ?? o.key),
      },
      annotations: { ...(o.profile.annotations ?? {}), 'waitgate.dev/heldjob': o.key, 'waitgate.dev/profile': o.profile.name },
    },
    spec: {
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      // A backstop only (it counts from the kubelet taking the Pod, image pull included): the
      // operator itself times the start and the check (pod-check-timing.ts).
      activeDeadlineSeconds: Math.max(1, Math.ceil((o.startTimeoutMs + o.timeoutMs) / 1000)),
      terminationGracePeriodSeconds: 2,
      // Where it runs and what it pulls with: the defaults, the profile's own keys over them.
      ...(placement.imagePullSecrets ? { imagePullSecrets: placement.imagePullSecrets.map((s) => ({ name: s.name })) } : {}),
      ...(placement.nodeSelector ? { nodeSelector: { ...placement.nodeSelector } } : {}),
      ...(placement.tolerations ? { tolerations: placement.tolerations.map((t) => ({ ...t })) } : {}),
      ...(placement.affinity ? { affinity: placement.affinity } : {}),
      ...(placement.priorityClassName ? { priorityClassName: placement.priorityClassName } : {}),
      securityContext: {
        runAsNonRoot: true,
        runAsUser: CHECK_UID,
        runAsGroup: CHECK_UID,
        // The group Secret files are given to (0440), so the check's user reads them and no other does.
        ...(secrets.length > 0 ? { fsGroup: CHECK_UID } : {}),
        seccompProfile: { type: 'RuntimeDefault' },
      },
      containers: [
        {
          name: 'check',
          image: o.profile.image,
          command: [`${SCRIPTS_MOUNT}/${script}`],
          args: [o.target],
          resources: checkPodResources(o.profile.resources),
          securityContext: {
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            privileged: false,
            capabilities: { drop: ['ALL'] },
          },
          env: [{ name: 'TMPDIR', value: SCRATCH_MOUNT }, ...env],
          volumeMounts: [
            { name: 'profiles', mountPath: SCRIPTS_MOUNT, readOnly: true },
            { name: 'scratch', mountPath: SCRATCH_MOUNT },
            ...secrets.map((secret, i) => ({ name: secretVolumeName(i), mountPath: `${SECRETS_MOUNT_ROOT}/${secret}`, readOnly: true })),
          ],
        },
      ],
      volumes: [
        { name: 'profiles', configMap: { name: o.configMap, defaultMode: 0o555, items: [{ key: script, path: script }] } },
        { name: 'scratch', emptyDir: { sizeLimit: SCRATCH_SIZE } },
        ...secrets.map((secret, i) => ({ name: secretVolumeName(i), secret: { secretName: secret, defaultMode: SECRET_FILE_MODE } })),
      ],
    },
  };
}

/** A check Pod's name: the HeldJob's hash (the same for every check of it) and a random suffix (new for each). */
export function checkPodName(key: string, suffix: string = randomBytes(3).toString('hex')): string {
  return `waitgate-check-${createHash('sha256').update(key).digest('hex').slice(0, 10)}-${suffix}`;
}

/** What a check Pod says so far: an answer, or nothing yet. Pure. */
export function podAnswer(pod: k8s.V1Pod): Omit<CheckAnswer, 'durationMs'> | undefined {
  const cs = pod.status?.containerStatuses?.[0];
  const term = cs?.state?.terminated;
  const none = { stdoutBytes: 0, stderrBytes: 0, signal: null };
  if (term) return { ...none, exitCode: term.exitCode, timedOut: false };
  if (pod.status?.phase === 'Failed') {
    // Failed with no exit code: the deadline (activeDeadlineSeconds) or an eviction.
    return {
      ...none,
      exitCode: null,
      timedOut: pod.status.reason === 'DeadlineExceeded',
      ...(pod.status.reason === 'DeadlineExceeded' ? {} : { spawnError: pod.status.reason ?? 'PodFailed' }),
    };
  }
  const waiting = cs?.state?.waiting?.reason;
  if (waiting && NEVER_STARTS.has(waiting)) return { ...none, exitCode: null, timedOut: false, spawnError: waiting };
  return undefined;
}

/**
 * The answer of a check whose Pod the apiserver would not create. Refused by the check-Secret
 * policy: a configuration slip (refusedSecret), which the gate pauses on; anything else could
 * not tell, as before.
 */
export function createFailed(err: unknown): Omit<CheckAnswer, 'durationMs'> {
  const code = statusCodeOf(err);
  const message = apiMessageOf(err);
  const refused = code === 403 ? refusedSecretOf(message) : undefined;
  return {
    exitCode: null,
    signal: null,
    timedOut: false,
    spawnError: `PodCreate${code ?? ''}`,
    ...(refused ? { spawnDetail: message, refusedSecret: refused.secret } : {}),
    stdoutBytes: 0,
    stderrBytes: 0,
  };
}

export interface PodCheckOptions {
  readonly kubeConfig: k8s.KubeConfig;
  readonly namespace: string;
  readonly configMap: string;
  readonly worker: string;
  /** The check's timeout, counted from its container's start. */
  readonly timeoutMs: number;
  /** How long a check Pod may take to be scheduled and start its container. */
  readonly startTimeoutMs: number;
  /** How often check Pods no check of this process awaits are looked for and deleted. */
  readonly sweepIntervalMs: number;
  /** Pull secrets and placement of every check Pod, before a profile's own. */
  readonly defaults?: CheckPodDefaults;
  readonly log: Logger;
}

export class PodCheckRunner {
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private readonly core: k8s.CoreV1Api;
  private readonly informer: RestartingInformer<k8s.V1Pod>;
  private readonly waiters = new Map<string, (pod: k8s.V1Pod | 'deleted') => void>();

  constructor(private readonly o: PodCheckOptions) {
    this.core = o.kubeConfig.makeApiClient(k8s.CoreV1Api);
    const selector = `${CHECK_LABEL}=true,${WORKER_LABEL}=${labelValue(o.worker)}`;
    this.informer = new RestartingInformer<k8s.V1Pod>({
      kubeConfig: o.kubeConfig,
      path: `/api/v1/namespaces/${o.namespace}/pods`,
      list: () => this.core.listNamespacedPod({ namespace: o.namespace, labelSelector: selector }),
      labelSelector: selector,
      log: o.log,
      onEvent: (event, pod) => {
        const w = this.waiters.get(pod.metadata?.name ?? '');
        if (w) w(event === 'delete' ? 'deleted' : pod);
      },
    });
  }

  /**
   * Starts watching, and removes check Pods a crashed predecessor left behind. The operator
   * calls this once it leads, so the first sweep is also the one after a leader change; later
   * sweeps, every sweepIntervalMs, catch Pods whose deletion failed or whose create answered
   * with an error after all.
   */
  async start(): Promise<void> {
    await this.informer.start();
    await this.sweep('start');
    this.sweepTimer = setInterval(() => void this.sweep('periodic'), this.o.sweepIntervalMs);
    this.sweepTimer.unref();
  }

  stop(): Promise<void> {
    clearInterval(this.sweepTimer);
    return this.informer.stop();
  }

  /** Deletes every check Pod of this worker that no running check of this process waits on. */
  async sweep(why: 'start' | 'periodic'): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      for (const pod of this.informer.list()) {
        const name = pod.metadata?.name;
        // A waiter is set before its Pod is created and removed once its answer is read.
        if (name === undefined || this.waiters.has(name)) continue;
        this.o.log.info({ pod: name, sweep: why }, 'Deleted orphaned check Pod');
        await this.delete(name);
      }
    } finally {
      this.sweeping = false;
    }
  }

  async run(profile: Profile, target: string, signal: AbortSignal, key: string): Promise<CheckAnswer> {
    const started = Date.now();
    const done = (a: Omit<CheckAnswer, 'durationMs'>): CheckAnswer => ({ ...a, durationMs: Date.now() - started });
    const name = checkPodName(key);
    const none = { exitCode: null, signal: null, timedOut: false, stdoutBytes: 0, stderrBytes: 0 } as const;
    const answer = new Promise<Omit<CheckAnswer, 'durationMs'>>((resolve) => {
      // Two clocks: the start timeout from the create, then the check timeout from the container's start.
      const createdAt = Date.now();
      let startedAt: number | undefined;
      let lastSeen: k8s.V1Pod | undefined;
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => finish({ ...none, spawnError: 'ABORT_ERR' });
      const finish = (a: Omit<CheckAnswer, 'durationMs'>) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.waiters.delete(name);
        resolve(a);
      };
      const look = () => {
        const clock = podClock({
          createdAt,
          startedAt,
          now: Date.now(),
          checkTimeoutMs: this.o.timeoutMs,
          startTimeoutMs: this.o.startTimeoutMs,
        });
        switch (clock.kind) {
          case 'timedOut':
            return finish({ ...none, timedOut: true });
          case 'startTimedOut':
            return finish({ ...none, spawnError: 'PodStartTimeout', spawnDetail: startTimeoutDetail(this.o.startTimeoutMs, lastSeen) });
          case 'starting':
          case 'running':
            clearTimeout(timer);
            timer = setTimeout(look, Math.max(0, clock.until - Date.now()));
            return;
          default:
            return assertNever(clock);
        }
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(name, (pod) => {
        if (pod === 'deleted') return finish({ ...none, spawnError: 'PodDeleted' });
        const a = podAnswer(pod);
        if (a) return finish(a);
        lastSeen = pod;
        startedAt ??= containerStartOf(pod, createdAt, Date.now());
        look();
      });
      look();
    });
    if (signal.aborted)
      return done({ exitCode: null, signal: null, timedOut: false, spawnError: 'ABORT_ERR', stdoutBytes: 0, stderrBytes: 0 });
    try {
      await this.core.createNamespacedPod({
        namespace: this.o.namespace,
        body: checkPod({
          name,
          namespace: this.o.namespace,
          profile,
          target,
          key,
          worker: this.o.worker,
          configMap: this.o.configMap,
          timeoutMs: this.o.timeoutMs,
          startTimeoutMs: this.o.startTimeoutMs,
          ...(this.o.defaults ? { defaults: this.o.defaults } : {}),
        }),
      });
    } catch (err) {
      this.waiters.get(name)?.('deleted');
      this.waiters.delete(name);
      return done(createFailed(err));
    }
    const result = await answer;
    // Read once, then gone: the Pod never outlives its answer.
    await this.delete(name);
    return done(result);
  }

  private async delete(name: string): Promise<void> {
    try {
      await this.core.deleteNamespacedPod({ name, namespace: this.o.namespace, gracePeriodSeconds: 0 });
    } catch (err) {
      if (statusCodeOf(err) !== 404) this.o.log.warn({ err, pod: name }, 'Failed to delete check Pod');
    }
  }
}
