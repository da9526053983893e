// The launch, and what follows from each outcome. Pure, like decide().
//
// At the instant, nothing is written before the Job exists: the scope place is taken
// (acquireScope → afterScope) and the Job created (createJob → afterCreate). Its record
// (Running, Launched, the Event, the fence off) follows in a pass of its own (recordLater), in
// the lane that yields to launches. Exactly once holds without a record ahead of the create:
// the Job's name is derived from the HeldJob (a second create meets AlreadyExists), and the Job
// is created with a finalizer (JOB_LAUNCH_FINALIZER) that comes off only once its creation is
// recorded, so a Job cannot come and go unseen between the create and that record. A hold
// whose creation is recorded (Launched True) and whose Job is gone ends JobMissing: it is
// never launched again. A hold whose only condition left is an instant is armed ahead of it
// (Launched Unknown, Armed, in the write that records its hold), so what it will do is read
// before the instant and the instant costs no write of its own.
import { findCondition, setCondition } from '../../api/conditions.js';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { isTransient } from '../../api/apiserver-answers.js';
import { SCOPE_RETRY_MS } from '../../api/cadence.js';
import { supersededMessage } from '../../api/superseded-hold.js';
import { iso } from '../../api/time.js';
import {
  assertNever,
  ConditionReason,
  ConditionType,
  EventReason,
  EventType,
  FailureReason,
  Phase,
  RefusalToken,
} from '../../api/vocabulary.js';
import type { Action, CreateOutcome, DryRunOutcome, JobRead, ScopeOutcome } from './actions.js';
import { finish, unfence } from './finished.js';
import { buildJob } from './job.js';
import { JobOutcome, type Observed, type ObservedJob } from './observed.js';
import { giveBackScope, refuse, removeFinalizer, stopWaiting, updateStatus, writeIfChanged } from './status.js';
import type { HeldJobView } from './view.js';
import type * as k8s from '@kubernetes/client-node';

/** A create that got no answer, or one that asks to be tried again, is tried again after this. */
export const LAUNCH_RETRY_MS = 10_000;
/** A Job the informer lacks but the apiserver has: look again after this (the informer catches up). */
export const JOB_READ_AGAIN_MS = 2_000;

type ReadyView = Extract<HeldJobView, { ok: true }>;

/**
 * The status that records the launch before the create: Running, the create under way, and the
 * scope whose slot it took (its place is kept and given back under that name, whatever the
 * spec says later).
 */
export function launchingStatus(
  ready: HeldJobStatus,
  launch: { readonly jobName: string; readonly scopeKey: string | undefined },
  now: number,
  generation: number | undefined,
): HeldJobStatus {
  const { jobName, scopeKey } = launch;
  const released = stopWaiting(ready, now, ConditionReason.Cleared, generation);
  return {
    ...released,
    phase: Phase.Running,
    jobName,
    ...(scopeKey !== undefined ? { scope: scopeKey } : {}),
    launchedAt: ready.launchedAt ?? iso(now),
    conditions: setCondition(
      released.conditions,
      { type: ConditionType.Launched, status: 'Unknown', reason: ConditionReason.Creating, message: `creating Job ${jobName}` },
      now,
      generation,
    ),
  };
}

/** A recorded launch taken back to the cleared hold it came from (to record it again): it holds no scope. */
export function unrecorded(status: HeldJobStatus): HeldJobStatus {
  const { scope: _s, ...rest } = status;
  return { ...rest, phase: Phase.Held, conditions: status.conditions?.filter((c) => c.type !== ConditionType.Launched) };
}

/** The status that says the Job was created. */
export function launchedStatus(status: HeldJobStatus, jobName: string, now: number, generation: number | undefined): HeldJobStatus {
  return {
    ...status,
    conditions: setCondition(
      status.conditions,
      { type: ConditionType.Launched, status: 'True', reason: ConditionReason.JobCreated, message: `created Job ${jobName}` },
      now,
      generation,
    ),
  };
}

/** Whether the launch is recorded and its Job confirmed created. */
export function isLaunchConfirmed(status: HeldJobStatus): boolean {
  return findCondition(status.conditions, ConditionType.Launched)?.status === 'True';
}

/**
 * The Job was created (now, or before a restart): the marker, the record with its Event, then
 * the fence off. A spec that no longer reads may leave no trigger or target to mark; the
 * receiver reads the live HeldJobs for the same window anyway.
 */
function confirmLaunch(view: HeldJobView, status: HeldJobStatus, now: number, fenced = true): Action[] {
  const { trigger, target } = view;
  return [
    ...(trigger !== undefined && target !== undefined ? [{ type: 'leaveMarker' as const, trigger, target }] : []),
    updateStatus(launchedStatus(status, view.jobName, now, view.generation), now, view.generation, {
      event: { type: EventType.Normal, reason: EventReason.Launched, message: `Created Job ${view.jobName}` },
    }),
    ...(fenced ? [{ type: 'unfenceJob' as const, jobName: view.jobName }] : []),
  ];
}

