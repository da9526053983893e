import { describe, expect, test } from '@jest/globals';
import {
  cadenceMs,
  effectiveCheckSlots,
  givesUpAtMs,
  lastCheckOffsetMs,
  nextCheckDelayMs,
  slotDeniedDelayMs,
  type RoundChecks,
} from './cadence.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

describe('cadence', () => {
  test.each([
    [1, 60_000, 60_000],
    [2, 60_000, 67_200],
    [10, 60_000, Math.round(60_000 * 1.12 ** 9)],
    [25, 60_000, 900_000],
    [95, 60_000, 900_000],
    [1, 30_000, 30_000],
    [1, HOUR, HOUR],
    [50, HOUR, HOUR],
  ])('after %d checks at interval %d: %d ms', (done, interval, expected) => {
    expect(Math.round(cadenceMs(done, interval))).toBe(expected);
  });

  test('backs off toward 15 minutes and never past it', () => {
    let prev = 0;
    for (let done = 1; done <= 96; done++) {
      const c = cadenceMs(done, 60_000);
      expect(c).toBeGreaterThanOrEqual(prev);
      expect(c).toBeLessThanOrEqual(15 * MIN);
      prev = c;
    }
    expect(prev).toBe(15 * MIN);
  });

  test('at the defaults the 96th check lands at about 19 h 40 min, before the 24 h maximum', () => {
    const t = lastCheckOffsetMs(96, 60_000, 24 * HOUR);
    expect(t).toBeGreaterThan(19 * HOUR + 35 * MIN);
    expect(t).toBeLessThan(19 * HOUR + 50 * MIN);
    // Even with the most jitter every time, the count still binds before 24 hours.
    expect(t * 1.1).toBeLessThan(24 * HOUR);
  });

  test('with an hourly interval the 24 hours binds instead', () => {
    expect(lastCheckOffsetMs(96, HOUR, 24 * HOUR)).toBe(24 * HOUR);
  });

  // What docs/gate.md and waitgate doctor say of one profile and of several (the defaults:
  // 96 checks, 1 minute, 24 hours): a round asking n checks spends the count n times as fast,
  // and backs the cadence off n times as fast too.
  test.each<[string, string, Partial<RoundChecks>]>([
    ['one profile', '19h43m', {}],
    ['two, the second holding up every round (the first said go in the first round)', '19h42m', { first: 2 }],
    ['four, the last holding up every round', '19h39m', { first: 4 }],
    ['two profiles, every round asking both', '9h47m', { each: 2 }],
    ['three profiles, every round asking all three', '6h28m', { each: 3 }],
    ['four profiles, every round asking all four', '4h49m', { each: 4 }],
    ['a fraction or nonsense counts as one a round', '19h43m', { first: 0.5, each: -1 }],
  ])('%s: gives up %s after the first check', (_n, expected, rounds) => {
    const t = lastCheckOffsetMs(96, 60_000, 24 * HOUR, rounds);
    expect(`${Math.floor(t / HOUR)}h${Math.floor((t % HOUR) / MIN)}m`).toBe(expected);
  });

  test('a round asking several checks: the hold ends at the round that reaches the count', () => {
    // 10 checks, 3 a round: rounds end at 3, 6, 9 and 12 checks; three waits between them.
    expect(lastCheckOffsetMs(10, 60_000, 24 * HOUR, { each: 3 })).toBe(cadenceMs(3, 60_000) + cadenceMs(6, 60_000) + cadenceMs(9, 60_000));
    expect(lastCheckOffsetMs(1, 60_000, 24 * HOUR, { each: 4 })).toBe(0);
    // The maximum wait binds whatever the count.
    expect(lastCheckOffsetMs(96, HOUR, 24 * HOUR, { each: 2 })).toBe(24 * HOUR);
  });
});

describe('effectiveCheckSlots', () => {
  test.each<[string, number, number | undefined, number]>([
    ['no fleet-wide cap on Jobs: the slots as configured', 8, undefined, 8],
    ['a cap above the slots: as configured', 2, 10, 2],
    ['a cap at or below the slots: one fewer than the cap', 8, 4, 3],
    ['a cap of 1: one slot all the same', 4, 1, 1],
  ])('%s', (_n, slots, concurrency, expected) => {
    expect(effectiveCheckSlots(slots, concurrency)).toBe(expected);
  });
});

