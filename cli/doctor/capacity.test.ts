import { describe, expect, test } from '@jest/globals';
import { capacity, capacityLines, type CapacitySettings } from './capacity.js';

const defaults: CapacitySettings = {
  intervalMs: 60_000,
  checkTimeoutMs: 10_000,
  checkSlots: 1,
  concurrency: 4,
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
  });

  test('more slots multiply; they stay below the concurrency', () => {
    const c = capacity({ ...defaults, checkSlots: 8, concurrency: 4 });
    expect(c).toMatchObject({ slots: 3, holdsFirst: 18, holdsBackedOff: 270 });
    expect(capacityLines(c)[0]).toMatch(/check slots: 3, .*WAITGATE_WAIT_CHECK_SLOTS 8, held below WAITGATE_CONCURRENCY 4/);
  });

  test("at concurrency 1 the one slot is the Jobs' only slot, and doctor says so", () => {
    const c = capacity({ ...defaults, checkSlots: 1, concurrency: 1 });
    expect(c.slots).toBe(1);
    expect(capacityLines(c)[0]).toMatch(/check takes the only slot/);
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
