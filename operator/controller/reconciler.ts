// The executor: for one HeldJob, observe, ask the pure decisions, carry out their actions in
// order. A launch or a check hands its outcome back to a pure function, whose actions are
// carried out in turn. Nothing here decides; every I/O goes through the ports.
import type { Logger } from 'pino';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { boundText } from '../../api/bounded-text.js';
import { assertNever, EventType, isTerminal } from '../../api/vocabulary.js';
import { statusCodeOf } from '../../lib/kube/client.js';
import type { Action, CheckRun, CreateOutcome, EventSpec } from '../decide/actions.js';
import { decide } from '../decide/decide.js';
import { afterCancelRead, decideGone } from '../decide/finished.js';
import { holdEndOf, holdEndOfGone, type HoldEnd } from '../decide/hold-end.js';
import { isOrphanedFence, observeJob } from '../decide/job.js';
import type * as k8s from '@kubernetes/client-node';
import { JobOutcome, type ObservedJob } from '../decide/observed.js';
import { afterCreate, afterDryRun, afterJobRead, afterScope, afterSupersedeRead } from '../decide/launch.js';
import type { DecideConfig, Observed } from '../decide/observed.js';
import { afterCheck } from '../decide/record-check.js';
import { viewOf } from '../decide/view.js';
import type { Clock } from './clock.js';
import { keyOf, splitKey } from './object-key.js';
import type {
  CheckGate,
  GateMetrics,
  HeldJob,
  HeldJobSource,
  HeldJobWriter,
  JobLauncher,
  JobSource,
  Markers,
  ReportSink,
  ScopeSlots,
  Views,
  Waker,
} from './ports.js';

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
  readonly waker: Waker;
  readonly clock: Clock;
  /** A number in [0, 1) for the jitter. */
  readonly random: () => number;
  readonly config: DecideConfig;
  readonly log: Logger;
  /** Takes forge reports to post in the background; unset: nothing is reported. */
  readonly reports?: ReportSink | undefined;
  /** Queues another pass over the key (its lane is lane(key)). */
  readonly requeue: (key: string) => void;
}

/** The work queue's lanes: passes that start work go ahead of passes that only record it. */
export type Lane = 'start' | 'record';

const isConflict = (err: unknown): boolean => statusCodeOf(err) === 409;

/** What carrying out one action left: the HeldJob as now written, or stop this pass. */
type Step =
  | { readonly kind: 'next'; readonly heldJob: HeldJob }
  | { readonly kind: 'stop' }
  | { readonly kind: 'then'; readonly actions: readonly Action[] };
const STOP: Step = { kind: 'stop' };
const next = (heldJob: HeldJob): Step => ({ kind: 'next', heldJob });

/**
 * A check's answer is reused, rather than the script run again, while the write that records it
 * has not landed (the apiserver away, a timeout) and the HeldJob is as it was when the check ran;
 * for this long at most. Memory only: a restart loses at most that one answer.
 */
export const UNWRITTEN_ANSWER_MAX_AGE_MS = 5 * 60_000;

interface UnwrittenAnswer {
  readonly resourceVersion: string | undefined;
  readonly profile: string;
  readonly run: CheckRun;
  readonly at: number;
}

/**
 * How long a HeldJob version this operator wrote over is treated as stale when the informer
 * still hands it out; past this the pass goes ahead on it (a watch that never delivers).
 */
export const STALE_READ_MAX_AGE_MS = 60_000;

export class Reconciler {
  /** Check answers whose record has not been written yet, by HeldJob key. */
  private readonly unwritten = new Map<string, UnwrittenAnswer>();
  /**
   * Versions of each HeldJob this operator has since written over, by key. The informer may
   * still hand one out after the write (its watch lags); a pass on it would decide again from
   * the past (run a check whose answer is already recorded), so it waits for the newer object,
   * which the watch brings with another pass. Resource versions are compared for equality
   * only, as the API conventions require. Memory only: after a restart the cache is fresh.
   */
  private readonly overwritten = new Map<string, { versions: Set<string>; at: number }>();