describe('nextCheckDelayMs', () => {
  test.each([
    ['no jitter', { checksDone: 1, intervalMs: 60_000, unit: 0, remainingMs: 1e9 }, 60_000],
    ['the most jitter adds 10%', { checksDone: 1, intervalMs: 60_000, unit: 0.9999999, remainingMs: 1e9 }, 66_000],
    ['jitter never subtracts', { checksDone: 1, intervalMs: 60_000, unit: -5, remainingMs: 1e9 }, 60_000],
    ['clamped to what is left of the maximum', { checksDone: 30, intervalMs: 60_000, unit: 0.5, remainingMs: 120_000 }, 120_000],
    [
      'an hourly interval under a 15 minute maximum stops at 15 minutes',
      { checksDone: 1, intervalMs: HOUR, unit: 0, remainingMs: 15 * MIN },
      15 * MIN,
    ],
    ['nothing left: due now', { checksDone: 3, intervalMs: 60_000, unit: 0, remainingMs: -5 }, 0],
  ])('%s', (_n, opts, expected) => {
    expect(nextCheckDelayMs(opts)).toBe(expected);
  });

  test('jitter spreads a hundred holds over up to 10%', () => {
    const delays = Array.from({ length: 100 }, (_, i) =>
      nextCheckDelayMs({ checksDone: 40, intervalMs: 60_000, unit: i / 100, remainingMs: 1e9 }),
    );
    expect(Math.min(...delays)).toBe(900_000);
    expect(Math.max(...delays)).toBeLessThanOrEqual(990_000);
    expect(new Set(delays).size).toBeGreaterThan(90);
  });
});

describe('slotDeniedDelayMs', () => {
  test.each([
    // checks done, interval, jitter unit, delay
    [1, 60_000, 0, 15_000],
    [1, 30_000, 0, 11_000],
    [60, 60_000, 0, 225_000],
    [0, 60_000, 0, 15_000],
    // Jitter adds up to 10% of the quarter, like a check's.
    [1, 60_000, 0.5, 15_750],
    [1, 60_000, 0.9999999, 16_500],
    [60, 60_000, 0.9999999, 247_500],
    // On the 11 s floor too: denied holds at the floor do not re-defer in lockstep.
    [1, 30_000, 0.5, 11_550],
    [1, 30_000, 0.9999999, 12_100],
    // Never below the floor, and never subtracts; a unit of 1 or more counts as just under 1.
    [1, 30_000, -3, 11_000],
    [1, 60_000, -0.5, 15_000],
    [1, 60_000, 1, 16_500],
    [1, 60_000, 7, 16_500],
  ])('after %d checks at %d, jitter unit %d: %d ms', (done, interval, unit, expected) => {
    expect(slotDeniedDelayMs(done, interval, unit)).toBe(expected);
  });

  test('jitter spreads a hundred denied holds at the floor over up to 10%', () => {
    const delays = Array.from({ length: 100 }, (_, i) => slotDeniedDelayMs(1, 30_000, i / 100));
    expect(Math.min(...delays)).toBe(11_000);
    expect(Math.max(...delays)).toBeLessThanOrEqual(12_100);
    expect(new Set(delays).size).toBeGreaterThan(90);
  });
});

describe('givesUpAtMs: when a profile hold gives up at the latest, from where it stands', () => {
  const T0 = Date.parse('2026-09-01T09:00:00Z');
  const defaults = { intervalMs: 60_000, maxChecks: 96 };
  const doctor = lastCheckOffsetMs(96, 60_000, 24 * HOUR);
  test.each([
    ['before the first check: the figure doctor prints', { checksDone: 0, nextRoundMs: T0, expiresAtMs: T0 + 24 * HOUR }, T0 + doctor],
    [
      'after 95 checks: the next one is the last',
      { checksDone: 95, nextRoundMs: T0 + 19 * HOUR, expiresAtMs: T0 + 24 * HOUR },
      T0 + 19 * HOUR,
    ],
    ['all checks spent: the next round is the end', { checksDone: 96, nextRoundMs: T0 + HOUR, expiresAtMs: T0 + 24 * HOUR }, T0 + HOUR],
    [
      'late checks (paused, slow slots): the maximum wait binds',
      { checksDone: 10, nextRoundMs: T0 + 23 * HOUR, expiresAtMs: T0 + 24 * HOUR },
      T0 + 24 * HOUR,
    ],
    [
      'a clock that ran out (profiles away past the maximum): the last check is the end',
      { checksDone: 3, nextRoundMs: T0 + 30 * HOUR, expiresAtMs: T0 + 24 * HOUR },
      T0 + 24 * HOUR,
    ],
  ])('%s', (_name, p, expected) => {
    expect(givesUpAtMs({ ...defaults, ...p })).toBe(expected);
  });

  test('refreshed after each check, it follows the cadence: never later than the first figure on schedule', () => {
    let next = T0;
    const first = givesUpAtMs({ ...defaults, checksDone: 0, nextRoundMs: T0, expiresAtMs: T0 + 24 * HOUR });
    for (let done = 1; done < 96; done++) {
      next += cadenceMs(done, 60_000);
      // The same sum, added in another order: equal to the millisecond.
      expect(givesUpAtMs({ ...defaults, checksDone: done, nextRoundMs: next, expiresAtMs: T0 + 24 * HOUR })).toBeCloseTo(first, -1);
    }
  });

  test('an hourly interval: the 24 hours binds', () => {
    expect(givesUpAtMs({ intervalMs: HOUR, maxChecks: 96, checksDone: 0, nextRoundMs: T0, expiresAtMs: T0 + 24 * HOUR })).toBe(
      T0 + 24 * HOUR,
    );
  });
});
