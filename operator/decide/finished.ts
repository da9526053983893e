// The phases that end: a running Job that ended, a terminal HeldJob, a cancel.
//
// None of them needs the spec. A launched hold follows its Job to the end and gives its place
// back under the scope recorded at its launch, so a spec changed after the launch (even into
// one that no longer passes its check: the CRD keeps unknown fields) changes nothing but its
// generation, and that is said once, in a Warning Event.
import { cancelledByText } from '../../api/approval.js';
import { findCondition, setCondition } from '../../api/conditions.js';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { iso } from '../../api/time.js';
import {
  assertNever,
  ConditionReason,
  ConditionType,
  EventReason,
  EventType,
  isTerminal,
  OPERATOR_CANCEL,
  Phase,
} from '../../api/vocabulary.js';
import type { Action, EventSpec, JobRead } from './actions.js';
import { JobOutcome, type Observed, type ObservedJob } from './observed.js';
import { decideRetention } from './finished-ttl.js';
import { adoptLaunched, isLaunchConfirmed } from './launch.js';
import { giveBackScope, hasFinalizer, observeGeneration, removeFinalizer, updateStatus } from './status.js';
import type { HeldJobView } from './view.js';

/** The write that records how the Job ended. */
export function finish(status: HeldJobStatus, job: ObservedJob, now: number, generation: number | undefined): Action {
  const succeeded = job.outcome === JobOutcome.Succeeded;
  const phase = succeeded ? Phase.Succeeded : Phase.Failed;
  const message = succeeded ? `Job ${job.name} succeeded` : `Job ${job.name} failed${job.failureReason ? ` (${job.failureReason})` : ''}`;
  const ended: HeldJobStatus = {
    ...status,
    phase,
    message,
    finishedAt: iso(now),
    conditions: setCondition(
      status.conditions,
      { type: ConditionType.Finished, status: 'True', reason: succeeded ? ConditionReason.Succeeded : ConditionReason.Failed, message },
      now,
      generation,
    ),
  };
  return updateStatus(ended, now, generation, {
    event: {
      type: succeeded ? EventType.Normal : EventType.Warning,
      reason: succeeded ? EventReason.Succeeded : EventReason.Failed,
      message,
    },
  });
}

/** A read of the Job before a cancel that got no answer is tried again after this; the finalizer stays meanwhile. */
export const CANCEL_READ_AGAIN_MS = 5_000;

/**
 * Whether the hold may have created its Job: its launch is recorded (Running, a Launched
 * condition), or a create was tried whose answer was lost and may have landed (LaunchRetrying).
 */
export function mayHaveLaunched(status: HeldJobStatus): boolean {
  if (isTerminal(status.phase)) return false;
  if (status.phase === Phase.Running || findCondition(status.conditions, ConditionType.Launched)) return true;
  return findCondition(status.conditions, ConditionType.Waiting)?.reason === ConditionReason.LaunchRetrying;
}

/**
 * Deletion is cancellation: a held one never starts; a running one's Job goes with it. A hold
 * that may have created a Job the informer does not have (its watch lags behind the create)
 * asks the apiserver first (readJobToCancel, then afterCancelRead): the finalizer never comes
 * off on the cache's word alone, or a Job created just before the cancel would run on.
 */
export function decideDeleting(o: Observed, now: number): Action[] {
  if (!hasFinalizer(o.heldJob)) return [];
  const status = o.heldJob.status ?? {};
  if (o.job && o.job.outcome === JobOutcome.Active) return cancelJob(o, o.job.name, o.job.fenced ?? false, now);
  if (!o.job && mayHaveLaunched(status)) return [{ type: 'readJobToCancel', jobName: status.jobName ?? o.view.jobName }];
  return [...giveBackScope(o.view), ...removeFinalizer(o.heldJob)];
}

/** What follows the apiserver's answer on the Job of a hold being deleted (decideDeleting). */
export function afterCancelRead(o: Observed, read: JobRead, now: number): Action[] {
  const jobName = o.heldJob.status?.jobName ?? o.view.jobName;
  switch (read.kind) {
    case 'present':
      // Whether it still carries the launch fence is not known: taking it off is harmless.
      return cancelJob(o, jobName, true, now);
    case 'gone':
      return [...giveBackScope(o.view), ...removeFinalizer(o.heldJob)];
    case 'unknown':
      return [{ type: 'wakeAt', at: now + CANCEL_READ_AGAIN_MS }];
    default:
      return assertNever(read);
  }
}

