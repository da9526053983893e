// The decision: what to do next with one HeldJob, from what was observed and the time.
// Pure: no I/O, no clock, no randomness (the jitter's random unit is observed too).
//
// The ladder, in order: pause window → wait (after first, then profile checks) → scope →
// launch. Nothing is spent before the wait decides; a held job holds no slot while it sleeps.
import { checkSpec, type HeldJobObject, type HeldJobStatus } from '../../api/heldjob-schema.js';
import { parseInstant } from '../../api/instant.js';
import { jobNameFor } from '../../api/job-name.js';
import type { Profile } from '../../api/profiles.js';
import {
  Annotations,
  assertNever,
  ConditionType,
  FINALIZER,
  isRefusalToken,
  isTerminal,
  OPERATOR_CANCEL,
  Phase,
  RefusalToken,
} from '../../api/vocabulary.js';
import { waitLabel } from '../../api/wait-label.js';
import { pausedUntil, type PauseWindow } from '../../api/pause-windows.js';
import type { Action } from './actions.js';
import { setCondition } from '../../api/conditions.js';
import { epochOf, iso } from '../../api/time.js';
import { refuse, stopWaiting, waitStates } from './status.js';

export type { Action, EventSpec } from './actions.js';

/** What the Job informer knows of the HeldJob's Job. */
export const JobOutcome = { Active: 'Active', Succeeded: 'Succeeded', Failed: 'Failed' } as const;
export type JobOutcome = (typeof JobOutcome)[keyof typeof JobOutcome];

export interface ObservedJob {
  readonly name: string;
  readonly outcome: JobOutcome;
  /** Why a failed Job failed, when the Job says (BackoffLimitExceeded, DeadlineExceeded, ...). */
  readonly failureReason?: string;
}

export interface DecideConfig {
  /** The furthest an `after` may lie beyond the HeldJob's creation. */
  readonly afterMaxMs: number;
  readonly intervalMs: number;
  readonly maxMs: number;
  readonly maxChecks: number;
  readonly maxFaults: number;
  readonly pauseWindows: readonly PauseWindow[];
}

/** The profiles ConfigMap as the operator last read it. */
export type ProfilesView =
  | { readonly state: 'ok'; readonly profiles: ReadonlyMap<string, Profile> }
  | { readonly state: 'unreadable'; readonly problem: string };

/** The triggers ConfigMap as the operator last read it: which triggers say wait. */
export type TriggersView =
  | { readonly state: 'ok'; readonly waits: ReadonlyMap<string, boolean> }
  | { readonly state: 'missing' }
  | { readonly state: 'unreadable'; readonly problem: string };

export interface Observed {
  readonly heldJob: HeldJobObject & { metadata: { finalizers?: string[] } };
  /** The HeldJob's Job, if the Job informer has one. */
  readonly job: ObservedJob | undefined;
  readonly config: DecideConfig;
  readonly profiles: ProfilesView;
  readonly triggers: TriggersView;
}

/** The scope a HeldJob's Job counts against: its repository (the target without #n / !n). */
export function scopeKeyOf(target: string): string {
  return target.replace(/[#!]\d+$/, '');
}

function hasFinalizer(o: Observed): boolean {
  return o.heldJob.metadata.finalizers?.includes(FINALIZER) ?? false;
}

function finish(status: HeldJobStatus, job: ObservedJob, now: number): Action {
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
      conditions: setCondition(status.conditions, { type: ConditionType.Finished, status: 'True', reason: phase, message }, now),
    },
    event: { type: succeeded ? 'Normal' : 'Warning', reason: phase, message },
  };
}