  /**
   * Jobs this operator created whose creation is not recorded yet, by HeldJob key: the record
   * follows in the record lane, and until the Job informer brings the Job (its watch lags
   * behind the create) the pass sees it from here. Memory only, and only a hint: after a
   * restart the informer's list has the Job, and a create made again meets AlreadyExists.
   */
  private readonly created = new Map<string, { readonly jobName: string; readonly at: number }>();
  /**
   * Jobs whose fence this operator lifted, by HeldJob key, until the informer shows it gone:
   * a pass on a cache that still shows the fence does not lift it a second time. Memory only.
   */
  private readonly unfenced = new Map<string, { readonly jobName: string; readonly at: number }>();

  constructor(private readonly deps: ReconcilerDeps) {}

  /** The lane of the key's next pass: a Job created and not yet recorded is recorded in the lane that yields. */
  lane(key: string): Lane {
    return this.created.has(key) ? 'record' : 'start';
  }

  async reconcile(key: string): Promise<void> {
    try {
      await this.pass(key);
    } finally {
      this.deps.checks.passEnded?.(key);
    }
  }

  private async pass(key: string): Promise<void> {
    const { heldJobs, jobs, waker, clock, config, views, checks } = this.deps;
    const { namespace, name } = splitKey(key);
    const heldJob = heldJobs.get(name, namespace);
    if (!heldJob) {
      waker.cancel(key);
      checks.cancel(key);
      this.unwritten.delete(key);
      this.overwritten.delete(key);
      this.created.delete(key);
      this.unfenced.delete(key);
      return;
    }
    if (this.isStale(key, heldJob)) {
      this.deps.log.debug({ heldjob: key, resourceVersion: heldJob.metadata.resourceVersion }, 'Skipped a version already written over');
      return;
    }
    if (heldJob.metadata.deletionTimestamp) checks.cancel(key);
    const view = viewOf(heldJob);
    const observed: Observed = {
      heldJob,
      view,
      job: this.seenJob(key, observeJob(jobs.get(view.jobName, namespace), heldJob.metadata.uid)) ?? this.createdJob(key, view.jobName),
      lastJob: observeJob(jobs.lastSeen(view.jobName, namespace), heldJob.metadata.uid),
      config,
      profiles: views.profiles(),
      triggers: views.triggers(),
    };
    await this.execute(key, observed, decide(observed, clock.now()), this.deps.log.child({ heldjob: key }));
  }

  /**
   * The HeldJob went (the informer's delete, with what was last seen of it): what it held goes
   * back, and a cancelled running Job is recorded.
   */
  async forget(lastSeen: HeldJob): Promise<void> {
    const { jobs, waker, checks, config, views } = this.deps;
    const key = keyOf(lastSeen.metadata.namespace, lastSeen.metadata.name);
    waker.cancel(key);
    checks.cancel(key);
    this.unwritten.delete(key);
    this.overwritten.delete(key);
    const view = viewOf(lastSeen);
    const observed: Observed = {
      heldJob: lastSeen,
      view,
      job:
        this.seenJob(key, observeJob(jobs.get(view.jobName, lastSeen.metadata.namespace), lastSeen.metadata.uid)) ??
        this.createdJob(key, view.jobName),
      config,
      profiles: views.profiles(),
      triggers: views.triggers(),
    };
    this.created.delete(key);
    this.unfenced.delete(key);
    this.holdEnded(holdEndOfGone(lastSeen, this.deps.clock.now()));
    await this.execute(key, observed, decideGone(observed), this.deps.log.child({ heldjob: key }));
  }

  /**
   * A Job event: a fenced Job being deleted whose HeldJob is gone (a cancel that raced its
   * create, or came while no operator ran) has its fence lifted, so it goes.
   */
  async liftOrphanedFence(job: k8s.V1Job, ownerUidSeen: string | undefined): Promise<void> {
    if (!isOrphanedFence(job, ownerUidSeen)) return;
    const { name, namespace } = job.metadata ?? {};
    if (!name || !namespace) return;
    await this.deps.launcher.unfence(name, namespace);
    this.deps.log.info({ job: `${namespace}/${name}` }, 'Lifted the launch fence of a Job whose HeldJob is gone');
  }

