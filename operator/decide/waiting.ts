// The waiting ladder: pause window → wait (after first, then an approval, then profile checks) → launch.
// Nothing is spent before the wait decides; a held job holds no slot while it sleeps.
import { conditionChanged, findCondition, setCondition, type ConditionInput } from '../../api/conditions.js';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { pausedUntil } from '../../api/pause-windows.js';
import type { Profile } from '../../api/profiles.js';
import { afterBeyondMax, unknownProfile } from '../../api/refusal-rules.js';
import { epochOf, iso } from '../../api/time.js';
import { ConditionReason, ConditionType, EventReason, EventType, FailureReason, Phase, RefusalToken } from '../../api/vocabulary.js';
import { supersedingHoldOf } from '../../api/superseded-hold.js';
import { waitLabel } from '../../api/wait-label.js';
import { receiverStampOf, upgradeAdvice } from '../../api/receiver-schema.js';
import { madeByReceiver } from '../../api/made-by.js';
import type { Action } from './actions.js';
import { awaitApproval, decideApproval } from './approval.js';
import { buildJob } from './job.js';
import { withHorizon } from './horizon.js';
import { nextProfile } from './profile-order.js';
import { adoptLaunched, failHold } from './launch.js';
import type { DecideConfig, Observed } from './observed.js';
import type { HeldJobView } from './view.js';
import { addFinalizer, giveBackScope, hasFinalizer, refuse, removeFinalizer, waitStates, writeIfChanged } from './status.js';
import { triggerBinding, triggerCheck, type TriggerBinding } from './trigger-check.js';

const TRIGGER_WARNING: Record<string, EventReason> = {
  [ConditionReason.TriggerNotInFile]: EventReason.TriggerNotInFile,
  [ConditionReason.TriggersMissing]: EventReason.TriggersMissing,
  [ConditionReason.TriggersUnreadable]: EventReason.TriggersUnreadable,
};