/** Compares the HeldJob with its trigger entry: the stale-receiver trap (wait-skew). */
function triggerCheck(
  o: Observed,
  trigger: string,
  waits: boolean,
): { skew: boolean; condition: { status: 'True' | 'Unknown'; reason: string; message: string } } {
  const t = o.triggers;
  switch (t.state) {
    case 'ok': {
      const fileWaits = t.waits.get(trigger);
      if (fileWaits === undefined) {
        return { skew: false, condition: { status: 'Unknown', reason: 'TriggerNotInFile', message: `trigger "${trigger}" is not in waitgate-triggers; its waits cannot be compared` } };
      }
      if (fileWaits && !waits) {
        return { skew: true, condition: { status: 'True', reason: 'Skew', message: 'the trigger says wait but this HeldJob carries no wait' } };
      }
      return { skew: false, condition: { status: 'True', reason: 'Matches', message: 'matches its trigger entry' } };
    }
    case 'missing':
      return { skew: false, condition: { status: 'Unknown', reason: 'TriggersMissing', message: 'the waitgate-triggers ConfigMap does not exist; waits cannot be compared with their triggers' } };
    case 'unreadable':
      return { skew: false, condition: { status: 'Unknown', reason: 'TriggersUnreadable', message: `waitgate-triggers cannot be read (${t.problem}); waits cannot be compared with their triggers` } };
    default:
      return assertNever(t);
  }
}

