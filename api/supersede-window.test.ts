import { describe, expect, test } from '@jest/globals';
import { insideSupersedeWindow, markerHonoured, supersedeWindowEnd, SUPERSEDE_WINDOW_MS } from './supersede-window.js';

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

describe('a launch marker read from a shared Valkey', () => {
  test.each<[string, string | null, number, boolean]>([
    ['as the operator writes it', 'web-7-deploy-3', 15 * MIN, true],
    ['a minute before it lapses', 'web-7-deploy-3', MIN, true],
    ['no key', null, -2, false],
    // Planted by another cluster sharing the Valkey: no expiry would refuse for ever.
    ['with no expiry', 'web-7-deploy-3', -1, false],
    ['expiring later than one window', 'web-7-deploy-3', 15 * MIN + 1, false],
    ['expiring in a year', 'web-7-deploy-3', 365 * 24 * 60 * MIN, false],
    ['not an object name', 'Web 7; rm -rf', 5 * MIN, false],
    ['an empty value', '', 5 * MIN, false],
    ['a name longer than 63 characters', 'a'.repeat(64), 5 * MIN, false],
  ])('%s: honoured %s', (_what, value, pttl, honoured) => {
    expect(markerHonoured(value, pttl)).toBe(honoured);
  });
});
