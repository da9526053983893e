import { describe, expect, test } from '@jest/globals';
import { describeJobCap, NO_JOB_CAP_LIMIT, overallJobLimit } from './job-cap.js';

describe('the fleet-wide Job cap', () => {
  test.each<[string, number | undefined, number, RegExp]>([
    ['none: a limit no fleet reaches, still a safe integer', undefined, NO_JOB_CAP_LIMIT, /^no fleet-wide cap/],
    ['a cap: that limit', 25, 25, /^at most 25 Jobs running at once/],
    ['a cap of one', 1, 1, /^at most 1 Job running at once/],
  ])('%s', (_n, concurrency, limit, words) => {
    expect(overallJobLimit(concurrency)).toBe(limit);
    expect(Number.isSafeInteger(overallJobLimit(concurrency))).toBe(true);
    expect(describeJobCap(concurrency)).toMatch(words);
  });
});