/** The cancel of a hold whose Job is there: the fence off, the Job deleted, the cancel recorded, then the finalizer off. */
function cancelJob(o: Observed, jobName: string, fenced: boolean, now: number): Action[] {
  const status = o.heldJob.status ?? {};
  // Who: the waitgate.dev/cancelled-by that waitgate cancel writes before its delete, if any.
  const message = `${OPERATOR_CANCEL}: Job ${jobName} deleted with its HeldJob (${cancelledByText(o.heldJob.metadata.annotations)})`;
  const cancelled: HeldJobStatus = {
    ...status,
    message,
    conditions: setCondition(
      status.conditions,
      { type: ConditionType.Finished, status: 'True', reason: ConditionReason.OperatorCancel, message: OPERATOR_CANCEL },
      now,
      o.view.generation,
    ),
  };
  return [
    ...(fenced ? [{ type: 'unfenceJob' as const, jobName }] : []),
    { type: 'deleteJob', jobName },
    updateStatus(cancelled, now, o.view.generation, { event: { type: EventType.Warning, reason: EventReason.OperatorCancel, message } }),
    ...giveBackScope(o.view),
    ...removeFinalizer(o.heldJob),
  ];
}

/**
 * What to say of a spec changed since the status was last written, once the hold has
 * launched (`after` launch) or ended: nothing follows from it. Undefined when nothing changed.
 */
export function specChangeNotice(view: HeldJobView, status: HeldJobStatus, after: 'launch' | 'end'): EventSpec | undefined {
  const { generation } = view;
  const seen = status.observedGeneration;
  if (generation === undefined || seen === undefined || seen === generation) return undefined;
  const unreadable = view.ok ? '' : ` and no longer reads (${view.problem})`;
  const message =
    after === 'launch'
      ? `the spec changed after the launch (generation ${String(generation)})${unreadable}; the Job runs as launched, and the change is ignored`
      : `the spec changed after the hold ended (generation ${String(generation)})${unreadable}; nothing follows from it`;
  return { type: EventType.Warning, reason: EventReason.SpecChangeIgnored, message };
}

/**
 * Terminal: the finalizers (its own, its Job's launch fence) may be left to take off; then it
 * is kept until its time to live is up (decideRetention). A spec edited after the end is
 * observed (its generation recorded) and said, and nothing else.
 */
export function decideTerminal(o: Observed, now: number): Action[] {
  const status = o.heldJob.status ?? {};
  return [
    ...observeGeneration(status, now, o.view.generation, specChangeNotice(o.view, status, 'end')),
    ...unfence(o.job),
    ...removeFinalizer(o.heldJob),
    ...decideRetention(o, now),
  ];
}

/** The launch fence off a Job that carries it (the launch is recorded; the Job may go). */
export function unfence(job: ObservedJob | undefined): Action[] {
  return job?.fenced ? [{ type: 'unfenceJob', jobName: job.name }] : [];
}

/**
 * Running: when the Job ends, the scope slots go back and the end is recorded. While it runs
 * the HeldJob carries no finalizer: deleted with no operator about, it goes at once and the
 * garbage collector deletes its Job (the owner reference); an operator that sees it go gives
 * the scope slots back (decideGone). Nothing here reads the spec: the Job runs as launched.
 */
export function decideRunning(o: Observed, now: number): Action[] {
  const { job, view } = o;
  const status = o.heldJob.status ?? {};
  // Not in the informer: ask the apiserver before calling it gone (afterJobRead).
  if (!job) return [{ type: 'readJob', jobName: status.jobName ?? view.jobName }];
  // Created before a restart, or before the informer brought it: recorded now.
  if (!isLaunchConfirmed(status)) return adoptLaunched(view, status, job, now);
  const notice = specChangeNotice(view, status, 'launch');
  if (job.outcome === JobOutcome.Active) {
    return [...observeGeneration(status, now, view.generation, notice), ...unfence(job), ...removeFinalizer(o.heldJob)];
  }
  return [
    ...giveBackScope(view),
    finish(status, job, now, view.generation),
    ...(notice ? [{ type: 'event' as const, event: notice }] : []),
    ...unfence(job),
    ...removeFinalizer(o.heldJob),
  ];
}

/**
 * The HeldJob is gone (the informer's delete; `o` is what was last seen of it). Whatever it
 * held goes back; a running Job was cancelled with it (the garbage collector deletes the Job),
 * and that is said once, in an Event.
 */
export function decideGone(o: Observed): Action[] {
  const actions: Action[] = giveBackScope(o.view);
  const status = o.heldJob.status ?? {};
  const job = o.job;
  if (job?.outcome === JobOutcome.Active && !o.heldJob.metadata.deletionTimestamp) {
    // A deletion the operator handled under the finalizer said so already (decideDeleting).
    actions.push({
      type: 'event',
      event: {
        type: EventType.Warning,
        reason: EventReason.OperatorCancel,
        message: `${OPERATOR_CANCEL}: Job ${job.name} deleted with its HeldJob (${cancelledByText(o.heldJob.metadata.annotations)})`,
      },
    });
    // A Job created and not yet recorded (the cancel met the launch): deleted now rather than
    // left to the garbage collector, so it starts as little as can be.
    if (!isLaunchConfirmed(status)) actions.push({ type: 'deleteJob', jobName: job.name });
  }
  // The garbage collector deletes its Job; a fence left on it would hold the Job there.
  return [...actions, ...unfence(job)];
}
