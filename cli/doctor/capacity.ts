// The capacity arithmetic at the current settings, as doctor prints it. Pure.
//
// A check slot is busy for as long as a check runs. Assume the worst a check may take, the
// whole timeout: one slot then serves one check per timeout, so a hold that checks once per
// cadence needs cadence / timeout of a slot, and one slot serves
//
//     holds per slot = floor(cadence / check timeout)
//
// held jobs. At the defaults (10 s timeout) that is 6 at the first, 1-minute cadence and 90
// once backed off to 15 minutes. Slots are counted fleet-wide (every operator on one Valkey).
import { BACKOFF_CEILING_MS, cadenceMs, effectiveCheckSlots, lastCheckOffsetMs } from '../../api/cadence.js';
import { formatDuration, formatSpan } from '../format.js';

export interface CapacitySettings {
  readonly intervalMs: number;
  readonly checkTimeoutMs: number;
  readonly checkSlots: number;
  readonly concurrency: number;
  readonly maxMs: number;
  readonly maxChecks: number;
  readonly maxFaults: number;
  readonly afterMaxMs: number;
}

export interface Capacity {
  readonly configuredSlots: number;
  /** Slots checks may really use: below the concurrency, at least one. */
  readonly slots: number;
  readonly concurrency: number;
  readonly firstCadenceMs: number;
  readonly backedOffCadenceMs: number;
  /** The check after which the cadence has reached its ceiling, and when it runs (from the first). */
  readonly backedOffAfterChecks: number;
  readonly backedOffAtMs: number;
  readonly checkTimeoutMs: number;
  readonly holdsPerSlotFirst: number;
  readonly holdsPerSlotBackedOff: number;
  readonly holdsFirst: number;
  readonly holdsBackedOff: number;
  /** When a profile hold that only ever hears "not yet" gives up (wait-expired), from its first check. */
  readonly givesUpAtMs: number;
  /** Which bound ends it first: the check count, or the maximum wait. */
  readonly givesUpBy: 'checks' | 'time';
  readonly maxChecks: number;
  readonly maxMs: number;
  /** When a hold whose check never answers gives up (wait-unanswerable), from its first check. */
  readonly unanswerableAtMs: number;
  readonly maxFaults: number;
  readonly afterMaxMs: number;
}

export function capacity(s: CapacitySettings): Capacity {
  const slots = effectiveCheckSlots(s.checkSlots, s.concurrency);
  const backedOff = Math.max(BACKOFF_CEILING_MS, s.intervalMs);
  let backedOffAfterChecks = 1;
  let backedOffAtMs = 0;
  while (cadenceMs(backedOffAfterChecks, s.intervalMs) < backedOff) {
    backedOffAtMs += cadenceMs(backedOffAfterChecks, s.intervalMs);
    backedOffAfterChecks++;
  }
  const perSlot = (cadence: number) => Math.floor(cadence / Math.max(1, s.checkTimeoutMs));
  const givesUpAtMs = lastCheckOffsetMs(s.maxChecks, s.intervalMs, s.maxMs);
  let unanswerableAtMs = 0;
  for (let done = 1; done < s.maxFaults; done++) unanswerableAtMs += cadenceMs(done, s.intervalMs);
  return {
    configuredSlots: s.checkSlots,
    slots,
    concurrency: s.concurrency,
    firstCadenceMs: s.intervalMs,
    backedOffCadenceMs: backedOff,
    backedOffAfterChecks,
    backedOffAtMs,
    checkTimeoutMs: s.checkTimeoutMs,
    holdsPerSlotFirst: perSlot(s.intervalMs),
    holdsPerSlotBackedOff: perSlot(backedOff),
    holdsFirst: slots * perSlot(s.intervalMs),
    holdsBackedOff: slots * perSlot(backedOff),
    givesUpAtMs,
    givesUpBy: givesUpAtMs >= s.maxMs ? 'time' : 'checks',
    maxChecks: s.maxChecks,
    maxMs: s.maxMs,
    unanswerableAtMs: Math.min(unanswerableAtMs, s.maxMs),
    maxFaults: s.maxFaults,
    afterMaxMs: s.afterMaxMs,
  };
}

export function capacityLines(c: Capacity): string[] {
  const slotWhy =
    c.concurrency === 1
      ? 'WAITGATE_CONCURRENCY is 1, so a check takes the only slot a Job could use'
      : c.slots < c.configuredSlots
        ? `WAITGATE_WAIT_CHECK_SLOTS ${c.configuredSlots}, held below WAITGATE_CONCURRENCY ${c.concurrency}`
        : `WAITGATE_WAIT_CHECK_SLOTS ${c.configuredSlots}, below WAITGATE_CONCURRENCY ${c.concurrency}`;
  const holds = (perSlot: number, all: number) =>
    perSlot === 0
      ? 'not even one (a check may outlast the cadence)'
      : `about ${perSlot}${c.slots > 1 ? ` (${all} over ${c.slots} slots)` : ''}`;
  const first = formatDuration(c.firstCadenceMs);
  const backed = formatDuration(c.backedOffCadenceMs);
  const lines = [
    `check slots: ${c.slots}, shared by every operator on this Valkey (${slotWhy})`,
    `held jobs one slot serves (cadence / check timeout, assuming every check runs its whole ${formatSpan(c.checkTimeoutMs)} timeout):`,
    `  ${holds(c.holdsPerSlotFirst, c.holdsFirst)} while they check every ${first} (the first cadence)`,
    `  ${holds(c.holdsPerSlotBackedOff, c.holdsBackedOff)} once backed off to every ${backed}${c.backedOffAfterChecks > 1 ? ` (from the ${ordinal(c.backedOffAfterChecks)} check on, ${formatDuration(c.backedOffAtMs)} after the first)` : ''}`,
    `  more than that and checks queue for a slot (wait_capacity_exceeded): add slots, lengthen WAITGATE_WAIT_INTERVAL_MS, or raise WAITGATE_CONCURRENCY`,
    c.givesUpBy === 'checks'
      ? `a profile hold that keeps hearing "not yet" gives up (wait-expired) at its ${ordinal(c.maxChecks)} check, ${formatDuration(c.givesUpAtMs)} after the first (without jitter): the check count binds before the ${formatDuration(c.maxMs)} maximum wait`
      : `a profile hold that keeps hearing "not yet" gives up (wait-expired) ${formatDuration(c.maxMs)} after its first check: the maximum wait binds before the ${ordinal(c.maxChecks)} check`,
    `a check that never answers gives up (wait-unanswerable) at its ${ordinal(c.maxFaults)} "could not tell" in a row, ${formatSpan(c.unanswerableAtMs)} after the first`,
    `an after may lie at most ${formatDuration(c.afterMaxMs)} past a HeldJob's creation (WAITGATE_WAIT_AFTER_MAX_MS)`,
  ];
  return lines;
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}
