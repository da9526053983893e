// A trigger without conditions, bounded as GitHub's concurrency groups are (#30, finding 4):
// for one trigger and target, at most one Job running and one hold pending, and the newest
// pending wins. A delivery that meets a pending hold makes the next hold and supersedes the
// pending one (api/superseded-hold.ts): the operator ends it unless its Job already exists,
// and its delivery is counted on the trigger and target's wait-superseded record. A delivery
// that meets two holds already started is counted there too, instead of making a HeldJob
// (and, minutes later, a Job carrying the whole spec for days). Pure: the live HeldJobs come
// in, read by name.
import { findCondition } from '../../api/conditions.js';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { Annotations, ConditionType, isTerminal, Phase } from '../../api/vocabulary.js';
import type { LabelEvent } from '../forges/event.js';
import { generationOf, isOwnRecord, recordedOutcome, type HoldDecision, type Remembered } from './plan.js';

/** How many holds of one trigger and target may be live at once: one running, one pending. */
export const MAX_LIVE_HOLDS = 2;

/**
 * How many superseded holds may wait for the operator to end them. Past that (no operator
 * about, or one far behind), a delivery that meets a pending hold is counted on the record
 * instead of making another: what a target's deliveries leave stays bounded with no operator.
 */
export const MAX_UNENDED_SUPERSEDED = 3;

/** How many generations below the remembered one a delivery reads: every hold that can still be live. */
export const BOUNDED_LOOK_BACK = MAX_LIVE_HOLDS - 1 + MAX_UNENDED_SUPERSEDED;

/**
 * Whether a live hold has started: its launch is recorded (Running, launchedAt, a Launched
 * condition). A hold queued for its scope place has its Job's name in status and is still pending.
 */
export function started(hj: HeldJobObject): boolean {
  const status = hj.status;
  return (
    status?.phase === Phase.Running ||
    status?.launchedAt !== undefined ||
    findCondition(status?.conditions, ConditionType.Launched) !== undefined
  );
}

/** A hold (not a refusal record) not yet ended, and not already superseded by a newer one. */
function isLiveHold(hj: HeldJobObject): boolean {
  const annotations = hj.metadata.annotations;
  return (
    annotations?.[Annotations.refusal] === undefined &&
    annotations?.[Annotations.supersededBy] === undefined &&
    !isTerminal(hj.status?.phase)
  );
}

/**
 * The holds a hold of generation `generation` supersedes: live, not started, and older. The
 * delivery that made it marks them; a later handling of the same delivery marks what is left,
 * and counts those marked by its hold (`by`) that the operator has not yet ended.
 */
export function pendingBefore(live: readonly HeldJobObject[], generation: number, by?: string): HeldJobObject[] {
  const markedBy = (h: HeldJobObject) => by !== undefined && h.metadata.annotations?.[Annotations.supersededBy] === by;
  return live.filter(
    (h) =>
      (isLiveHold(h) || (markedBy(h) && !isTerminal(h.status?.phase))) &&
      !started(h) &&
      generationOf(h) > 0 &&
      generationOf(h) < generation,
  );
}

/**
 * Whether a delivery of a trigger without conditions may hold, from the live HeldJobs of that
 * trigger and target:
 * 1. its own HeldJob, from an earlier handling of the same delivery, is its answer (with the
 *    pending holds it is still to supersede);
 * 2. a hold not yet started is the pending one: this delivery makes the next hold, which
 *    supersedes it (the newest pending wins);
 *    While MAX_UNENDED_SUPERSEDED holds it superseded wait for the operator, it is counted instead;
 * 3. MAX_LIVE_HOLDS holds started and none pending: this delivery is counted on the record;
 * 4. otherwise the next generation.
 */
export function decideBounded(event: LabelEvent, trigger: string, live: readonly HeldJobObject[], remembered: Remembered): HoldDecision {
  const own = live.find((r) => isOwnRecord(r, event));
  if (own)
    return { kind: 'recorded', recorded: recordedOutcome(own), supersedes: pendingBefore(live, generationOf(own), own.metadata.name) };
  const holds = live.filter(isLiveHold);
  const generation = Math.max(remembered.generation ?? 0, ...live.map(generationOf)) + 1;
  const pending = holds.filter((h) => !started(h));
  const unended = live.filter((h) => h.metadata.annotations?.[Annotations.supersededBy] !== undefined && !isTerminal(h.status?.phase));
  if (pending.length > 0 && unended.length >= MAX_UNENDED_SUPERSEDED) {
    const names = pending.map((h) => h.metadata.name).join(', ');
    return {
      kind: 'superseded',
      by: pending[0]?.metadata.name ?? '',
      message: `HeldJob ${names} is pending for ${trigger} on this target, and ${String(unended.length)} holds it superseded are not yet ended by the operator`,
    };
  }
  if (pending.length > 0) return { kind: 'hold', generation, supersedes: pendingBefore(live, generation) };
  if (holds.length >= MAX_LIVE_HOLDS) {
    const names = holds.map((h) => h.metadata.name).join(', ');
    return {
      kind: 'superseded',
      by: holds[0]?.metadata.name ?? '',
      message: `HeldJobs ${names} already run for ${trigger} on this target`,
    };
  }
  return { kind: 'hold', generation };
}