/** Launched before a restart and found: the Job's existence tells. Its spec is not needed. */
export function adoptLaunched(view: HeldJobView, status: HeldJobStatus, job: ObservedJob, now: number): Action[] {
  const recorded = status.phase === Phase.Running ? status : launchingStatus(status, view, now, view.generation);
  // Already over: record both in one write.
  if (job.outcome !== JobOutcome.Active) {
    return [
      ...giveBackScope(view),
      finish(launchedStatus(recorded, view.jobName, now, view.generation), job, now, view.generation),
      ...unfence(job),
    ];
  }
  return confirmLaunch(view, recorded, now, job.fenced ?? false);
}

/** Ends the hold Failed, for a reason of waitgate's own: the record, the Event, the scope slots back. */
export function failHold(
  o: { view: HeldJobView; heldJob: Observed['heldJob'] },
  status: HeldJobStatus,
  reason: FailureReason,
  message: string,
  now: number,
): Action[] {
  const { generation } = o.view;
  const base = status.waitingSince ? stopWaiting(status, now, ConditionReason.Cleared, generation) : status;
  const { nextCheckAt: _n, ...rest } = base;
  const failed: HeldJobStatus = {
    ...rest,
    phase: Phase.Failed,
    reason,
    message,
    finishedAt: iso(now),
    conditions: setCondition(rest.conditions, { type: ConditionType.Finished, status: 'True', reason, message }, now, generation),
  };
  return [
    ...giveBackScope(o.view),
    updateStatus(failed, now, generation, { event: { type: EventType.Warning, reason, message } }),
    ...removeFinalizer(o.heldJob),
  ];
}

/** Whether a dry run's refusal means the Job can never be created (invalid or malformed). */
export function isNeverValid(code: number | undefined): boolean {
  return code === 400 || code === 422;
}

/** What follows the scope slots: the create, with nothing written before it; or queued. */
export function afterScope(view: ReadyView, ready: HeldJobStatus, job: k8s.V1Job, outcome: ScopeOutcome, now: number): Action[] {
  switch (outcome) {
    case 'acquired':
      return [{ type: 'createJob', job, scopeKey: view.scopeKey, ready }];
    case 'full':
    case 'unavailable':
      return waitFor(
        ready,
        { reason: ConditionReason.ScopeQueued, message: 'every condition cleared; waiting for a scope slot' },
        now,
        view.generation,
        SCOPE_RETRY_MS,
      );
    default:
      return assertNever(outcome);
  }
}

/** Held, with the Waiting condition saying why, looked at again later; written once, not on every look. */
function waitFor(
  ready: HeldJobStatus,
  why: { readonly reason: ConditionReason; readonly message: string },
  now: number,
  generation: number | undefined,
  againMs: number,
  warn?: boolean,
): Action[] {
  const { reason, message } = why;
  const same = findCondition(ready.conditions, ConditionType.Waiting);
  const next: HeldJobStatus = {
    ...ready,
    conditions: setCondition(ready.conditions, { type: ConditionType.Waiting, status: 'True', reason, message }, now, generation),
  };
  const unchanged = same?.reason === reason && same.message === message;
  const event = warn ? { type: EventType.Warning, reason: EventReason.LaunchRetrying, message } : undefined;
  return [...(unchanged ? [] : writeIfChanged(ready, next, now, generation, event)), { type: 'wakeAt', at: now + againMs }];
}

/**
 * What follows a create. `current` is the status the create was made from; `ready` the status to
 * go back to when the apiserver said nothing was created and it is worth trying again. A Job
 * created (or found) is recorded in a pass of its own, in the lane that yields to launches.
 */
export function afterCreate(
  o: { view: ReadyView; heldJob: Observed['heldJob'] },
  current: HeldJobStatus,
  ready: HeldJobStatus,
  outcome: CreateOutcome,
  now: number,
): Action[] {
  const { view } = o;
  switch (outcome.kind) {
    case 'created':
    case 'existed':
      return [{ type: 'recordLater', jobName: view.jobName, scopeKey: view.scopeKey }];
    case 'nameTaken':
      return failHold(
        o,
        current,
        FailureReason.JobRejected,
        `a Job named ${view.jobName} already exists and belongs to something else`,
        now,
      );
    case 'createFailed': {
      if (!isTransient(outcome.code)) {
        return failHold(o, current, FailureReason.JobRejected, `the apiserver refused the Job (${outcome.code}): ${outcome.message}`, now);
      }
      // Nothing stays taken while the create waits to be tried again; the next try meets
      // AlreadyExists if this one did land after all.
      const what = outcome.code === undefined ? `no answer (${outcome.message})` : `${outcome.code}: ${outcome.message}`;
      return [
        { type: 'releaseScope', scopeKey: view.scopeKey, ended: false },
        ...waitFor(
          ready,
          { reason: ConditionReason.LaunchRetrying, message: `every condition cleared; the Job create failed, ${what}; trying again` },
          now,
          view.generation,
          LAUNCH_RETRY_MS,
          true,
        ),
      ];
    }
    default:
      return assertNever(outcome);
  }
}

