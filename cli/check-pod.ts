// `waitgate check --pod`: one pod-mode check, run as the operator runs it. The Pod spec is the
// operator's own (operator/checks/pod-check.ts checkPod, through the same runner: the same
// limits, the same Secrets, the same two clocks), created in the operator's namespace under
// the caller's identity with a generated name, read for its exit code and deleted, also on
// Ctrl-C or a timeout. Its output is never read: the container's log stays where it is until
// the Pod is deleted.
import type { CheckPodDefaults } from '../api/check-pod-placement.js';
import { randomBytes } from 'node:crypto';
import type * as k8s from '@kubernetes/client-node';
import { pino } from 'pino';
import type { Profile } from '../api/profiles.js';
import type { CheckAnswer } from '../operator/checks/exec-check.js';
import { PodCheckRunner } from '../operator/checks/pod-check.js';

/** The worker label of the CLI's check Pods: never the operator's, so its sweeps leave them be. */
export function cliWorker(suffix: string = randomBytes(3).toString('hex')): string {
  return `cli-${suffix}`;
}

export interface PodCheckRun {
  readonly kubeConfig: k8s.KubeConfig;
  readonly namespace: string;
  readonly profile: Profile;
  readonly target: string;
  readonly checkTimeoutMs: number;
  readonly startTimeoutMs: number;
  /** The profiles ConfigMap the check Pod mounts its script from (the installed operator's). */
  readonly configMap: string;
  /** Where the Pod runs and what it pulls with: the installed operator's check Pod defaults. */
  readonly defaults: CheckPodDefaults;
  readonly signal: AbortSignal;
}

/** Runs the check Pod once and answers as the operator's runner does; never rejects on the check's account. */
export async function runPodCheck(o: PodCheckRun): Promise<CheckAnswer> {
  const worker = cliWorker();
  const runner = new PodCheckRunner({
    kubeConfig: o.kubeConfig,
    namespace: o.namespace,
    configMap: o.configMap,
    defaults: o.defaults,
    worker,
    timeoutMs: o.checkTimeoutMs,
    startTimeoutMs: o.startTimeoutMs,
    // One check: no periodic sweep to speak of (its Pod is deleted once its answer is read).
    sweepIntervalMs: 2 ** 31 - 1,
    log: pino({ level: 'silent' }),
  });
  await runner.start();
  try {
    // The key names what the Pod is for in its annotation; no HeldJob of that name exists.
    return await runner.run(o.profile, o.target, o.signal, `${o.namespace}/${worker}`);
  } finally {
    await runner.stop();
  }
}
