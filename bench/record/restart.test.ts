import { describe, expect, test } from '@jest/globals';
import { repeatedChecks } from './restart.js';

const KILL = 100_000;
const run = (target: string, at: number) => ({ target, at });

describe('repeatedChecks', () => {
  test.each([
    { name: 'runs an interval apart', runs: [run('a', 0), run('a', 30_000), run('a', 60_500)], repeated: 0, retried: 0 },
    { name: 'two holds interleaved', runs: [run('a', 0), run('b', 1_000), run('a', 30_000), run('b', 31_000)], repeated: 0, retried: 0 },
    { name: 'a run again 2 s later', runs: [run('a', 0), run('a', 2_000)], repeated: 1, retried: 0 },
    {
      name: 'begun just before the kill, run again after it',
      runs: [run('a', KILL - 500), run('a', KILL + 3_000)],
      repeated: 0,
      retried: 1,
    },
    {
      name: 'begun well before the kill, run again after it',
      runs: [run('a', KILL - 9_000), run('a', KILL + 3_000)],
      repeated: 1,
      retried: 0,
    },
    { name: 'order of the log does not matter', runs: [run('a', 30_000), run('a', 0)], repeated: 0, retried: 0 },
  ])('$name', ({ runs, repeated, retried }) => {
    expect(repeatedChecks(runs, 30_000, KILL, 2_000)).toEqual({ repeated, retriedAfterKill: retried });
  });
});
