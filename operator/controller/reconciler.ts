// Carries out, for one HeldJob, what decide() returns. All I/O sits behind the small
// interfaces below; the decision itself stays pure.
import type * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { checkSpec, type HeldJobObject, type HeldJobSpec, type HeldJobStatus } from '../../api/heldjob-schema.js';
import type { Profile } from '../../api/profiles.js';
import { jobNameFor } from '../../api/job-name.js';
import { assertNever, ConditionType, FINALIZER, isTerminal, type RefusalToken } from '../../api/vocabulary.js';
import type { Action, EventSpec } from '../decide/actions.js';
import { decide, type DecideConfig, type Observed, type ObservedJob, type ProfilesView, type TriggersView } from '../decide/decide.js';
import { recordCheck, type CheckResult } from '../decide/record-check.js';
import { SCOPE_RETRY_MS, slotDeniedDelayMs } from '../../api/cadence.js';
import { statusCodeOf } from '../../lib/kube/client.js';
import type { Clock } from './clock.js';
import type { CheckGate, GateMetrics, HeldJob, HeldJobSource, HeldJobWriter, JobLauncher, JobSource, Markers, ScopeSlots, Views, Waker } from './ports.js';

export interface ReconcilerDeps {
  readonly heldJobs: HeldJobSource;
  readonly jobs: JobSource;
  readonly writer: HeldJobWriter;
  readonly launcher: JobLauncher;
  readonly scope: ScopeSlots;
  readonly checks: CheckGate;
  readonly markers: Markers;
  readonly views: Views;
  readonly metrics: GateMetrics;
  readonly buildJob: (heldJob: HeldJobObject, spec: HeldJobSpec, jobName: string) => k8s.V1Job;
  readonly observeJob: (job: k8s.V1Job) => ObservedJob;
  readonly waker: Waker;
  readonly clock: Clock;
  /** A number in [0, 1) for the jitter. */
  readonly random: () => number;
  readonly config: DecideConfig;
  readonly log: Logger;
}

export const keyOf = (namespace: string, name: string): string => `${namespace}/${name}`;

export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

const isConflict = (err: unknown): boolean => statusCodeOf(err) === 409;

const STOP = Symbol('stop');

export class Reconciler {
  constructor(private readonly deps: ReconcilerDeps) {}

  async reconcile(key: string): Promise<void> {
    const { heldJobs, jobs, waker, clock, config, views } = this.deps;
    const { namespace, name } = splitKey(key);
    const heldJob = heldJobs.get(name, namespace);
    if (!heldJob) {
      waker.cancel(key);
      this.deps.checks.cancel(key);
      return;
    }
    if (heldJob.metadata.deletionTimestamp) this.deps.checks.cancel(key);
    const log = this.deps.log.child({ heldjob: key });
    const jobName = heldJob.status?.jobName ?? jobNameFor(heldJob.metadata);
    const jobObj = jobs.get(jobName, namespace);
    const owned = jobObj?.metadata?.ownerReferences?.some((o) => o.uid === heldJob.metadata.uid) ?? false;
    const job = jobObj && owned ? this.deps.observeJob(jobObj) : undefined;

    const observed: Observed = { heldJob, job, config, profiles: views.profiles(), triggers: views.triggers() };
    const actions = decide(observed, clock.now());
    await this.execute(key, heldJob, actions, log);
  }

  private async execute(key: string, start: HeldJob, actions: readonly Action[], log: Logger): Promise<void> {
    let current = start;
    for (const action of actions) {
      const r = await this.one(key, current, action, log);
      if (r === STOP) return;
      current = r;
    }
  }

