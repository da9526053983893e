import { describe, expect, test } from '@jest/globals';
import {
  countRefusal,
  deliveryKey,
  firstRefusal,
  hasCounted,
  readTally,
  RECENT_DELIVERIES_KEPT,
  tallyAnnotations,
  type RefusalTally,
} from './refusal-record.js';

const T0 = Date.parse('2026-09-01T08:00:00Z');

/** `n` refusals of deliveries d-0 .. d-(n-1), a second apart, counted one after another. */
function toggled(n: number): RefusalTally {
  let t = firstRefusal('github', 'd-0', T0);
  for (let i = 1; i < n; i++) t = countRefusal(t, 'github', `d-${i}`, T0 + i * 1000);
  return t;
}

describe('counting refusals on one record', () => {
  test('the first refusal: one, seen now, by this delivery', () => {
    expect(firstRefusal('github', 'd-0', T0)).toEqual({
      count: 1,
      firstSeenMs: T0,
      lastSeenMs: T0,
      lastDelivery: 'd-0',
      recent: ['github/d-0'],
    });
  });

  test('each further refusal adds one, moves the last seen and the last delivery, keeps the first', () => {
    const t = toggled(3);
    expect(t).toEqual({
      count: 3,
      firstSeenMs: T0,
      lastSeenMs: T0 + 2000,
      lastDelivery: 'd-2',
      recent: ['github/d-0', 'github/d-1', 'github/d-2'],
    });
  });

  test('three thousand toggles: the count says how many; the record names only the latest few', () => {
    const t = toggled(3000);
    expect(t.count).toBe(3000);
    expect(t.recent).toHaveLength(RECENT_DELIVERIES_KEPT);
    expect(t.recent[t.recent.length - 1]).toBe('github/d-2999');
    expect(hasCounted(t, 'github', 'd-2999')).toBe(true);
    expect(hasCounted(t, 'github', `d-${2999 - RECENT_DELIVERIES_KEPT + 1}`)).toBe(true);
    expect(hasCounted(t, 'github', `d-${2999 - RECENT_DELIVERIES_KEPT}`)).toBe(false);
    // What it costs to carry, whatever the count: a bounded handful of annotations.
    expect(JSON.stringify(tallyAnnotations(t)).length).toBeLessThan(1024);
  });

  test('a delivery is its forge and its id: the same id from another forge is another delivery', () => {
    const t = firstRefusal('github', 'd-0', T0);
    expect(hasCounted(t, 'github', 'd-0')).toBe(true);
    expect(hasCounted(t, 'gitlab', 'd-0')).toBe(false);
    expect(deliveryKey('gitlab', 'd-0')).toBe('gitlab/d-0');
  });

  test('a refusal counted with an earlier clock than the last (another replica) keeps the times in order', () => {
    const t = countRefusal(firstRefusal('github', 'd-0', T0), 'github', 'd-1', T0 - 500);
    expect(t).toMatchObject({ count: 2, firstSeenMs: T0 - 500, lastSeenMs: T0 });
  });
});

describe('the annotations of a tally', () => {
  test('written and read back', () => {
    const t = toggled(20);
    const a = tallyAnnotations(t);
    expect(a).toEqual({
      'waitgate.dev/refusal-count': '20',
      'waitgate.dev/refusal-first-seen': '2026-09-01T08:00:00.000Z',
      'waitgate.dev/refusal-last-seen': '2026-09-01T08:00:19.000Z',
      'waitgate.dev/refusal-last-delivery': 'd-19',
      'waitgate.dev/refusal-deliveries': t.recent.join(' '),
    });
    expect(readTally(a, 'github', undefined)).toEqual(t);
  });

  test('a record from before refusals were counted (one per delivery) reads as one refusal of its delivery', () => {
    const t = readTally({ 'waitgate.dev/delivery': 'd-9', 'waitgate.dev/refusal': 'wait-superseded' }, 'github', '2026-09-01T07:00:00Z');
    const created = Date.parse('2026-09-01T07:00:00Z');
    expect(t).toEqual({ count: 1, firstSeenMs: created, lastSeenMs: created, lastDelivery: 'd-9', recent: ['github/d-9'] });
    expect(countRefusal(t, 'github', 'd-10', T0)).toMatchObject({ count: 2, firstSeenMs: created, lastSeenMs: T0 });
  });

  test.each<[string, Record<string, string>, Partial<RefusalTally>]>([
    ['a count that is not a whole number above zero', { 'waitgate.dev/refusal-count': 'many' }, { count: 1 }],
    ['a negative count', { 'waitgate.dev/refusal-count': '-4' }, { count: 1 }],
    ['times that do not parse: from the creation', { 'waitgate.dev/refusal-first-seen': 'then' }, { firstSeenMs: T0, lastSeenMs: T0 }],
    [
      'a deliveries list with junk in it: only what names a forge',
      { 'waitgate.dev/refusal-deliveries': 'github/a  junk gitlab/b' },
      { recent: ['github/a', 'gitlab/b'] },
    ],
  ])('edited by hand: %s', (_n, annotations, want) => {
    expect(readTally(annotations, 'github', new Date(T0))).toMatchObject(want);
  });
});