export function decide(o: Observed, now: number): readonly Action[] {
  const { heldJob, job, config } = o;
  const status: HeldJobStatus = heldJob.status ?? {};
  const phase = status.phase;

  // Deletion is cancellation. A held one never starts; a running one's Job goes with it.
  if (heldJob.metadata.deletionTimestamp) {
    if (!hasFinalizer(o)) return [];
    const actions: Action[] = [];
    if (job && job.outcome === JobOutcome.Active) {
      actions.push(
        { type: 'deleteJob', jobName: job.name },
        {
          type: 'updateStatus',
          status: {
            ...status,
            message: `${OPERATOR_CANCEL}: Job ${job.name} deleted with its HeldJob`,
            conditions: setCondition(status.conditions, { type: ConditionType.Finished, status: 'True', reason: 'OperatorCancel', message: OPERATOR_CANCEL }, now),
          },
          event: { type: 'Warning', reason: 'OperatorCancel', message: `${OPERATOR_CANCEL}: Job ${job.name} deleted with its HeldJob` },
        },
      );
    }
    const spec = checkSpec(heldJob.spec);
    if (spec.ok) actions.push({ type: 'releaseScope', scopeKey: scopeKeyOf(spec.spec.target) });
    actions.push({ type: 'removeFinalizer' });
    return actions;
  }

  if (isTerminal(phase)) return hasFinalizer(o) ? [{ type: 'removeFinalizer' }] : [];

  const check = checkSpec(heldJob.spec);

  if (phase === Phase.Running) {
    if (!job || job.outcome === JobOutcome.Active) return [];
    const actions: Action[] = [];
    if (check.ok) actions.push({ type: 'releaseScope', scopeKey: scopeKeyOf(check.spec.target) });
    actions.push(finish(status, job, now));
    if (hasFinalizer(o)) actions.push({ type: 'removeFinalizer' });
    return actions;
  }

  // A record of a delivery the receiver refused: it never holds and never runs.
  const refusal = heldJob.metadata.annotations?.[Annotations.refusal];
  if (refusal !== undefined && job === undefined) {
    const message = heldJob.metadata.annotations?.[Annotations.refusalMessage] ?? 'refused by the receiver';
    return isRefusalToken(refusal)
      ? refuse(status, refusal, message, now)
      : refuse(status, RefusalToken.Unreadable, `unknown refusal token "${refusal}"`, now);
  }

  if (!check.ok) return refuse(status, RefusalToken.Unreadable, check.problems.join('; '), now);
  const spec = check.spec;
  const conditions = spec.waitFor ?? [];
  const scopeKey = scopeKeyOf(spec.target);

  let afterMs: number | undefined;
  const profileNames: string[] = [];
  for (const c of conditions) {
    if ('profile' in c) {
      profileNames.push(c.profile);
      continue;
    }
    const p = parseInstant(c.after);
    if (!p.ok) return refuse(status, RefusalToken.Unreadable, `after: ${p.detail}`, now);
    afterMs = p.epochMs;
  }

  const createdMs = epochOf(heldJob.metadata.creationTimestamp) ?? now;
  if (afterMs !== undefined && afterMs - createdMs > config.afterMaxMs) {
    return refuse(status, RefusalToken.AfterBeyondMax, `after ${iso(afterMs)} lies more than ${config.afterMaxMs} ms beyond the delivery at ${iso(createdMs)}`, now);
  }

  // The stale-receiver trap: the file says wait, the HeldJob carries none. Before any spend.
  const trig = triggerCheck(o, spec.trigger, conditions.length > 0);
  if (trig.skew) {
    return refuse(status, RefusalToken.Skew, `trigger "${spec.trigger}" says wait but this HeldJob carries no wait: a receiver or CRD older than the operator dropped it; upgrade it and re-deliver`, now);
  }

  const jobName = status.jobName ?? jobNameFor(heldJob.metadata);
  const actions: Action[] = [];
  const withTrigger = (s: HeldJobStatus): HeldJobStatus => ({
    ...s,
    conditions: setCondition(s.conditions, { type: ConditionType.TriggerChecked, ...trig.condition }, now),
  });
  // Said once, when the comparison first becomes impossible: a Warning Event.
  const prevTrig = status.conditions?.find((c) => c.type === ConditionType.TriggerChecked);
  if (trig.condition.status === 'Unknown' && prevTrig?.reason !== trig.condition.reason) {
    actions.push({ type: 'event', event: { type: 'Warning', reason: trig.condition.reason, message: trig.condition.message } });
  }

  // Launched before a restart but not recorded: the Job's existence tells.
  if (job) return [...actions, ...launched(o, withTrigger(status), job, jobName, now)];

  // Pause window: nothing starts and nothing is checked until it ends. Time paused before
  // the first hold is not waiting.
  const pause = pausedUntil(now, config.pauseWindows);
  if (pause !== undefined) {
    const base = withTrigger(phase === Phase.Held ? status : { ...status, phase: Phase.Pending, waitLabel: waitLabel(conditions) });
    const paused: HeldJobStatus = {
      ...base,
      nextCheckAt: iso(pause),
      conditions: setCondition(base.conditions, { type: ConditionType.Waiting, status: 'True', reason: 'Paused', message: `in a pause window until ${iso(pause)}` }, now),
    };
    if (JSON.stringify(paused) !== JSON.stringify(status)) actions.push({ type: 'updateStatus', status: paused });
    actions.push({ type: 'wakeAt', at: pause });
    return actions;
  }

  // The first hold starts the clock.
  let held: HeldJobStatus = withTrigger(status);
  // A changed TriggerChecked condition is worth a write, so its Event is not said twice.
  let dirty = JSON.stringify(held.conditions) !== JSON.stringify(status.conditions);
  if (phase !== Phase.Held) {
    // No finalizer yet: a hold that only sleeps has nothing to clean up, and at 10,000 holds
    // the write saved matters. It goes on before the first check or the launch.
    held = {
      ...held,
      phase: Phase.Held,
      reason: '',
      waitLabel: waitLabel(conditions),
      heldSince: iso(now),
      waitingSince: iso(now),
      jobName,
      observedGeneration: heldJob.metadata.generation,
      ...(profileNames.length > 0 ? { checks: 0, faults: 0, limits: { maxChecks: config.maxChecks, maxFaults: config.maxFaults } } : {}),
    };
    dirty = true;
  }

  // Cheapest first: an unreached instant never costs a check.
  if (afterMs !== undefined && now < afterMs) {
    const next: HeldJobStatus = {
      ...held,
      nextCheckAt: iso(afterMs),
      waits: waitStates(conditions, held, afterMs, now),
      conditions: setCondition(held.conditions, { type: ConditionType.Waiting, status: 'True', reason: 'Held', message: `waiting until ${iso(afterMs)}` }, now),
    };
    if (dirty || JSON.stringify(next) !== JSON.stringify(status)) actions.push({ type: 'updateStatus', status: next });
    actions.push({ type: 'wakeAt', at: afterMs });
    return actions;
  }
  if (afterMs !== undefined && held.afterClearedAt === undefined) {
    held = { ...held, afterClearedAt: iso(now) };
    dirty = true;
    const heldSince = epochOf(held.heldSince) ?? now;
    if (heldSince < afterMs) actions.push({ type: 'observeAfterLateness', ms: now - afterMs });
  }

  // Profile checks, in the order written; all must answer go in one round.
  if (profileNames.length > 0) {
    if (o.profiles.state === 'unreadable') {
      const next: HeldJobStatus = {
        ...held,
        conditions: setCondition(held.conditions, { type: ConditionType.Waiting, status: 'True', reason: 'ProfilesUnreadable', message: `waitgate-profiles cannot be read: ${o.profiles.problem}` }, now),
      };
      if (dirty || JSON.stringify(next) !== JSON.stringify(status)) {
        actions.push({ type: 'updateStatus', status: next, event: { type: 'Warning', reason: 'ProfilesUnreadable', message: `waitgate-profiles cannot be read: ${o.profiles.problem}` } });
      }
      return actions; // The ConfigMap's next change wakes every hold.
    }
    const profiles = o.profiles.profiles;
    for (const name of profileNames) {
      if (!profiles.has(name)) return [...actions.filter((a) => a.type === 'event'), ...refuse(held, RefusalToken.ProfileUnknown, `profile "${name}" is not declared in waitgate-profiles`, now)];
    }
    if (held.checksSince === undefined) {
      held = { ...held, checksSince: iso(now), expiresAt: iso(now + config.maxMs) };
      dirty = true;
    }
    const cleared = new Set(held.clearedProfiles ?? []);
    const pending = profileNames.find((n) => !cleared.has(n));
    if (pending !== undefined) {
      const due = epochOf(held.nextCheckAt);
      if (due !== undefined && now < due && cleared.size === 0) {
        const next: HeldJobStatus = { ...held, waits: waitStates(conditions, held, afterMs, now) };
        if (dirty || JSON.stringify(next) !== JSON.stringify(status)) actions.push({ type: 'updateStatus', status: next });
        actions.push({ type: 'wakeAt', at: due });
        return actions;
      }
      if (dirty) actions.push({ type: 'updateStatus', status: { ...held, waits: waitStates(conditions, held, afterMs, now) } });
      // A running check must be stoppable by a cancel: the finalizer first.
      if (!hasFinalizer(o)) actions.push({ type: 'addFinalizer' });
      actions.push({ type: 'runCheck', profile: profiles.get(pending) as Profile, target: spec.target });
      return actions;
    }
  }

  // Every condition has cleared: take the scope slots, launch exactly once.
  const ready: HeldJobStatus = {
    ...held,
    waits: waitStates(conditions, held, afterMs, now),
    conditions: setCondition(held.conditions, { type: ConditionType.Waiting, status: 'True', reason: 'ScopeQueued', message: 'every condition cleared; waiting for a scope slot' }, now),
  };
  // Scope slots taken at launch must be given back if the HeldJob goes: the finalizer first.
  if (!hasFinalizer(o)) actions.push({ type: 'addFinalizer' });
  actions.push({ type: 'launch', jobName, scopeKey, queuedStatus: ready });
  actions.push({ type: 'leaveMarker', trigger: spec.trigger, target: spec.target });
  return [...actions, ...launched(o, ready, undefined, jobName, now)];
}

function launched(o: Observed, held: HeldJobStatus, job: ObservedJob | undefined, jobName: string, now: number): Action[] {
  const released = stopWaiting(held, now, 'Cleared');
  const running: HeldJobStatus = {
    ...released,
    phase: Phase.Running,
    jobName,
    launchedAt: held.launchedAt ?? iso(now),
    conditions: setCondition(released.conditions, { type: ConditionType.Launched, status: 'True', reason: 'JobCreated', message: `created Job ${jobName}` }, now),
  };
  if (job && job.outcome !== JobOutcome.Active) {
    // Launched before a restart and already over: record both in one write.
    const actions: Action[] = [];
    const spec = checkSpec(o.heldJob.spec);
    if (spec.ok) actions.push({ type: 'releaseScope', scopeKey: scopeKeyOf(spec.spec.target) });
    actions.push(finish(running, job, now));
    return actions;
  }
  return [{ type: 'updateStatus', status: running, event: { type: 'Normal', reason: 'Launched', message: `Created Job ${jobName}` } }];
}