export function decideWaiting(o: Observed, now: number): Action[] {
  const { heldJob, view, config } = o;
  const status: HeldJobStatus = heldJob.status ?? {};
  if (!view.ok) {
    // Its own Job exists (created just before a crash, before the record): it launched, and
    // follows its Job like any running hold; the spec is not needed for that.
    if (o.job) return adoptLaunched(view, status, o.job, now);
    return refuseUnreadable(o, status, now);
  }
  const { spec, conditions, afterMs, jobName, generation } = view;
  const createdMs = epochOf(heldJob.metadata.creationTimestamp) ?? now;
  // The stale-receiver trap: the file says wait (or pins the revision), the HeldJob does not.
  const trig = triggerCheck(o.triggers, spec.trigger, { waits: conditions.length > 0, revision: spec.revision !== undefined });

  // A HeldJob the receiver made runs only its trigger's Job: one bound to no declared trigger,
  // or carrying another Job, ends Failed with no Job; one that cannot be compared yet is held.
  // A Job already there was created by an earlier pass, after its binding held.
  if (!o.job) {
    // The newest pending wins: a receiver-made hold without conditions that a newer delivery
    // replaced ends wait-superseded, once its Job is known not to exist (afterSupersedeRead).
    const by = conditions.length === 0 ? supersedingHoldOf(heldJob) : undefined;
    if (by !== undefined) return [{ type: 'readJobToSupersede', jobName: status.jobName ?? jobName, by }];
    const binding = triggerBinding(o.triggers, heldJob, spec, createdMs, now);
    // Unbound because it lacks what its trigger says: the receiver is behind, said as wait-skew.
    if (binding.kind === 'unbound' && binding.problem.reason === FailureReason.JobNotTrigger && trig.skew !== undefined) {
      return refuseSkew(o, status, trig.skew, now);
    }
    if (binding.kind === 'unbound') return failHold(o, status, binding.problem.reason, binding.problem.message, now);
    if (binding.kind === 'unconfirmed') return holdUnconfirmed(o, status, binding, now);
  }

  // The receiver's rule, asked again from the HeldJob's creation: a HeldJob made by hand, or by
  // a receiver whose maximum was higher, meets it here.
  for (const c of conditions) {
    const beyond = 'after' in c ? afterBeyondMax(c.after, createdMs, config.afterMaxMs) : undefined;
    if (beyond) return refuse(status, beyond.token, beyond.message, now, generation);
  }

  // The stale-receiver trap, before any spend.
  if (trig.skew !== undefined) return refuseSkew(o, status, trig.skew, now);

  const actions: Action[] = [];
  const withTrigger = (s: HeldJobStatus): HeldJobStatus => ({
    ...s,
    conditions: setCondition(s.conditions, trig.condition, now, generation),
  });
  // Said once, when the comparison first becomes impossible: a Warning Event.
  const warning = TRIGGER_WARNING[trig.condition.reason];
  if (warning && triggerWarningNew(status, trig.condition)) {
    actions.push({ type: 'event', event: { type: EventType.Warning, reason: warning, message: trig.condition.message ?? '' } });
  }

  // Its Job is there: created by an earlier pass (whose launch wrote nothing before the
  // create) or before a crash. Recorded now, with what that pass would have recorded of the hold.
  if (o.job) {
    const firstHeld = heldFrom(withTrigger(status), view, config, now);
    const cleared = afterMs !== undefined && now >= afterMs && firstHeld.afterClearedAt === undefined;
    const recorded = cleared ? { ...firstHeld, afterClearedAt: iso(now) } : firstHeld;
    return [...actions, ...adoptLaunched(view, recorded, o.job, now)];
  }

  // Pause window: nothing starts and nothing is checked until it ends. Time paused before
  // the first hold is not waiting.
  const pause = pausedUntil(now, config.pauseWindows);
  if (pause !== undefined) {
    const base = withTrigger(status.phase === Phase.Held ? status : { ...status, phase: Phase.Pending, waitLabel: waitLabel(conditions) });
    const paused: HeldJobStatus = {
      ...base,
      nextCheckAt: iso(pause),
      conditions: setCondition(
        base.conditions,
        { type: ConditionType.Waiting, status: 'True', reason: ConditionReason.Paused, message: `in a pause window until ${iso(pause)}` },
        now,
        generation,
      ),
    };
    return [...actions, ...writeIfChanged(status, paused, now, generation), { type: 'wakeAt', at: pause }];
  }

  // The first hold starts the clock.
  let held: HeldJobStatus = heldFrom(withTrigger(status), view, config, now);

  // An approval's record is read before the after: a go is recorded, and a no refuses, when
  // it is written; only the waiting for it comes after the instant (approval.ts).
  const approval = view.approval === undefined ? undefined : decideApproval(o, held, view.approval, now);
  if (approval?.kind === 'done') return [...actions, ...approval.actions];

  // Cheapest first: an unreached instant never costs a check.
  if (afterMs !== undefined && now < afterMs) {
    const waiting = setCondition(
      held.conditions,
      { type: ConditionType.Waiting, status: 'True', reason: ConditionReason.Held, message: `waiting until ${iso(afterMs)}` },
      now,
      generation,
    );
    const next: HeldJobStatus = withHorizon(
      {
        ...held,
        nextCheckAt: iso(afterMs),
        waits: waitStates(conditions, held, afterMs, now),
        // Only an instant left: armed in this same write, so the instant itself writes nothing
        // before the Job exists.
        conditions:
          view.profiles.length === 0 && approval?.kind !== 'awaiting'
            ? armed(waiting, jobName, afterMs, now, generation)
            : disarmed(waiting),
      },
      view,
      config,
    );
    return [...actions, ...writeIfChanged(status, next, now, generation), { type: 'wakeAt', at: afterMs }];
  }
  if (afterMs !== undefined && held.afterClearedAt === undefined) {
    held = { ...held, afterClearedAt: iso(now) };
    const heldSince = epochOf(held.heldSince) ?? now;
    if (heldSince < afterMs) actions.push({ type: 'observeAfterLateness', ms: now - afterMs });
  }

  // Then the approval, which spends nothing, before any check.
  if (view.approval !== undefined && approval?.kind === 'awaiting')
    return [...actions, ...awaitApproval(o, status, held, view.approval, now)];

  if (view.profiles.length > 0) {
    const checking = decideChecks(o, status, held, now);
    if (checking.kind === 'done') return [...(checking.refusal ? actions.filter((a) => a.type === 'event') : actions), ...checking.actions];
    held = checking.held;
  }

  // Every condition has cleared: take the scope place and create the Job, nothing written
  // first. No finalizer: the Job's own fence keeps it until its creation is recorded, and a
  // HeldJob deleted meanwhile gives its place back when the operator sees it go (decideGone)
  // or, with no operator about, when the place's lease lapses.
  // A trigger warning is said by the pass that records the launch, which writes its condition.
  const ready: HeldJobStatus = { ...held, waits: waitStates(conditions, held, afterMs, now) };
  const reports = actions.filter((a) => a.type !== 'event');
  return [...reports, { type: 'acquireScope', job: buildJob(heldJob, spec, jobName), scopeKey: view.scopeKey, ready }];
}

