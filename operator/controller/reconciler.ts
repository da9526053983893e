// Carries out, for one HeldJob, what decide() returns. All I/O sits behind the small
// interfaces below; the decision itself stays pure.
import type * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { checkSpec, type HeldJobObject, type HeldJobSpec, type HeldJobStatus } from '../api/heldjob-schema.js';
import { jobNameFor } from '../api/job-name.js';
import { assertNever, isTerminal } from '../api/vocabulary.js';
import { decide, type DecideConfig, type EventSpec, type ObservedJob } from '../decide/decide.js';
import type { Clock } from './clock.js';

export interface HeldJobSource {
  get(name: string, namespace: string): HeldJobObject | undefined;
}
export interface JobSource {
  get(name: string, namespace: string): k8s.V1Job | undefined;
}
export interface StatusWriter {
  writeStatus(heldJob: HeldJobObject, status: HeldJobStatus): Promise<HeldJobObject>;
  recordEvent(heldJob: HeldJobObject, event: EventSpec, now: number): Promise<void>;
}
export interface JobLauncher {
  create(job: k8s.V1Job, ownerUid: string): Promise<'created' | 'existed'>;
}
export interface Waker {
  schedule(key: string, at: number): void;
  cancel(key: string): void;
}

export interface ReconcilerDeps {
  readonly heldJobs: HeldJobSource;
  readonly jobs: JobSource;
  readonly writer: StatusWriter;
  readonly launcher: JobLauncher;
  readonly buildJob: (heldJob: HeldJobObject, spec: HeldJobSpec, jobName: string) => k8s.V1Job;
  readonly observeJob: (job: k8s.V1Job) => ObservedJob;
  readonly waker: Waker;
  readonly clock: Clock;
  readonly config: DecideConfig;
  readonly log: Logger;
}

export const keyOf = (namespace: string, name: string): string => `${namespace}/${name}`;

export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

function isConflict(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 409;
}

export class Reconciler {
  constructor(private readonly deps: ReconcilerDeps) {}

  async reconcile(key: string): Promise<void> {
    const { heldJobs, jobs, waker, clock, config } = this.deps;
    const { namespace, name } = splitKey(key);
    const heldJob = heldJobs.get(name, namespace);
    if (!heldJob) {
      waker.cancel(key);
      return;
    }
    const log = this.deps.log.child({ heldjob: key });
    const jobName = heldJob.status?.jobName ?? jobNameFor(heldJob.metadata);
    const jobObj = jobs.get(jobName, namespace);
    const owned = jobObj?.metadata?.ownerReferences?.some((o) => o.uid === heldJob.metadata.uid) ?? false;
    const job = jobObj && owned ? this.deps.observeJob(jobObj) : undefined;

    const now = clock.now();
    const actions = decide({ heldJob, job, config }, now);
    let current = heldJob;
    for (const action of actions) {
      switch (action.type) {
        case 'createJob': {
          const check = checkSpec(current.spec);
          if (!check.ok) throw new Error(`spec changed under the decision: ${check.problems.join('; ')}`);
          const result = await this.deps.launcher.create(
            this.deps.buildJob(current, check.spec, action.jobName),
            current.metadata.uid,
          );
          log.info({ job: action.jobName }, result === 'created' ? 'Created Job' : 'Found Job already created');
          break;
        }
        case 'updateStatus': {
          const before = current.status?.phase;
          try {
            current = await this.deps.writer.writeStatus(current, action.status);
          } catch (err) {
            // Someone wrote first; the informer brings the newer object and another pass.
            if (isConflict(err)) {
              log.debug('Status changed underneath; will look again');
              return;
            }
            throw err;
          }
          const phase = action.status.phase;
          if (phase !== before) {
            log.info({ phase, from: before ?? null, reason: action.status.reason || undefined }, `Moved to ${phase}`);
          }
          if (action.event) {
            await this.deps.writer.recordEvent(current, action.event, now).catch((err: unknown) => {
              log.warn({ err }, 'Failed to record event');
            });
          }
          if (isTerminal(phase)) waker.cancel(key);
          break;
        }
        case 'wakeAt':
          waker.schedule(key, action.at);
          log.debug({ at: new Date(action.at).toISOString() }, 'Armed wake');
          break;
        default:
          assertNever(action);
      }
    }
  }
}
