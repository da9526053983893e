import { describe, expect, test } from '@jest/globals';
import { parseInstant } from './instant.js';

describe('parseInstant', () => {
  test.each([
    ['2026-09-01T09:00:00Z', Date.UTC(2026, 8, 1, 9, 0, 0)],
    ['2026-09-01T09:00Z', Date.UTC(2026, 8, 1, 9, 0, 0)],
    ['2026-09-01T09:00:00+02:00', Date.UTC(2026, 8, 1, 7, 0, 0)],
    ['2026-09-01T09:00:00-05:30', Date.UTC(2026, 8, 1, 14, 30, 0)],
    ['2026-09-01T09:00:00.250Z', Date.UTC(2026, 8, 1, 9, 0, 0, 250)],
    ['2026-09-01T09:00:00.123456789Z', Date.UTC(2026, 8, 1, 9, 0, 0, 123)],
    ['2028-02-29T00:00:00Z', Date.UTC(2028, 1, 29)],
    ['2026-12-31T23:59:59Z', Date.UTC(2026, 11, 31, 23, 59, 59)],
    ['0050-01-01T00:00:00Z', -60589296000000],
    ['0000-02-29T00:00:00Z', -62162121600000],
  ])('accepts %s', (text, epochMs) => {
    expect(parseInstant(text)).toEqual({ ok: true, epochMs });
  });

  test.each([
    ['2026-09-01T09:00:00', 'zoneless'],
    ['2026-09-01T09:00', 'zoneless'],
    ['2026-02-31T09:00:00Z', 'invalid'],
    ['2027-02-29T09:00:00Z', 'invalid'],
    ['0100-02-29T09:00:00Z', 'invalid'],
    ['2026-13-01T09:00:00Z', 'invalid'],
    ['2026-00-10T09:00:00Z', 'invalid'],
    ['2026-09-01T24:00:00Z', 'invalid'],
    ['2026-09-01T23:60:00Z', 'invalid'],
    ['2026-09-01T23:59:60Z', 'invalid'],
    ['2026-09-01 09:00:00Z', 'invalid'],
    ['tomorrow', 'invalid'],
    ['', 'invalid'],
    ['2026-09-01T09:00:00+25:00', 'invalid'],
    ['2026-09-01T09:00:00+0200', 'invalid'],
  ])('refuses %s as %s', (text, problem) => {
    const r = parseInstant(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toBe(problem);
  });
});
