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
import { statusCodeOf } from '../../lib/kube/client.js';

export const CHECK_LABEL = 'waitgate.dev/check';
export const WORKER_LABEL = 'waitgate.dev/worker';
export const SCRIPTS_MOUNT = '/waitgate/profiles';
/** Container states that mean the check will never start: it could not tell. */
const CANNOT_START = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
]);

export function checkPod(o: {
  name: string;
  namespace: string;
  profile: Profile;
  target: string;
  key: string;
  worker: string;
  configMap: string;
  timeoutMs: number;
}): k8s.V1Pod {
  const script = o.profile.script;
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
      activeDeadlineSeconds: Math.max(1, Math.ceil(o.timeoutMs / 1000)),
      terminationGracePeriodSeconds: 2,
      securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
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
          volumeMounts: [{ name: 'profiles', mountPath: SCRIPTS_MOUNT, readOnly: true }],
        },
      ],
      volumes: [{ name: 'profiles', configMap: { name: o.configMap, defaultMode: 0o555, items: [{ key: script, path: script }] } }],
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
  if (waiting && CANNOT_START.has(waiting)) return { ...none, exitCode: null, timedOut: false, spawnError: waiting };
  const unschedulable = pod.status?.conditions?.find(
    (c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable',
  );
  if (unschedulable) return { ...none, exitCode: null, timedOut: false, spawnError: 'Unschedulable' };
  return undefined;
}

export interface PodCheckOptions {
  readonly kubeConfig: k8s.KubeConfig;
  readonly namespace: string;
  readonly configMap: string;
  readonly worker: string;
  readonly timeoutMs: number;
  /** How often check Pods no check of this process awaits are looked for and deleted. */
  readonly sweepIntervalMs: number;
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
    const answer = new Promise<Omit<CheckAnswer, 'durationMs'>>((resolve) => {
      const timer = setTimeout(
        () => finish({ exitCode: null, signal: null, timedOut: true, stdoutBytes: 0, stderrBytes: 0 }),
        this.o.timeoutMs,
      );
      const onAbort = () =>
        finish({ exitCode: null, signal: null, timedOut: false, spawnError: 'ABORT_ERR', stdoutBytes: 0, stderrBytes: 0 });
      const finish = (a: Omit<CheckAnswer, 'durationMs'>) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.waiters.delete(name);
        resolve(a);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(name, (pod) => {
        if (pod === 'deleted')
          return finish({ exitCode: null, signal: null, timedOut: false, spawnError: 'PodDeleted', stdoutBytes: 0, stderrBytes: 0 });
        const a = podAnswer(pod);
        if (a) finish(a);
      });
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
        }),
      });
    } catch (err) {
      this.waiters.get(name)?.('deleted');
      this.waiters.delete(name);
      return done({
        exitCode: null,
        signal: null,
        timedOut: false,
        spawnError: `PodCreate${statusCodeOf(err) ?? ''}`,
        stdoutBytes: 0,
        stderrBytes: 0,
      });
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
