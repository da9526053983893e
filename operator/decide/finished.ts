// The phases that end: a running Job that ended, a terminal HeldJob, a cancel.
import { setCondition } from '../../api/conditions.js';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { iso } from '../../api/time.js';
import { ConditionReason, ConditionType, EventReason, EventType, OPERATOR_CANCEL, Phase } from '../../api/vocabulary.js';
import type { Action } from './actions.js';
import { JobOutcome, type Observed, type ObservedJob } from './observed.js';
import { decideRetention } from './finished-ttl.js';
import { adoptLaunched, isLaunchConfirmed } from './launch.js';
import { hasFinalizer, observeGeneration, removeFinalizer, updateStatus } from './status.js';

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

/** Deletion is cancellation: a held one never starts; a running one's Job goes with it. */
export function decideDeleting(o: Observed, now: number): Action[] {
  if (!hasFinalizer(o.heldJob)) return [];
  const status = o.heldJob.status ?? {};
  const actions: Action[] = [];
  if (o.job && o.job.outcome === JobOutcome.Active) {
    const message = `${OPERATOR_CANCEL}: Job ${o.job.name} deleted with its HeldJob`;
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
    actions.push(
      ...unfence(o.job),
      { type: 'deleteJob', jobName: o.job.name },
      updateStatus(cancelled, now, o.view.generation, { event: { type: EventType.Warning, reason: EventReason.OperatorCancel, message } }),
    );
  }
  if (o.view.ok) actions.push({ type: 'releaseScope', scopeKey: o.view.scopeKey });
  return [...actions, ...removeFinalizer(o.heldJob)];
}

/**
 * Terminal: the finalizers (its own, its Job's launch fence) may be left to take off; then it
 * is kept until its time to live is up (decideRetention). A spec edited after the end is
 * observed (its generation recorded), and nothing else.
 */
export function decideTerminal(o: Observed, now: number): Action[] {
  return [
    ...observeGeneration(o.heldJob.status ?? {}, now, o.view.generation),
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
 * the scope slots back (decideGone).
 */
export function decideRunning(o: Observed, now: number): Action[] {
  const { job, view } = o;
  if (!view.ok) return [];
  const status = o.heldJob.status ?? {};
  // Not in the informer: ask the apiserver before calling it gone (afterJobRead).
  if (!job) return [{ type: 'readJob', jobName: status.jobName ?? view.jobName }];
  // Created before a restart, or before the informer brought it: recorded now.
  if (!isLaunchConfirmed(status)) return adoptLaunched(view, status, job, now);
  if (job.outcome === JobOutcome.Active) {
    return [...observeGeneration(status, now, view.generation), ...unfence(job), ...removeFinalizer(o.heldJob)];
  }
  return [
    { type: 'releaseScope', scopeKey: view.scopeKey },
    finish(status, job, now, view.generation),
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
  if (!o.view.ok) return [];
  const actions: Action[] = [{ type: 'releaseScope', scopeKey: o.view.scopeKey }];
  if (o.heldJob.status?.phase === Phase.Running && o.job?.outcome === JobOutcome.Active && !o.heldJob.metadata.deletionTimestamp) {
    // A deletion the operator handled under the finalizer said so already (decideDeleting).
    actions.push({
      type: 'event',
      event: {
        type: EventType.Warning,
        reason: EventReason.OperatorCancel,
        message: `${OPERATOR_CANCEL}: Job ${o.job.name} deleted with its HeldJob`,
      },
    });
  }
  // The garbage collector deletes its Job; a fence left on it would hold the Job there.
  return [...actions, ...unfence(o.job)];
}