  private async one(key: string, current: HeldJob, action: Action, log: Logger): Promise<HeldJob | typeof STOP> {
    const { deps } = this;
    const uid = current.metadata.uid;
    switch (action.type) {
      case 'addFinalizer':
      case 'removeFinalizer': {
        const have = current.metadata.finalizers ?? [];
        const want = action.type === 'addFinalizer' ? [...new Set([...have, FINALIZER])] : have.filter((f) => f !== FINALIZER);
        if (want.length === have.length && want.every((f, i) => f === have[i])) return current;
        try {
          return await deps.writer.setFinalizers(current, want);
        } catch (err) {
          if (isConflict(err)) return STOP;
          throw err;
        }
      }
      case 'launch': {
        const r = await deps.scope.acquire(action.scopeKey, uid);
        if (r !== 'acquired') {
          deps.metrics.scopeDeferred();
          const waiting = current.status?.conditions?.find((c) => c.type === ConditionType.Waiting);
          if (waiting?.reason !== 'ScopeQueued') {
            await this.writeStatus(current, action.queuedStatus, undefined, log).catch(() => undefined);
          }
          if (r === 'unavailable') log.warn('Deferred launch: Valkey is unavailable for the scope slots');
          deps.waker.schedule(key, deps.clock.now() + SCOPE_RETRY_MS);
          return STOP;
        }
        const check = checkSpec(current.spec);
        if (!check.ok) throw new Error(`spec changed under the decision: ${check.problems.join('; ')}`);
        const result = await deps.launcher.create(deps.buildJob(current, check.spec, action.jobName), uid);
        log.info({ job: action.jobName }, result === 'created' ? 'Created Job' : 'Found Job already created');
        return current;
      }
      case 'releaseScope':
        await deps.scope.release(action.scopeKey, uid).catch((err: unknown) => {
          log.warn({ err }, 'Failed to release scope slots; their leases expire by themselves');
        });
        return current;
      case 'deleteJob':
        await deps.launcher.delete(action.jobName, current.metadata.namespace);
        log.info({ job: action.jobName }, 'Deleted Job of a cancelled HeldJob');
        return current;
      case 'leaveMarker':
        await deps.markers.leave(action.trigger, action.target, current.metadata.name).catch((err: unknown) => {
          log.warn({ err }, 'Failed to leave the superseded marker');
        });
        return current;
      case 'event':
        await deps.writer.recordEvent(current, action.event, deps.clock.now()).catch((err: unknown) => {
          log.warn({ err }, 'Failed to record event');
        });
        return current;
      case 'observeAfterLateness':
        deps.metrics.afterLateness(action.ms);
        return current;
      case 'wakeAt':
        deps.waker.schedule(key, action.at);
        return current;
      case 'updateStatus': {
        const next = await this.writeStatus(current, action.status, action.event, log);
        if (next === STOP) return STOP;
        if (action.refusal) deps.metrics.refused(action.refusal);
        if (isTerminal(action.status.phase)) deps.waker.cancel(key);
        return next;
      }
      case 'runCheck': {
        const run = await deps.checks.run(key, action.profile, action.target);
        const now = deps.clock.now();
        switch (run.kind) {
          case 'denied':
          case 'unavailable': {
            const at = now + slotDeniedDelayMs(current.status?.checks ?? 0, deps.config.intervalMs);
            deps.waker.schedule(key, at);
            return STOP;
          }
          case 'cancelled':
            return STOP;
          case 'answered':
            log.info({ profile: run.result.profile, verdict: run.result.verdict, exitCode: run.result.exitCode ?? null }, 'Checked profile');
            await this.execute(key, current, recordCheck(current, deps.config, run.result, now, deps.random()), log);
            return STOP;
          default:
            return assertNever(run);
        }
      }
      default:
        return assertNever(action);
    }
  }

  private async writeStatus(current: HeldJob, status: HeldJobStatus, event: EventSpec | undefined, log: Logger): Promise<HeldJob | typeof STOP> {
    const before = current.status?.phase;
    let next: HeldJob;
    try {
      next = await this.deps.writer.writeStatus(current, status);
    } catch (err) {
      // Someone wrote first; the informer brings the newer object and another pass.
      if (isConflict(err)) {
        log.debug('Status changed underneath; will look again');
        return STOP;
      }
      throw err;
    }
    if (status.phase !== before) {
      log.info({ phase: status.phase, from: before ?? null, reason: status.reason || undefined }, `Moved to ${status.phase}`);
    }
    if (event) {
      await this.deps.writer.recordEvent(next, event, this.deps.clock.now()).catch((err: unknown) => {
        log.warn({ err }, 'Failed to record event');
      });
    }
    return next;
  }
}
