import { describe, expect, test } from '@jest/globals';
import { capacity, capacityLines, type CapacitySettings } from './capacity.js';

const defaults: CapacitySettings = {
  intervalMs: 60_000,
  checkTimeoutMs: 10_000,
  checkSlots: 1,
  concurrency: undefined,
  maxMs: 86_400_000,
  maxChecks: 96,
  maxFaults: 5,
  afterMaxMs: 2_592_000_000,
};

describe('capacity arithmetic', () => {
  test('at the defaults: 6 holds per slot at 1 minute, 90 at 15 minutes; the 96th check at 19h43m binds', () => {
    const c = capacity(defaults);
    expect(c).toMatchObject({
      slots: 1,
      firstCadenceMs: 60_000,
      backedOffCadenceMs: 900_000,
      holdsPerSlotFirst: 6,
      holdsPerSlotBackedOff: 90,
      holdsFirst: 6,
      holdsBackedOff: 90,
      givesUpBy: 'checks',
    });
    expect(Math.floor(c.givesUpAtMs / 60_000)).toBe(19 * 60 + 43);
    // 60 + 67.2 + 75.3 + 84.3 s: the fifth fault in a row.
    expect(Math.round(c.unanswerableAtMs / 1000)).toBe(287);
    const text = capacityLines(c).join('\n');
    expect(text).toMatch(/about 6 while they check every 1m/);
    expect(text).toMatch(/about 90 once backed off to every 15m/);
    expect(text).toMatch(/96th check, 19h43m after the first/);
    expect(text).toMatch(/assuming every check runs its whole 10s timeout/);
    expect(text).toMatch(
      /^Jobs: no fleet-wide cap on running Jobs \(WAITGATE_CONCURRENCY unset or 0\); WAITGATE_SCOPE_LIMIT per repository/m,
    );
    expect(capacityLines(c)[1]).toBe(
      'check slots: 1, shared by every operator on this Valkey (WAITGATE_WAIT_CHECK_SLOTS 1; no Job cap holds them back)',
    );
    expect(text).toMatch(
      /checks queue for a slot \(wait_capacity_exceeded, waitgate_checks_queued\): add slots \(WAITGATE_WAIT_CHECK_SLOTS\) or lengthen WAITGATE_WAIT_INTERVAL_MS; WAITGATE_CONCURRENCY is unset/,
    );
  });

  test('several profiles: as long as one profile while the same one holds up every round; at worst the count runs out n times as fast', () => {
    const c = capacity(defaults);
    const hm = (ms: number) => `${Math.floor(ms / 3_600_000)}h${Math.floor((ms % 3_600_000) / 60_000)}m`;
    expect(c.givesUpSeveral.map((g) => [g.profiles, hm(g.steadyMs), hm(g.worstMs)])).toEqual([
      [2, '19h42m', '9h47m'],
      [3, '19h41m', '6h28m'],
      [4, '19h39m', '4h49m'],
    ]);
    const text = capacityLines(c).join('\n');
    expect(text).toMatch(/while the same one keeps saying "not yet" .*: 19h42m with 2, 19h41m with 3, 19h39m with 4 profiles/);
    expect(text).toMatch(/every round asks them all\): 9h47m with 2, 6h28m with 3, 4h49m with 4 profiles/);
  });

  test('more slots multiply; they stay below the concurrency', () => {
    const c = capacity({ ...defaults, checkSlots: 8, concurrency: 4 });
    expect(c).toMatchObject({ slots: 3, holdsFirst: 18, holdsBackedOff: 270 });
    const lines = capacityLines(c);
    expect(lines[0]).toMatch(/^Jobs: at most 4 Jobs running at once across the fleet \(WAITGATE_CONCURRENCY\)/);
    expect(lines[1]).toMatch(/check slots: 3, .*WAITGATE_WAIT_CHECK_SLOTS 8, held below WAITGATE_CONCURRENCY 4/);
    expect(lines.join('\n')).toMatch(/raise WAITGATE_CONCURRENCY with the slots/);
  });

  test('a cap above the slots leaves them as configured', () => {
    const c = capacity({ ...defaults, checkSlots: 2, concurrency: 10 });
    expect(c.slots).toBe(2);
    expect(capacityLines(c)[1]).toMatch(/WAITGATE_WAIT_CHECK_SLOTS 2, below WAITGATE_CONCURRENCY 10/);
    expect(capacityLines(c).join('\n')).toMatch(/add slots, lengthen WAITGATE_WAIT_INTERVAL_MS, or raise WAITGATE_CONCURRENCY/);
  });

  test('at concurrency 1 checks cannot be kept below the Jobs, and doctor says so', () => {
    const c = capacity({ ...defaults, checkSlots: 1, concurrency: 1 });
    expect(c.slots).toBe(1);
    expect(capacityLines(c)[1]).toMatch(/WAITGATE_CONCURRENCY is 1: one slot all the same/);
  });

  test('a longer check timeout serves fewer holds; one longer than the cadence serves none', () => {
    expect(capacity({ ...defaults, checkTimeoutMs: 30_000 })).toMatchObject({ holdsPerSlotFirst: 2, holdsPerSlotBackedOff: 30 });
    const c = capacity({ ...defaults, checkTimeoutMs: 120_000 });
    expect(c.holdsPerSlotFirst).toBe(0);
    expect(capacityLines(c).join('\n')).toMatch(/not even one/);
  });

  test('an hourly interval is not cut to 15 minutes; a short maximum wait binds before the count', () => {
    const hourly = capacity({ ...defaults, intervalMs: 3_600_000 });
    expect(hourly).toMatchObject({ backedOffCadenceMs: 3_600_000, holdsPerSlotFirst: 360, givesUpBy: 'time', givesUpAtMs: 86_400_000 });
    expect(capacityLines(hourly).join('\n')).toMatch(/the maximum wait binds before the 96th check/);
    expect(capacity({ ...defaults, maxMs: 3_600_000 })).toMatchObject({ givesUpBy: 'time', givesUpAtMs: 3_600_000 });
  });
});