  /** The Job as the informer shows it, without a fence this operator has lifted and the cache still shows. */
  private seenJob(key: string, job: ObservedJob | undefined): ObservedJob | undefined {
    const lifted = this.unfenced.get(key);
    if (!lifted) return job;
    if (!job?.fenced || job.name !== lifted.jobName || this.deps.clock.now() - lifted.at > STALE_READ_MAX_AGE_MS) {
      this.unfenced.delete(key);
      return job;
    }
    return { ...job, fenced: false };
  }

  /**
   * The Job this operator created for the key, as the decisions see a Job that is there, while
   * the informer has not brought it: active, and fenced (it was created with the fence). Once
   * the informer has it, or after STALE_READ_MAX_AGE_MS (a watch that never delivers: the next
   * create meets AlreadyExists), the hint goes.
   */
  private createdJob(key: string, jobName: string): ObservedJob | undefined {
    const hint = this.created.get(key);
    if (!hint) return undefined;
    if (hint.jobName !== jobName || this.deps.clock.now() - hint.at > STALE_READ_MAX_AGE_MS) {
      this.created.delete(key);
      return undefined;
    }
    return { name: hint.jobName, outcome: JobOutcome.Active, fenced: true };
  }

  private async execute(key: string, observed: Observed, actions: readonly Action[], log: Logger): Promise<void> {
    let current: HeldJob = observed.heldJob;
    for (const action of actions) {
      const step = await this.perform(key, current, observed, action, log);
      switch (step.kind) {
        case 'next':
          current = step.heldJob;
          continue;
        case 'stop':
          return;
        case 'then':
          return this.execute(key, { ...observed, heldJob: current }, step.actions, log);
        default:
          return assertNever(step);
      }
    }
  }

