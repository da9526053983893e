// Whether a write ended a hold, and how: the one rule behind waitgate_hold_duration_seconds.
// Pure: the executor asks it about each status or finalizer write that succeeded, with the
// object before and after the write, so each end is counted at the one write that records it.
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { epochOf } from '../../api/time.js';
import { FINALIZER, HoldOutcome, Phase, isTerminal } from '../../api/vocabulary.js';

/** The parts of a HeldJob the rule reads. */
export interface HoldSide {
  readonly metadata: { readonly deletionTimestamp?: unknown; readonly finalizers?: readonly string[] | undefined };
  readonly status?: HeldJobStatus | undefined;
}

export interface HoldEnd {
  readonly outcome: HoldOutcome;
  /** From the first hold (status.heldSince) to `now`, never negative. */
  readonly seconds: number;
}

/**
 * The end this write recorded, if it recorded one. A hold is over once its launch is recorded
 * (launchedAt, which a launch taken back to be tried again keeps, or Running) or its phase is terminal; a
 * HeldJob never held (no heldSince) has no hold to measure. So an end is seen at exactly one
 * write: the next pass, or a new operator after a restart, reads a status that is already over.
 */
export function holdEndOf(before: HoldSide, after: HoldSide, now: number): HoldEnd | undefined {
  const was = before.status ?? {};
  const heldSince = epochOf(was.heldSince);
  if (heldSince === undefined || isLaunched(was) || isTerminal(was.phase)) return undefined;
  const outcome = outcomeOf(before, after);
  return outcome === undefined ? undefined : { outcome, seconds: Math.max(0, (now - heldSince) / 1000) };
}

/** Its launch recorded: launchedAt (kept by a launch taken back to be tried again), or Running. */
const isLaunched = (status: HeldJobStatus): boolean => status.launchedAt !== undefined || status.phase === Phase.Running;

function outcomeOf(before: HoldSide, after: HoldSide): HoldOutcome | undefined {
  const status = after.status ?? {};
  if (isLaunched(status)) return HoldOutcome.Launched;
  if (status.phase === Phase.Refused) return HoldOutcome.Refused;
  if (status.phase === Phase.Failed) return HoldOutcome.Failed;
  // Deleted while still held: the finalizer's removal is the cancel's one write.
  const hadFinalizer = before.metadata.finalizers?.includes(FINALIZER) ?? false;
  const hasFinalizer = after.metadata.finalizers?.includes(FINALIZER) ?? false;
  if (after.metadata.deletionTimestamp && hadFinalizer && !hasFinalizer) return HoldOutcome.Cancelled;
  return undefined;
}

/**
 * The end of a hold the informer saw deleted (its last state): a cancel, when it was still held
 * and went at once, carrying no finalizer (so no deletionTimestamp was ever seen). One deleted
 * under the finalizer ended at the finalizer's removal (holdEndOf), and its last state shows it.
 */
export function holdEndOfGone(lastSeen: HoldSide, now: number): HoldEnd | undefined {
  if (lastSeen.metadata.deletionTimestamp || lastSeen.metadata.finalizers?.includes(FINALIZER)) return undefined;
  const stillHeld = { ...lastSeen, metadata: { finalizers: [FINALIZER] } };
  const gone = { ...lastSeen, metadata: { deletionTimestamp: true, finalizers: [] } };
  return holdEndOf(stillHeld, gone, now);
}
