import { describe, expect, test } from '@jest/globals';
import { deliveriesToRedeliver, type HookDelivery } from './redelivery-plan.js';

const NOW = Date.parse('2026-09-04T08:00:00Z');
const HOUR = 3_600_000;
const d = (id: number, guid: string, hoursAgo: number, statusCode: number, redelivery = false): HookDelivery => ({
  id,
  guid,
  deliveredAt: new Date(NOW - hoursAgo * HOUR).toISOString(),
  redelivery,
  statusCode,
});

describe('deliveriesToRedeliver', () => {
  test.each<[string, HookDelivery[], number, number[]]>([
    ['a delivery answered 202 is left alone', [d(1, 'a', 1, 202)], 10, []],
    ['a 5xx is asked for again', [d(1, 'a', 1, 502)], 10, [1]],
    ['no answer at all (status 0) is asked for again', [d(1, 'a', 1, 0)], 10, [1]],
    ['a 4xx is the receiver’s answer: left alone', [d(1, 'a', 1, 401), d(2, 'b', 1, 400)], 10, []],
    ['redelivered and answered since: done', [d(2, 'a', 1, 202, true), d(1, 'a', 2, 503)], 10, []],
    ['redelivered and failed again: the latest attempt is asked for', [d(2, 'a', 1, 0, true), d(1, 'a', 2, 503)], 10, [2]],
    ['outside the three-day window: too late', [d(1, 'a', 73, 500)], 10, []],
    ['first delivered outside the window, retried inside: too late', [d(2, 'a', 1, 500, true), d(1, 'a', 80, 500)], 10, []],
    ['bounded per round, newest first', [d(1, 'a', 3, 500), d(2, 'b', 2, 500), d(3, 'c', 1, 500)], 2, [3, 2]],
    ['an unreadable time is skipped', [{ ...d(1, 'a', 1, 500), deliveredAt: 'nope' }], 10, []],
  ])('%s', (_, deliveries, limit, expected) => {
    expect(deliveriesToRedeliver(deliveries, NOW, limit)).toEqual(expected);
  });
});
