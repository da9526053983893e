import { describe, expect, test } from '@jest/globals';
import { insideSupersedeWindow, supersedeWindowEnd, SUPERSEDE_WINDOW_MS } from './supersede-window.js';

const T0 = Date.parse('2026-09-01T09:00:00Z');
const MIN = 60_000;

describe('the supersede window', () => {
  test('is 15 minutes', () => {
    expect(SUPERSEDE_WINDOW_MS).toBe(15 * MIN);
    expect(supersedeWindowEnd(T0)).toBe(T0 + 15 * MIN);
  });

  test.each<[string, number, boolean]>([
    ['at the launch', T0, true],
    ['a minute after', T0 + MIN, true],
    ['a millisecond before it closes', T0 + 15 * MIN - 1, true],
    ['when it closes', T0 + 15 * MIN, false],
    ['after it closed', T0 + 16 * MIN, false],
    // A clock behind the launch's: still inside, never a second run.
    ['before the launch', T0 - MIN, true],
  ])('%s: inside %s', (_what, now, inside) => {
    expect(insideSupersedeWindow(T0, now)).toBe(inside);
  });
});
