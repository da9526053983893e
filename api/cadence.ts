// The cadence of profile checks. Pure: the jitter's randomness comes in as a number.

/** Each delay is this much longer than the one before, up to the ceiling. */
export const BACKOFF_FACTOR = 1.12;
/** The cadence backs off toward 15 minutes, or toward the interval when that is longer. */
export const BACKOFF_CEILING_MS = 15 * 60_000;
/** Jitter adds up to 10% and never takes any away (that would cut under the 30 s floor). */
export const JITTER_MAX = 0.1;
/** A check denied a slot waits a quarter of the cadence, never less than this. */
export const SLOT_DENIED_MIN_MS = 11_000;
/** Holds whose conditions cleared but whose scope is full look again this often. */
export const SCOPE_RETRY_MS = 5_000;

/** The cadence after `checksDone` checks (>= 1), before jitter and clamping. */
export function cadenceMs(checksDone: number, intervalMs: number): number {
  const ceiling = Math.max(BACKOFF_CEILING_MS, intervalMs);
  const grown = intervalMs * BACKOFF_FACTOR ** Math.max(0, checksDone - 1);
  return Math.min(ceiling, grown);
}

/**
 * The delay until the next check: the cadence, plus jitter (`unit` in [0, 1) makes 0 to
 * +10%), clamped to what is left of the maximum wait so the last check lands on it.
 */
export function nextCheckDelayMs(opts: { checksDone: number; intervalMs: number; unit: number; remainingMs: number }): number {
  const jittered = cadenceMs(opts.checksDone, opts.intervalMs) * jitterFactor(opts.unit);
  return Math.max(0, Math.min(Math.round(jittered), opts.remainingMs));
}

/**
 * How long a check denied a slot waits before asking again: a quarter of the cadence, never
 * less than 11 s, plus the same jitter as a check (`unit` in [0, 1) makes 0 to +10%), so holds
 * denied together do not all ask again together. The jitter is added after the floor: it never
 * takes the delay under it, and spreads the holds that sit on it too.
 */
export function slotDeniedDelayMs(checksDone: number, intervalMs: number, unit = 0): number {
  const quarter = Math.max(SLOT_DENIED_MIN_MS, cadenceMs(Math.max(1, checksDone), intervalMs) / 4);
  return Math.round(quarter * jitterFactor(unit));
}

/** 1 to 1.1: jitter only ever adds, up to JITTER_MAX; a unit outside [0, 1) is clamped into it. */
function jitterFactor(unit: number): number {
  return 1 + JITTER_MAX * Math.min(Math.max(unit, 0), 0.999999);
}

/** How many checks the rounds of a profile hold ask: the first round, and each after it. */
export interface RoundChecks {
  readonly first: number;
  readonly each: number;
}

/**
 * When a profile hold that only ever hears "not yet" gives up (wait-expired), from its first
 * check, without jitter: at the round whose checks reach `maxChecks`, or at `maxMs`, whichever
 * comes first. The docs and `waitgate doctor` quote it (19 h 43 min at the defaults).
 *
 * Every check counts, and the cadence grows with the count, so what matters is how many checks
 * each round asks. A round asks the profiles until the first answer that is not go, and asks
 * first the one that held the last round up (operator/decide/profile-order.ts): one check a
 * round for one profile. For several while the same one keeps saying "not yet", one a round
 * too, after a first round that also asked the profiles written before it (`first`). At worst,
 * when the others say go and a different profile holds up every round, a round asks them all:
 * `each` is then the number of profiles.
 */
export function lastCheckOffsetMs(maxChecks: number, intervalMs: number, maxMs: number, rounds: Partial<RoundChecks> = {}): number {
  const each = Math.max(1, Math.floor(rounds.each ?? 1));
  const first = Math.max(1, Math.floor(rounds.first ?? each));
  let t = 0;
  for (let done = first; done < maxChecks; done += each) {
    t += cadenceMs(done, intervalMs);
    if (t >= maxMs) return maxMs;
  }
  return t;
}

/**
 * Check slots: WAITGATE_WAIT_CHECK_SLOTS, kept below WAITGATE_CONCURRENCY when that is set (at
 * least one), so that where the fleet's Jobs are capped, checks (Pods too, in pod mode) run
 * fewer at once than that cap. Checks and Jobs are counted in separate semaphores, so a check
 * never takes a Job's place either way. Without a fleet-wide cap on Jobs (`concurrency`
 * undefined) the configured slots stand.
 */
export function effectiveCheckSlots(checkSlots: number, concurrency: number | undefined): number {
  if (concurrency === undefined) return checkSlots;
  return Math.max(1, Math.min(checkSlots, concurrency - 1));
}

/** Where a profile hold stands, for {@link givesUpAtMs}. */
export interface HoldProgress {
  /** Checks run so far (status.checks). */
  readonly checksDone: number;
  /** When the next round of checks runs (status.nextCheckAt; during a round, now). */
  readonly nextRoundMs: number;
  /** When the maximum wait runs out (status.expiresAt): the last check runs then at the latest. */
  readonly expiresAtMs: number;
  readonly intervalMs: number;
  readonly maxChecks: number;
}

/**
 * When a profile hold that keeps hearing "not yet" gives up at the latest, from where it stands:
 * the round that reaches `maxChecks`, or the maximum wait, whichever comes first, without jitter
 * (jitter only makes checks later, so the maximum wait can only come sooner). Before the first
 * check (`checksDone` 0, `nextRoundMs` the first check) it is the first check plus
 * lastCheckOffsetMs, the figure doctor prints; refreshed after every check, it follows the
 * cadence the hold really got.
 */
export function givesUpAtMs(p: HoldProgress): number {
  const remaining = Math.max(0, p.expiresAtMs - p.nextRoundMs);
  const offset = lastCheckOffsetMs(p.maxChecks, p.intervalMs, remaining, { first: p.checksDone + 1, each: 1 });
  return Math.min(p.expiresAtMs, p.nextRoundMs + offset);
}