  private async perform(key: string, current: HeldJob, observed: Observed, action: Action, log: Logger): Promise<Step> {
    const { deps } = this;
    const uid = current.metadata.uid;
    switch (action.type) {
      case 'setFinalizers':
        try {
          const patched = await deps.writer.setFinalizers(current, action.finalizers);
          this.wroteOver(current);
          this.holdEnded(holdEndOf(current, patched, deps.clock.now()));
          return next(patched);
        } catch (err) {
          if (isConflict(err)) return STOP;
          throw err;
        }
      case 'acquireScope': {
        if (!observed.view.ok) return STOP;
        const outcome = await deps.scope.acquire(action.scopeKey, uid);
        if (outcome !== 'acquired') deps.metrics.scopeDeferred();
        if (outcome === 'unavailable') log.warn('Deferred launch: Valkey is unavailable for the scope slots');
        return { kind: 'then', actions: afterScope(observed.view, action.ready, action.job, outcome, deps.clock.now()) };
      }
      case 'createJob': {
        if (!observed.view.ok) return STOP;
        // The place becomes the launched hold's, not a lease's, beside the create (not before
        // it). Should Valkey be away, the renewal sweep holds it at its next turn (within a
        // quarter lease); a create that fails gives it back.
        const held = deps.scope.hold(action.scopeKey, uid).catch((err: unknown) => {
          log.warn({ err }, 'Failed to hold the scope place of the launch; the renewal sweep holds it');
        });
        const [, outcome] = await Promise.all([held, deps.launcher.create(action.job, uid)]);
        this.logCreate(outcome, action.job.metadata?.name, log);
        const ready = { view: observed.view, heldJob: current };
        return { kind: 'then', actions: afterCreate(ready, current.status ?? {}, action.ready, outcome, deps.clock.now()) };
      }
      case 'dryRunJob': {
        if (!observed.view.ok) return STOP;
        const outcome = await deps.launcher.dryRun(action.job, action.reuseKey);
        if (outcome.kind === 'invalid')
          log.warn({ code: outcome.code ?? null, message: boundText(outcome.message) }, 'Found the job invalid');
        return { kind: 'then', actions: afterDryRun({ view: observed.view, heldJob: current }, action.then, outcome, deps.clock.now()) };
      }
      case 'readJob': {
        const read = await deps.launcher.read(action.jobName, current.metadata.namespace, uid);
        if (read.kind === 'gone') log.warn({ job: action.jobName }, 'Found the Job gone');
        return { kind: 'then', actions: afterJobRead({ ...observed, heldJob: current }, read, deps.clock.now()) };
      }
      case 'readJobToCancel': {
        const read = await deps.launcher.read(action.jobName, current.metadata.namespace, uid);
        if (read.kind === 'present') log.info({ job: action.jobName }, 'Found the Job of a cancelled HeldJob the informer had not seen');
        if (read.kind === 'unknown')
          log.warn({ job: action.jobName, message: boundText(read.message) }, 'Failed to read the Job before a cancel');
        return { kind: 'then', actions: afterCancelRead({ ...observed, heldJob: current }, read, deps.clock.now()) };
      }
      case 'readJobToSupersede': {
        const read = await deps.launcher.read(action.jobName, current.metadata.namespace, uid);
        if (read.kind === 'present') log.info({ job: action.jobName, by: action.by }, 'Found the Job of a superseded hold; it runs');
        if (read.kind === 'unknown')
          log.warn({ job: action.jobName, message: boundText(read.message) }, 'Failed to read the Job of a superseded hold');
        return { kind: 'then', actions: afterSupersedeRead({ ...observed, heldJob: current }, read, action.by, deps.clock.now()) };
      }
      case 'recordLater':
        this.created.set(key, { jobName: action.jobName, at: deps.clock.now() });
        deps.requeue(key);
        return STOP;
      case 'unfenceJob':
        await deps.launcher.unfence(action.jobName, current.metadata.namespace);
        this.created.delete(key);
        this.unfenced.set(key, { jobName: action.jobName, at: deps.clock.now() });
        return next(current);
      case 'releaseScope':
        await deps.scope.release(action.scopeKey, uid, action.ended).catch((err: unknown) => {
          log.warn({ err }, 'Failed to release scope slots; their leases expire by themselves');
        });
        return next(current);
      case 'deleteJob':
        await deps.launcher.delete(action.jobName, current.metadata.namespace);
        log.info({ job: action.jobName }, 'Deleted Job of a cancelled HeldJob');
        return next(current);
      case 'deleteHeldJob':
        try {
          await deps.writer.delete(current);
        } catch (err) {
          if (isConflict(err)) return STOP;
          throw err;
        }
        log.info({ finishedAt: current.status?.finishedAt, ttlMs: action.finishedTtlMs }, 'Deleted finished HeldJob');
        return STOP;
      case 'leaveMarker':
        await deps.markers.leave(action.trigger, action.target, current.metadata.name).catch((err: unknown) => {
          log.warn({ err }, 'Failed to leave the superseded marker');
        });
        return next(current);
      case 'event':
        this.logWarning(action.event, log);
        await this.recordEvent(current, action.event, log);
        return next(current);
      case 'observeAfterLateness':
        deps.metrics.afterLateness(action.ms);
        return next(current);
      case 'wakeAt':
        deps.waker.schedule(key, action.at);
        return next(current);
      case 'report':
        deps.reports?.submit(action.report);
        return next(current);
      case 'updateStatus': {
        const written = await this.writeStatus(current, action.status, log);
        if (!written) return STOP;
        this.unwritten.delete(key);
        // A move of phase is logged with its message (writeStatus); a warning said without one, here.
        if (action.event && action.status.phase === current.status?.phase) this.logWarning(action.event, log);
        if (action.event) await this.recordEvent(written, action.event, log);
        if (action.refusal) deps.metrics.refused(action.refusal);
        this.holdEnded(holdEndOf(current, written, deps.clock.now()));
        if (isTerminal(action.status.phase)) deps.waker.cancel(key);
        return next(written);
      }
      case 'runCheck': {
        if (!observed.view.ok) return STOP;
        const now = deps.clock.now();
        const kept = this.unwritten.get(key);
        const reused =
          kept &&
          kept.resourceVersion === current.metadata.resourceVersion &&
          kept.profile === action.profile.name &&
          now - kept.at <= UNWRITTEN_ANSWER_MAX_AGE_MS
            ? kept.run
            : undefined;
        if (reused) log.debug({ profile: action.profile.name }, 'Reused a check answer not yet recorded');
        const run = reused ?? (await deps.checks.run(key, action.profile, action.target));
        if (!reused) {
          this.logCheck(run, log);
          // Only an answer is worth keeping: a denied or unavailable slot is asked for again.
          if (run.kind === 'answered')
            this.unwritten.set(key, { resourceVersion: current.metadata.resourceVersion, profile: action.profile.name, run, at: now });
        }
        return {
          kind: 'then',
          actions: afterCheck(observed.view, current, deps.config, run, deps.clock.now(), deps.random(), action.basis),
        };
      }
      default:
        return assertNever(action);
    }
  }