/**
 * A receiver-made hold whose binding to its trigger cannot be told yet: held (Waiting True, the
 * reason), a Warning Event when that reason is news, looked at again when it says.
 */
function holdUnconfirmed(
  o: Observed,
  status: HeldJobStatus,
  binding: Extract<TriggerBinding, { kind: 'unconfirmed' }>,
  now: number,
): Action[] {
  const { view } = o;
  if (!view.ok) return [];
  // Not held on its conditions yet (Pending, no clock started) unless it already was.
  const held: HeldJobStatus =
    status.phase === Phase.Held ? status : { ...status, phase: Phase.Pending, waitLabel: waitLabel(view.conditions) };
  const waiting = { type: ConditionType.Waiting, status: 'True' as const, reason: binding.reason, message: binding.message };
  const next: HeldJobStatus = { ...held, conditions: setCondition(held.conditions, waiting, now, view.generation) };
  const warning = TRIGGER_WARNING[binding.reason];
  const event =
    warning && triggerWarningNew(status, waiting) ? { type: EventType.Warning, reason: warning, message: binding.message } : undefined;
  return [
    ...writeIfChanged(status, next, now, view.generation, event),
    ...(binding.wakeAt !== undefined ? [{ type: 'wakeAt' as const, at: binding.wakeAt }] : []),
  ];
}

/**
 * The status as held: the first hold starts the clock. No finalizer: a hold that only sleeps
 * has nothing to clean up, and at 10,000 holds the write saved matters; one goes on before
 * the first check.
 */
function heldFrom(status: HeldJobStatus, view: Extract<HeldJobView, { ok: true }>, config: DecideConfig, now: number): HeldJobStatus {
  if (status.phase === Phase.Held) return status;
  return {
    ...status,
    phase: Phase.Held,
    reason: '',
    waitLabel: waitLabel(view.conditions),
    heldSince: iso(now),
    waitingSince: iso(now),
    jobName: view.jobName,
    ...(view.profiles.length > 0 ? { checks: 0, faults: 0, limits: { maxChecks: config.maxChecks, maxFaults: config.maxFaults } } : {}),
  };
}

/** The conditions without an arming a spec edit has since made untrue (a profile added). */
function disarmed(conditions: HeldJobStatus['conditions']): HeldJobStatus['conditions'] {
  const launched = findCondition(conditions, ConditionType.Launched);
  return launched?.reason === ConditionReason.Armed ? conditions?.filter((c) => c !== launched) : conditions;
}

/** The conditions of a hold armed to create its Job at the instant. */
function armed(
  conditions: HeldJobStatus['conditions'],
  jobName: string,
  afterMs: number,
  now: number,
  generation: number | undefined,
): HeldJobStatus['conditions'] {
  return setCondition(
    conditions,
    {
      type: ConditionType.Launched,
      status: 'Unknown',
      reason: ConditionReason.Armed,
      message: `armed: Job ${jobName} is created at ${iso(afterMs)}`,
    },
    now,
    generation,
  );
}

/**
 * wait-skew: the HeldJob lacks what its trigger says (a wait, a pinned revision). A receiver or
 * CRD older than the operator dropped it; the receiver's stamp says which, where it can.
 */
function refuseSkew(o: Observed, status: HeldJobStatus, said: string, now: number): Action[] {
  if (!o.view.ok) return [];
  const advice = upgradeAdvice(receiverStampOf(o.heldJob.metadata.annotations, madeByReceiver(o.heldJob)));
  const message = `trigger "${o.view.spec.trigger}": ${said}; ${advice ?? 'a receiver or CRD older than the operator dropped it: upgrade it'}, and re-deliver`;
  return refuse(status, RefusalToken.Skew, message, now, o.view.generation);
}

/**
 * A hold whose spec does not pass its check (a condition this operator cannot read, a
 * misspelt or unknown field, an edit while it waited) ends wait-unreadable, before any spend.
 * It gives back what it may hold: a hold with the finalizer got as far as a check or a launch,
 * and a launch whose record lost a race with the edit may have taken its scope slot.
 */
function refuseUnreadable(o: Observed, status: HeldJobStatus, now: number): Action[] {
  const { view, heldJob } = o;
  if (view.ok) return [];
  return [
    ...(hasFinalizer(heldJob) ? giveBackScope(view) : []),
    ...refuse(status, RefusalToken.Unreadable, unreadableMessage(view.problem, heldJob), now, view.generation),
    ...removeFinalizer(heldJob),
  ];
}

