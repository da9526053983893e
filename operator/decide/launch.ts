// The launch: what follows from its outcome. Pure, like decide().
import { findCondition, setCondition } from '../../api/conditions.js';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { SCOPE_RETRY_MS } from '../../api/cadence.js';
import { iso } from '../../api/time.js';
import { assertNever, ConditionReason, ConditionType, EventReason, EventType, Phase } from '../../api/vocabulary.js';
import type { Action, LaunchOutcome } from './actions.js';
import { finish } from './finished.js';
import { JobOutcome, type ObservedJob } from './observed.js';
import { stopWaiting, writeIfChanged } from './status.js';
import type { HeldJobView } from './view.js';

/** A create that got no answer, or one that asks to be tried again, is tried again after this. */
export const LAUNCH_RETRY_MS = 10_000;

type ReadyView = Extract<HeldJobView, { ok: true }>;

/** The status that says the Job was created: Running, WAITED stopped. */
export function runningStatus(ready: HeldJobStatus, jobName: string, now: number): HeldJobStatus {
  const released = stopWaiting(ready, now, ConditionReason.Cleared);
  return {
    ...released,
    phase: Phase.Running,
    jobName,
    launchedAt: ready.launchedAt ?? iso(now),
    conditions: setCondition(
      released.conditions,
      { type: ConditionType.Launched, status: 'True', reason: ConditionReason.JobCreated, message: `created Job ${jobName}` },
      now,
    ),
  };
}

/** Launched before a restart but not recorded: the Job's existence tells. */
export function adoptLaunched(view: ReadyView, ready: HeldJobStatus, job: ObservedJob, now: number): Action[] {
  const running = runningStatus(ready, view.jobName, now);
  // Already over: record both in one write.
  if (job.outcome !== JobOutcome.Active) return [{ type: 'releaseScope', scopeKey: view.scopeKey }, finish(running, job, now)];
  return [
    {
      type: 'updateStatus',
      status: running,
      event: { type: EventType.Normal, reason: EventReason.Launched, message: `Created Job ${view.jobName}` },
    },
  ];
}

/** Whether an apiserver error may go away by itself (no answer, a timeout, 429, 5xx). */
export function isTransient(code: number | undefined): boolean {
  return code === undefined || code === 408 || code === 429 || code >= 500;
}

/** What follows a launch: Running, queued for a scope slot, tried again, or the hold's end. */
export function afterLaunch(view: ReadyView, ready: HeldJobStatus, outcome: LaunchOutcome, now: number): Action[] {
  switch (outcome.kind) {
    case 'created':
    case 'existed':
      return [
        { type: 'leaveMarker', trigger: view.spec.trigger, target: view.spec.target },
        {
          type: 'updateStatus',
          status: runningStatus(ready, view.jobName, now),
          event: { type: EventType.Normal, reason: EventReason.Launched, message: `Created Job ${view.jobName}` },
        },
      ];
    case 'scopeFull':
    case 'scopeUnavailable': {
      // Said once: a queued hold is not rewritten on every look.
      const queued = findCondition(ready.conditions, ConditionType.Waiting)?.reason === ConditionReason.ScopeQueued;
      const next: HeldJobStatus = {
        ...ready,
        conditions: setCondition(
          ready.conditions,
          {
            type: ConditionType.Waiting,
            status: 'True',
            reason: ConditionReason.ScopeQueued,
            message: 'every condition cleared; waiting for a scope slot',
          },
          now,
        ),
      };
      return [...(queued ? [] : writeIfChanged(ready, next)), { type: 'wakeAt', at: now + SCOPE_RETRY_MS }];
    }
    case 'createFailed':
    case 'nameTaken':
      // Nothing stays taken while the create waits to be tried again.
      return [
        { type: 'releaseScope', scopeKey: view.scopeKey },
        { type: 'wakeAt', at: now + LAUNCH_RETRY_MS },
      ];
    default:
      return assertNever(outcome);
  }
}