/** What follows the dry run at the first hold: a Job that can never be valid ends the hold now. */
export function afterDryRun(
  o: { view: ReadyView; heldJob: Observed['heldJob'] },
  then: readonly Action[],
  outcome: DryRunOutcome,
  now: number,
): readonly Action[] {
  switch (outcome.kind) {
    case 'valid':
    case 'unknown':
      return then;
    case 'invalid':
      return failHold(
        o,
        o.heldJob.status ?? {},
        FailureReason.JobRejected,
        `the job can never be created (${outcome.code}): ${outcome.message}`,
        now,
      );
    default:
      return assertNever(outcome);
  }
}

/**
 * A direct read that found the Job the informer lacks (the informer is behind: its event brings
 * another pass; looked at again anyway), or got no answer (asked again later).
 */
function lookAgain(read: Exclude<JobRead, { kind: 'gone' }>, now: number): Action[] {
  return [{ type: 'wakeAt', at: now + (read.kind === 'present' ? JOB_READ_AGAIN_MS : LAUNCH_RETRY_MS) }];
}

/**
 * What follows a direct read of a Running hold's Job the informer did not have: the hold ends
 * JobMissing when it is gone (how it ended, if the informer saw it end before it went). A
 * launch recorded and never created is made now; if its spec no longer reads, it is never
 * made, and the hold ends wait-unreadable (nothing was spent).
 */
export function afterJobRead(o: Observed, read: JobRead, now: number): Action[] {
  const status = o.heldJob.status ?? {};
  switch (read.kind) {
    case 'present':
    case 'unknown':
      return lookAgain(read, now);
    case 'gone': {
      const last = o.lastJob;
      if (last && last.outcome !== JobOutcome.Active) {
        return [...giveBackScope(o.view), finish(status, last, now, o.view.generation), ...removeFinalizer(o.heldJob)];
      }
      if (!isLaunchConfirmed(status) && !last && !o.view.ok) {
        // The Job cannot be built from a spec that does not read: the launch never happened.
        const { launchedAt: _l, ...never } = unrecorded(status);
        return [
          ...giveBackScope(o.view),
          ...refuse(
            never,
            RefusalToken.Unreadable,
            `${o.view.problem} (the spec changed before its Job was created)`,
            now,
            o.view.generation,
          ),
          ...removeFinalizer(o.heldJob),
        ];
      }
      if (!isLaunchConfirmed(status) && !last && o.view.ok) {
        // Recorded, and never created: a Job that was created keeps its fence until its creation
        // is recorded, so it would be here. The launch goes on from its scope slots (taken
        // again, or renewed); the create meets AlreadyExists should it land twice.
        return [
          {
            type: 'acquireScope',
            job: buildJob(o.heldJob, o.view.spec, o.view.jobName),
            scopeKey: o.view.scopeKey,
            ready: unrecorded(status),
          },
        ];
      }
      const jobName = status.jobName ?? o.view.jobName;
      const message = isLaunchConfirmed(status)
        ? `Job ${jobName} is gone before it finished (deleted, or removed while no operator watched); it is not launched again`
        : `Job ${jobName} was seen and is gone before its creation was recorded; it is not launched again, so it never runs twice`;
      return failHold(o, status, FailureReason.JobMissing, message, now);
    }
    default:
      return assertNever(read);
  }
}

/**
 * What follows the direct read of a superseded pending hold's Job (readJobToSupersede). Gone:
 * it never started, and ends wait-superseded, giving back what it may hold. There: it started
 * just before the newer delivery came, and runs; the informer's event brings the pass that
 * records it. No answer: asked again later, and nothing ends meanwhile.
 */
export function afterSupersedeRead(o: Observed, read: JobRead, by: string, now: number): Action[] {
  const status = o.heldJob.status ?? {};
  switch (read.kind) {
    case 'present':
    case 'unknown':
      return lookAgain(read, now);
    case 'gone':
      return [
        ...giveBackScope(o.view),
        ...refuse(status, RefusalToken.Superseded, supersededMessage(by), now, o.view.generation),
        ...removeFinalizer(o.heldJob),
      ];
    default:
      return assertNever(read);
  }
}