  private holdEnded(end: HoldEnd | undefined): void {
    if (end) this.deps.metrics.holdEnded(end.outcome, end.seconds);
  }

  private logCreate(outcome: CreateOutcome, job: string | undefined, log: Logger): void {
    switch (outcome.kind) {
      case 'created':
        log.info({ job }, 'Created Job');
        return;
      case 'existed':
        log.info({ job }, 'Found Job already created');
        return;
      case 'nameTaken':
        log.warn({ job }, 'Found the Job name taken by another owner');
        return;
      case 'createFailed':
        log.warn({ job, code: outcome.code ?? null, message: boundText(outcome.message) }, 'Failed to create Job');
        return;
      default:
        return assertNever(outcome);
    }
  }

  private logCheck(run: CheckRun, log: Logger): void {
    if (run.kind !== 'answered') return;
    log.info({ profile: run.result.profile, verdict: run.result.verdict, exitCode: run.result.exitCode ?? null }, 'Checked profile');
  }

  /** Someone wrote first (409): undefined, and the informer brings the newer object and another pass. */
  private async writeStatus(current: HeldJob, status: HeldJobStatus, log: Logger): Promise<HeldJob | undefined> {
    const before = current.status?.phase;
    let written: HeldJob;
    try {
      written = await this.deps.writer.writeStatus(current, status);
      this.wroteOver(current);
    } catch (err) {
      if (isConflict(err)) {
        log.debug('Status changed underneath; will look again');
        return undefined;
      }
      throw err;
    }
    if (status.phase !== before) {
      log.info(
        { phase: status.phase, from: before ?? null, reason: status.reason || undefined, message: status.message },
        `Moved to ${status.phase}`,
      );
    }
    return written;
  }

  /** Notes that `read` was written over (a status write or a patch landed on it). */
  private wroteOver(read: HeldJob): void {
    const key = keyOf(read.metadata.namespace, read.metadata.name);
    const rv = read.metadata.resourceVersion;
    if (!rv) return;
    const entry = this.overwritten.get(key);
    if (entry) {
      entry.versions.add(rv);
      entry.at = this.deps.clock.now();
    } else this.overwritten.set(key, { versions: new Set([rv]), at: this.deps.clock.now() });
  }

  /** Whether the informer handed out a version this operator has written over. */
  private isStale(key: string, heldJob: HeldJob): boolean {
    const entry = this.overwritten.get(key);
    if (!entry) return false;
    const rv = heldJob.metadata.resourceVersion;
    if (rv && entry.versions.has(rv) && this.deps.clock.now() - entry.at <= STALE_READ_MAX_AGE_MS) return true;
    // A version not written over: the cache has caught up (or moved past), nothing to wait for.
    this.overwritten.delete(key);
    return false;
  }

  /** A Warning Event goes to the log too, bounded as the Event is: whoever reads the logs sees what the HeldJob says. */
  private logWarning(event: EventSpec, log: Logger): void {
    if (event.type !== EventType.Warning) return;
    log.warn({ event: event.reason, message: boundText(event.message) }, `Said ${event.reason}`);
  }

  private async recordEvent(heldJob: HeldJob, event: EventSpec, log: Logger): Promise<void> {
    await this.deps.writer.recordEvent(heldJob, event, this.deps.clock.now()).catch((err: unknown) => {
      log.warn({ err }, 'Failed to record event');
    });
  }
}