/** What cannot be read, and, for a receiver-made hold whose stamp says so, which side to upgrade. */
function unreadableMessage(problem: string, heldJob: Observed['heldJob']): string {
  const advice = upgradeAdvice(receiverStampOf(heldJob.metadata.annotations, madeByReceiver(heldJob)));
  return advice === undefined ? problem : `${problem}; ${advice}`;
}

/**
 * Whether the trigger comparison's warning is news: its condition changed in what it says. Not
 * a new generation alone: an edited spec re-stamps the condition without a second warning.
 */
function triggerWarningNew(status: HeldJobStatus, next: ConditionInput): boolean {
  const prev = findCondition(status.conditions, next.type);
  return conditionChanged(status.conditions, next, prev?.observedGeneration);
}

/**
 * Whether status.nextCheckAt is the instant the hold waited for (status.releaseAt) and an edit
 * has since taken that instant away or moved it: no check is due then, so a check is due now.
 */
function isStaleInstant(status: HeldJobStatus, afterMs: number | undefined): boolean {
  const { nextCheckAt, releaseAt } = status;
  return nextCheckAt !== undefined && nextCheckAt === releaseAt && (afterMs === undefined || iso(afterMs) !== releaseAt);
}

type ChecksDecision =
  | { readonly kind: 'done'; readonly actions: Action[]; readonly refusal?: boolean }
  | { readonly kind: 'cleared'; readonly held: HeldJobStatus };

/**
 * Profile checks: all must answer go in one round, and a round stops at the first that does not.
 * The one that held the last round up is asked first (profile-order.ts).
 */
function decideChecks(o: Observed, status: HeldJobStatus, heldIn: HeldJobStatus, now: number): ChecksDecision {
  const { view, config, heldJob } = o;
  if (!view.ok) return { kind: 'done', actions: [] };
  const { generation } = view;
  // The maximum wait runs from the first hold of the checks, whatever the ConfigMap's state: a
  // hold paused on an unreadable or missing waitgate-profiles does not stop its clock. One whose
  // clock ran out while paused runs its last check when the profiles return (record-check.ts).
  const held: HeldJobStatus =
    heldIn.checksSince === undefined ? { ...heldIn, checksSince: iso(now), expiresAt: iso(now + config.maxMs) } : heldIn;
  if (o.profiles.state === 'unreadable') {
    const message = `waitgate-profiles cannot be read: ${o.profiles.problem}`;
    const next: HeldJobStatus = withHorizon(
      {
        ...held,
        conditions: setCondition(
          held.conditions,
          { type: ConditionType.Waiting, status: 'True', reason: ConditionReason.ProfilesUnreadable, message },
          now,
          generation,
        ),
      },
      view,
      config,
    );
    // The ConfigMap's next change wakes every hold.
    return {
      kind: 'done',
      actions: writeIfChanged(status, next, now, generation, { type: EventType.Warning, reason: EventReason.ProfilesUnreadable, message }),
    };
  }
  const profiles = o.profiles.profiles;
  const declared = { state: 'ok', names: new Set(profiles.keys()) } as const;
  for (const name of view.profiles) {
    const refusal = unknownProfile(name, declared);
    if (refusal) return { kind: 'done', refusal: true, actions: refuse(held, refusal.token, refusal.message, now, generation) };
  }
  const cleared = new Set(held.clearedProfiles ?? []);
  const pending = nextProfile(view.profiles, cleared, held.lastVerdicts);
  if (pending === undefined) return { kind: 'cleared', held };
  // The check count is the bill's only ceiling: a round that used the last check on a go does
  // not ask the next profile past it.
  const used = held.checks ?? 0;
  if (used >= config.maxChecks) {
    const message = `${used} checks used without a go from every profile (profile "${pending}" not asked again)`;
    return { kind: 'done', refusal: true, actions: refuse(held, RefusalToken.Expired, message, now, generation) };
  }

  const next: HeldJobStatus = withHorizon({ ...held, waits: waitStates(view.conditions, held, view.afterMs, now) }, view, config);
  const due = isStaleInstant(held, view.afterMs) ? undefined : epochOf(held.nextCheckAt);
  if (due !== undefined && now < due && cleared.size === 0) {
    return { kind: 'done', actions: [...writeIfChanged(status, next, now, generation), { type: 'wakeAt', at: due }] };
  }
  // A running check must be stoppable by a cancel: the finalizer first. Nothing else is
  // written before the check: its answer's write records the hold and the round's start too.
  return {
    kind: 'done',
    actions: [
      ...addFinalizer(heldJob),
      { type: 'runCheck', profile: profiles.get(pending) as Profile, target: view.spec.target, basis: held },
    ],
  };
}
