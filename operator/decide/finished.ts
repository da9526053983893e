// The phases that end: a running Job that ended, a terminal HeldJob, a cancel.
import { setCondition } from '../../api/conditions.js';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { iso } from '../../api/time.js';
import { ConditionReason, ConditionType, EventReason, EventType, OPERATOR_CANCEL, Phase } from '../../api/vocabulary.js';
import type { Action } from './actions.js';
import { JobOutcome, type Observed, type ObservedJob } from './observed.js';
import { hasFinalizer, removeFinalizer } from './status.js';

/** The write that records how the Job ended. */
export function finish(status: HeldJobStatus, job: ObservedJob, now: number): Action {
  const succeeded = job.outcome === JobOutcome.Succeeded;
  const phase = succeeded ? Phase.Succeeded : Phase.Failed;
  const message = succeeded ? `Job ${job.name} succeeded` : `Job ${job.name} failed${job.failureReason ? ` (${job.failureReason})` : ''}`;
  return {
    type: 'updateStatus',
    status: {
      ...status,
      phase,
      message,
      finishedAt: iso(now),
      conditions: setCondition(
        status.conditions,
        { type: ConditionType.Finished, status: 'True', reason: succeeded ? ConditionReason.Succeeded : ConditionReason.Failed, message },
        now,
      ),
    },
    event: {
      type: succeeded ? EventType.Normal : EventType.Warning,
      reason: succeeded ? EventReason.Succeeded : EventReason.Failed,
      message,
    },
  };
}

/** Deletion is cancellation: a held one never starts; a running one's Job goes with it. */
export function decideDeleting(o: Observed, now: number): Action[] {
  if (!hasFinalizer(o.heldJob)) return [];
  const status = o.heldJob.status ?? {};
  const actions: Action[] = [];
  if (o.job && o.job.outcome === JobOutcome.Active) {
    const message = `${OPERATOR_CANCEL}: Job ${o.job.name} deleted with its HeldJob`;
    actions.push(
      { type: 'deleteJob', jobName: o.job.name },
      {
        type: 'updateStatus',
        status: {
          ...status,
          message,
          conditions: setCondition(
            status.conditions,
            { type: ConditionType.Finished, status: 'True', reason: ConditionReason.OperatorCancel, message: OPERATOR_CANCEL },
            now,
          ),
        },
        event: { type: EventType.Warning, reason: EventReason.OperatorCancel, message },
      },
    );
  }
  if (o.view.ok) actions.push({ type: 'releaseScope', scopeKey: o.view.scopeKey });
  return [...actions, ...removeFinalizer(o.heldJob)];
}

/** Terminal: only the finalizer may be left to take off. */
export function decideTerminal(o: Observed): Action[] {
  return removeFinalizer(o.heldJob);
}

/** Running: when the Job ends, the scope slots go back and the end is recorded. */
export function decideRunning(o: Observed, now: number): Action[] {
  const { job } = o;
  if (!job || job.outcome === JobOutcome.Active) return [];
  return [
    ...(o.view.ok ? [{ type: 'releaseScope', scopeKey: o.view.scopeKey } as const] : []),
    finish(o.heldJob.status ?? {}, job, now),
    ...removeFinalizer(o.heldJob),
  ];
}
