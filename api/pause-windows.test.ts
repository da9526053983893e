import { describe, expect, test } from '@jest/globals';
import { pausedUntil, pauseWindowsSchema, type PauseWindow } from './pause-windows.js';

const at = (iso: string) => Date.parse(iso);
const nightBerlin: PauseWindow = { start: '22:00', end: '06:00', timeZone: 'Europe/Berlin' };
const lunchUtc: PauseWindow = { start: '12:00', end: '13:00', timeZone: 'UTC' };

describe('pausedUntil', () => {
  test.each<[string, PauseWindow[], string, string | undefined]>([
    ['outside every window', [lunchUtc], '2026-09-01T11:59:59Z', undefined],
    ['inside a same-day window', [lunchUtc], '2026-09-01T12:30:00Z', '2026-09-01T13:00:00Z'],
    ['at its start', [lunchUtc], '2026-09-01T12:00:00Z', '2026-09-01T13:00:00Z'],
    ['at its end it is over', [lunchUtc], '2026-09-01T13:00:00Z', undefined],
    ['a window across midnight, before midnight (CEST is UTC+2)', [nightBerlin], '2026-09-01T21:00:00Z', '2026-09-02T04:00:00Z'],
    ['a window across midnight, after midnight', [nightBerlin], '2026-09-02T01:30:00Z', '2026-09-02T04:00:00Z'],
    ['in winter time (CET is UTC+1)', [nightBerlin], '2026-12-02T22:00:00Z', '2026-12-03T05:00:00Z'],
    [
      'back-to-back windows make one pause',
      [lunchUtc, { start: '13:00', end: '14:00', timeZone: 'UTC' }],
      '2026-09-01T12:10:00Z',
      '2026-09-01T14:00:00Z',
    ],
    [
      'a weekday-only window on a Saturday',
      [{ ...lunchUtc, days: ['mon', 'tue', 'wed', 'thu', 'fri'] }],
      '2026-09-05T12:30:00Z',
      undefined,
    ],
    [
      'a weekday-only window on a Tuesday',
      [{ ...lunchUtc, days: ['mon', 'tue', 'wed', 'thu', 'fri'] }],
      '2026-09-01T12:30:00Z',
      '2026-09-01T13:00:00Z',
    ],
    ['a Friday night window, on Saturday morning', [{ ...nightBerlin, days: ['fri'] }], '2026-09-05T02:00:00Z', '2026-09-05T04:00:00Z'],
    ['no windows', [], '2026-09-01T12:30:00Z', undefined],
  ])('%s', (_n, windows, now, until) => {
    const r = pausedUntil(at(now), windows);
    expect(r === undefined ? undefined : new Date(r).toISOString().replace('.000Z', 'Z')).toBe(until);
  });
});

describe('pauseWindowsSchema', () => {
  test.each([
    [[{ start: '22:00', end: '06:00', timeZone: 'Europe/Berlin' }], true],
    [[{ start: '24:00', end: '06:00', timeZone: 'UTC' }], false],
    [[{ start: '22:00', end: '06:00', timeZone: 'Mars/Olympus' }], false],
    [[{ start: '22:00', end: '22:00', timeZone: 'UTC' }], false],
    [[{ start: '22:00', end: '06:00', timeZone: 'UTC', days: ['someday'] }], false],
    [[{ start: '22:00', end: '06:00', timeZone: 'UTC', extra: 1 }], false],
  ])('%j valid: %s', (value, ok) => {
    expect(pauseWindowsSchema.safeParse(value).success).toBe(ok);
  });
});
