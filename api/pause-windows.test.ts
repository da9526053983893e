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

// Each edge of a window falls at the instant the local wall clock reads it on that date, in
// that zone, whatever the offset was at the other edge. 2026: Berlin springs forward on 29 March
// (02:00 CET -> 03:00 CEST, at 01:00Z) and falls back on 25 October (03:00 CEST -> 02:00 CET, at
// 01:00Z); New York springs forward on 8 March (02:00 EST -> 03:00 EDT, at 07:00Z) and falls back
// on 1 November (02:00 EDT -> 01:00 EST, at 06:00Z). A time in the skipped hour falls at the first
// instant after the gap; a time in the repeated hour at its first occurrence.
describe('pausedUntil across a daylight-saving change', () => {
  const berlin = (start: string, end: string): PauseWindow => ({ start, end, timeZone: 'Europe/Berlin' });
  const newYork = (start: string, end: string): PauseWindow => ({ start, end, timeZone: 'America/New_York' });

  test.each<[string, PauseWindow, string, string | undefined]>([
    // Berlin, March: the night is an hour shorter.
    [
      'Berlin, March: 22:00-06:00 from its start ends at 06:00 CEST, not 07:00',
      berlin('22:00', '06:00'),
      '2026-03-28T21:00:00Z',
      '2026-03-29T04:00:00Z',
    ],
    ['Berlin, March: 22:00-06:00 before the change', berlin('22:00', '06:00'), '2026-03-29T00:30:00Z', '2026-03-29T04:00:00Z'],
    ['Berlin, March: 22:00-06:00 after the change', berlin('22:00', '06:00'), '2026-03-29T01:30:00Z', '2026-03-29T04:00:00Z'],
    ['Berlin, March: 22:00-06:00 over at 06:00 CEST', berlin('22:00', '06:00'), '2026-03-29T04:00:00Z', undefined],
    [
      'Berlin, March: ending at 02:30, which never comes: ends at 03:00 CEST',
      berlin('22:00', '02:30'),
      '2026-03-28T22:00:00Z',
      '2026-03-29T01:00:00Z',
    ],
    ['Berlin, March: ending in the gap, a minute before it', berlin('22:00', '02:30'), '2026-03-29T00:59:00Z', '2026-03-29T01:00:00Z'],
    ['Berlin, March: ending in the gap, over after it', berlin('22:00', '02:30'), '2026-03-29T01:00:00Z', undefined],
    [
      'Berlin, March: starting at 02:30, which never comes: not yet at 01:59 CET',
      berlin('02:30', '05:00'),
      '2026-03-29T00:59:00Z',
      undefined,
    ],
    ['Berlin, March: starting in the gap, begun at 03:00 CEST', berlin('02:30', '05:00'), '2026-03-29T01:00:00Z', '2026-03-29T03:00:00Z'],
    ['Berlin, March: a window inside the gap does not happen', berlin('02:10', '02:40'), '2026-03-29T01:00:00Z', undefined],
    ['Berlin, March: the same window the next night, as usual', berlin('02:10', '02:40'), '2026-03-30T00:20:00Z', '2026-03-30T00:40:00Z'],
    // Berlin, October: the night is an hour longer.
    [
      'Berlin, October: 22:00-06:00 from its start ends at 06:00 CET, not 05:00',
      berlin('22:00', '06:00'),
      '2026-10-24T20:00:00Z',
      '2026-10-25T05:00:00Z',
    ],
    ['Berlin, October: 22:00-06:00 in the repeated hour', berlin('22:00', '06:00'), '2026-10-25T01:30:00Z', '2026-10-25T05:00:00Z'],
    [
      'Berlin, October: ending at 02:30 ends at the first 02:30 (CEST)',
      berlin('22:00', '02:30'),
      '2026-10-24T21:00:00Z',
      '2026-10-25T00:30:00Z',
    ],
    [
      'Berlin, October: ending at 02:30, the second 02:15 (CET) is after the end',
      berlin('22:00', '02:30'),
      '2026-10-25T01:15:00Z',
      undefined,
    ],
    [
      'Berlin, October: starting at 02:30 starts at the first 02:30 (CEST)',
      berlin('02:30', '04:00'),
      '2026-10-25T00:30:00Z',
      '2026-10-25T03:00:00Z',
    ],
    [
      'Berlin, October: starting at 02:30, still on at the second 02:10 (CET)',
      berlin('02:30', '04:00'),
      '2026-10-25T01:10:00Z',
      '2026-10-25T03:00:00Z',
    ],
    ['Berlin, October: starting at 02:30, not yet at the first 02:10 (CEST)', berlin('02:30', '04:00'), '2026-10-25T00:10:00Z', undefined],
    // New York, March.
    [
      'New York, March: 22:00-06:00 ends at 06:00 EDT, not 07:00',
      newYork('22:00', '06:00'),
      '2026-03-08T03:00:00Z',
      '2026-03-08T10:00:00Z',
    ],
    [
      'New York, March: ending at 02:30, which never comes: ends at 03:00 EDT',
      newYork('01:00', '02:30'),
      '2026-03-08T06:30:00Z',
      '2026-03-08T07:00:00Z',
    ],
    [
      'New York, March: starting at 02:15, which never comes: begun at 03:00 EDT',
      newYork('02:15', '04:00'),
      '2026-03-08T07:00:00Z',
      '2026-03-08T08:00:00Z',
    ],
    ['New York, March: starting in the gap, not yet at 01:59 EST', newYork('02:15', '04:00'), '2026-03-08T06:59:00Z', undefined],
    // New York, November.
    [
      'New York, November: 22:00-06:00 ends at 06:00 EST, not 05:00',
      newYork('22:00', '06:00'),
      '2026-11-01T02:00:00Z',
      '2026-11-01T11:00:00Z',
    ],
    [
      'New York, November: ending at 01:30 ends at the first 01:30 (EDT)',
      newYork('00:30', '01:30'),
      '2026-11-01T04:30:00Z',
      '2026-11-01T05:30:00Z',
    ],
    [
      'New York, November: ending at 01:30, the second 01:10 (EST) is after the end',
      newYork('00:30', '01:30'),
      '2026-11-01T06:10:00Z',
      undefined,
    ],
    [
      'New York, November: starting at 01:15, still on at the second 01:05 (EST)',
      newYork('01:15', '03:00'),
      '2026-11-01T06:05:00Z',
      '2026-11-01T08:00:00Z',
    ],
  ])('%s', (_n, window, now, until) => {
    const r = pausedUntil(at(now), [window]);
    expect(r === undefined ? undefined : new Date(r).toISOString().replace('.000Z', 'Z')).toBe(until);
  });

  test('a Friday-night window across the March change, by the day it starts', () => {
    const friSat: PauseWindow = { start: '22:00', end: '06:00', timeZone: 'Europe/Berlin', days: ['sat'] };
    // Saturday 28 March 23:00 CET, in the window that started on Saturday: ends Sunday 06:00 CEST.
    expect(pausedUntil(at('2026-03-28T22:00:00Z'), [friSat])).toBe(at('2026-03-29T04:00:00Z'));
    // Friday 27 March 23:00 CET: not a Saturday start.
    expect(pausedUntil(at('2026-03-27T22:00:00Z'), [friSat])).toBeUndefined();
  });

  test('back-to-back windows across the change make one pause', () => {
    const windows = [berlin('22:00', '02:30'), berlin('03:00', '06:00')];
    // 02:30 never comes on 29 March: the first ends at 03:00 CEST, where the second begins.
    expect(pausedUntil(at('2026-03-28T22:00:00Z'), windows)).toBe(at('2026-03-29T04:00:00Z'));
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
