// Pure helpers that build statuses and status writes for the decisions.
import { isDeepStrictEqual } from 'node:util';
import { boundedStatus } from '../../api/bounded-text.js';
import { CheckVerdict } from '../../api/check-verdict.js';
import { setCondition } from '../../api/conditions.js';
import type { HeldJobStatus, WaitCondition } from '../../api/heldjob-schema.js';
import { refusedStatus } from '../../api/refusal-rules.js';
import { withSummary } from '../../api/summary-conditions.js';
import { epochOf } from '../../api/time.js';
import {
  ConditionType,
  EventReason,
  EventType,
  FINALIZER,
  REFUSAL_REASONS,
  WaitState,
  type ConditionReason,
  type RefusalToken,
} from '../../api/vocabulary.js';
import { waitLabel } from '../../api/wait-label.js';
import type { Action, EventSpec } from './actions.js';
import type { ObservedHeldJob } from './observed.js';
import type { HeldJobView } from './view.js';

/** The status as a write sends it: its summary, and every message bounded. */
const written = (status: HeldJobStatus, now: number, generation: number | undefined): HeldJobStatus =>
  boundedStatus(withSummary(status, now, generation));

/**
 * A status write: `status` with its summary conditions (Ready, Reconciling, Stalled) and its
 * observedGeneration brought up to date and every message in it bounded (boundedStatus: a
 * message over the apiserver's limits would fail the write on every try), then the event and
 * the refusal metric if given. Every status a decision writes goes through here.
 */
export function updateStatus(
  status: HeldJobStatus,
  now: number,
  generation: number | undefined,
  extra: { readonly event?: EventSpec | undefined; readonly refusal?: RefusalToken } = {},
): Action {
  return {
    type: 'updateStatus',
    status: written(status, now, generation),
    ...(extra.event ? { event: extra.event } : {}),
    ...(extra.refusal ? { refusal: extra.refusal } : {}),
  };
}

/**
 * The one way a decision writes status when it may not have changed: only when it did, with
 * its event if it did. `basis` is what must differ from `before` for the write to be worth it
 * (default: `next` itself; a check about to run passes the status without its refreshed
 * per-condition states, which the check's own answer writes anyway).
 */
export function writeIfChanged(
  before: HeldJobStatus,
  next: HeldJobStatus,
  now: number,
  generation: number | undefined,
  event?: EventSpec,
  basis: HeldJobStatus = next,
): Action[] {
  if (isDeepStrictEqual(before, written(basis, now, generation))) return [];
  return [updateStatus(next, now, generation, { event })];
}

/**
 * A status that has nothing new but a generation its conditions have not seen (the spec was
 * edited): written once, so observedGeneration keeps up and kstatus does not wait forever;
 * with `event` when the edit is worth saying.
 */
export function observeGeneration(status: HeldJobStatus, now: number, generation: number | undefined, event?: EventSpec): Action[] {
  if (generation === undefined || status.observedGeneration === generation) return [];
  return [updateStatus(status, now, generation, { event })];
}

/**
 * Gives the scope slots back for good (idempotent), as the hold ends or goes, when the scope can
 * be told; a place that cannot lapses with its lease.
 */
export function giveBackScope(view: HeldJobView): Action[] {
  return view.scopeKey === undefined ? [] : [{ type: 'releaseScope', scopeKey: view.scopeKey, ended: true }];
}

export const hasFinalizer = (heldJob: ObservedHeldJob): boolean => heldJob.metadata.finalizers?.includes(FINALIZER) ?? false;

/** Puts the finalizer on (before a check or a launch: there is something to clean up). */
export function addFinalizer(heldJob: ObservedHeldJob): Action[] {
  const have = heldJob.metadata.finalizers ?? [];
  return have.includes(FINALIZER) ? [] : [{ type: 'setFinalizers', finalizers: [...have, FINALIZER] }];
}

/** Takes the finalizer off (nothing is left to clean up). */
export function removeFinalizer(heldJob: ObservedHeldJob): Action[] {
  const have = heldJob.metadata.finalizers ?? [];
  return have.includes(FINALIZER) ? [{ type: 'setFinalizers', finalizers: have.filter((f) => f !== FINALIZER) }] : [];
}

/** The status once the HeldJob stops waiting: WAITED stops counting, the wait is recorded. */
export function stopWaiting(status: HeldJobStatus, now: number, reason: ConditionReason, generation: number | undefined): HeldJobStatus {
  // Nothing bounds a wait that is over: givesUpAt goes with it (releaseAt stays, a fact).
  const { waitingSince: _w, nextCheckAt: _n, givesUpAt: _g, ...rest } = status;
  const heldSince = epochOf(status.heldSince);
  return {
    ...rest,
    ...(heldSince !== undefined ? { waitedSeconds: Math.max(0, Math.round((now - heldSince) / 1000)) } : {}),
    conditions: setCondition(status.conditions, { type: ConditionType.Waiting, status: 'False', reason }, now, generation),
  };
}

/** Refuses the HeldJob for good: one status write with its Event, and the refusal metric. */
export function refuse(status: HeldJobStatus, token: RefusalToken, message: string, now: number, generation: number | undefined): Action[] {
  const base = status.waitingSince ? stopWaiting(status, now, REFUSAL_REASONS[token], generation) : status;
  return [
    updateStatus(refusedStatus(base, { token, message }, now, generation), now, generation, {
      event: { type: EventType.Warning, reason: EventReason.Refused, message: `${token}: ${message}` },
      refusal: token,
    }),
  ];
}

/** Each condition and how it stands, for `kubectl describe`. */
export function waitStates(
  conditions: readonly WaitCondition[],
  status: HeldJobStatus,
  afterMs: number | undefined,
  now: number,
): NonNullable<HeldJobStatus['waits']> {
  const cleared = new Set(status.clearedProfiles ?? []);
  return conditions.map((c) => {
    if ('after' in c) {
      const done = afterMs !== undefined && now >= afterMs;
      return { condition: waitLabel([c]), state: done ? WaitState.Cleared : WaitState.Waiting };
    }
    if ('approval' in c) {
      const a = status.approval;
      return a
        ? { condition: waitLabel([c]), state: WaitState.Cleared, detail: `approved by ${a.by} at ${a.at}` }
        : { condition: waitLabel([c]), state: WaitState.Waiting, detail: `a member of ${c.approval} says go (waitgate approve)` };
    }
    if (cleared.has(c.profile)) return { condition: c.profile, state: WaitState.Cleared, detail: 'answered go in this round' };
    if (status.lastCheckProfile === c.profile && status.lastExitCode !== undefined) {
      return { condition: c.profile, state: WaitState.Waiting, detail: `last exit code ${status.lastExitCode}` };
    }
    // Not asked again while another holds the rounds up (profile-order.ts).
    if (status.lastVerdicts?.[c.profile] === CheckVerdict.Go) {
      return { condition: c.profile, state: WaitState.Waiting, detail: 'said go; asked again once the others say go' };
    }
    return { condition: c.profile, state: WaitState.NotChecked };
  });
}
