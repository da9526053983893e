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
// A hold naming several profiles spends its check count faster only when the profile that holds
// each round up keeps changing (api/cadence.ts, lastCheckOffsetMs): both figures are printed.
import { BACKOFF_CEILING_MS, cadenceMs, effectiveCheckSlots, lastCheckOffsetMs } from '../../api/cadence.js';
import { MAX_CONDITIONS } from '../../api/heldjob-schema.js';
import { describeJobCap } from '../../api/job-cap.js';
import { formatDuration, formatSpan } from '../format.js';

export interface CapacitySettings {
  readonly intervalMs: number;
  readonly checkTimeoutMs: number;
  readonly checkSlots: number;
  /** WAITGATE_CONCURRENCY; undefined: no fleet-wide cap on running Jobs. */
  readonly concurrency: number | undefined;
  readonly maxMs: number;
  readonly maxChecks: number;
  readonly maxFaults: number;
  readonly afterMaxMs: number;
}

export interface Capacity {
  readonly configuredSlots: number;
  /** Slots checks may really use: below the concurrency when one is set, at least one. */
  readonly slots: number;
  readonly concurrency: number | undefined;
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
  /**
   * The same for a hold naming `profiles` profiles (2 up to the most a hold may name): while the
   * same one keeps saying "not yet" and the others said go in the first round (`steadyMs`), and
   * at worst, every round asking them all (`worstMs`).
   */
  readonly givesUpSeveral: readonly { readonly profiles: number; readonly steadyMs: number; readonly worstMs: number }[];
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
  const givesUpSeveral = Array.from({ length: MAX_CONDITIONS - 1 }, (_, i) => i + 2).map((profiles) => ({
    profiles,
    steadyMs: lastCheckOffsetMs(s.maxChecks, s.intervalMs, s.maxMs, { first: profiles }),
    worstMs: lastCheckOffsetMs(s.maxChecks, s.intervalMs, s.maxMs, { each: profiles }),
  }));
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
    givesUpSeveral,
    unanswerableAtMs: Math.min(unanswerableAtMs, s.maxMs),
    maxFaults: s.maxFaults,
    afterMaxMs: s.afterMaxMs,
  };
}

export function capacityLines(c: Capacity): string[] {
  const slotWhy =
    c.concurrency === undefined
      ? `WAITGATE_WAIT_CHECK_SLOTS ${c.configuredSlots}; no Job cap holds them back`
      : c.concurrency === 1
        ? 'WAITGATE_CONCURRENCY is 1: one slot all the same, the one setting where checks cannot be kept below the Jobs'
        : c.slots < c.configuredSlots
          ? `WAITGATE_WAIT_CHECK_SLOTS ${c.configuredSlots}, held below WAITGATE_CONCURRENCY ${c.concurrency}`
          : `WAITGATE_WAIT_CHECK_SLOTS ${c.configuredSlots}, below WAITGATE_CONCURRENCY ${c.concurrency}`;
  const knobs =
    c.concurrency === undefined
      ? 'add slots (WAITGATE_WAIT_CHECK_SLOTS) or lengthen WAITGATE_WAIT_INTERVAL_MS; WAITGATE_CONCURRENCY is unset and holds none back'
      : c.slots < c.configuredSlots
        ? 'raise WAITGATE_CONCURRENCY with the slots (they are kept below it), or lengthen WAITGATE_WAIT_INTERVAL_MS'
        : 'add slots, lengthen WAITGATE_WAIT_INTERVAL_MS, or raise WAITGATE_CONCURRENCY';
  const several = c.givesUpSeveral;
  const listed = (pick: (g: Capacity['givesUpSeveral'][number]) => number) =>
    several.map((g) => `${formatDuration(pick(g))} with ${g.profiles}`).join(', ');
  const holds = (perSlot: number, all: number) =>
    perSlot === 0
      ? 'not even one (a check may outlast the cadence)'
      : `about ${perSlot}${c.slots > 1 ? ` (${all} over ${c.slots} slots)` : ''}`;
  const first = formatDuration(c.firstCadenceMs);
  const backed = formatDuration(c.backedOffCadenceMs);
  const lines = [
    `Jobs: ${describeJobCap(c.concurrency)}; WAITGATE_SCOPE_LIMIT per repository; checks do not count against either`,
    `check slots: ${c.slots}, shared by every operator on this Valkey (${slotWhy})`,
    `held jobs one slot serves (cadence / check timeout, assuming every check runs its whole ${formatSpan(c.checkTimeoutMs)} timeout):`,
    `  ${holds(c.holdsPerSlotFirst, c.holdsFirst)} while they check every ${first} (the first cadence)`,
    `  ${holds(c.holdsPerSlotBackedOff, c.holdsBackedOff)} once backed off to every ${backed}${c.backedOffAfterChecks > 1 ? ` (from the ${ordinal(c.backedOffAfterChecks)} check on, ${formatDuration(c.backedOffAtMs)} after the first)` : ''}`,
    `  more than that and checks queue for a slot (wait_capacity_exceeded, waitgate_checks_queued): ${knobs}`,
    c.givesUpBy === 'checks'
      ? `a profile hold that keeps hearing "not yet" gives up (wait-expired) at its ${ordinal(c.maxChecks)} check, ${formatDuration(c.givesUpAtMs)} after the first (without jitter): the check count binds before the ${formatDuration(c.maxMs)} maximum wait`
      : `a profile hold that keeps hearing "not yet" gives up (wait-expired) ${formatDuration(c.maxMs)} after its first check: the maximum wait binds before the ${ordinal(c.maxChecks)} check`,
    ...(several.length > 0
      ? [
          `  naming several profiles, while the same one keeps saying "not yet" (it is asked first, the others only once it says go): ${listed((g) => g.steadyMs)} profiles (the others said go in the first round)`,
          `  at worst, the others saying go and a different one holding up each round (every round asks them all): ${listed((g) => g.worstMs)} profiles`,
        ]
      : []),
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
