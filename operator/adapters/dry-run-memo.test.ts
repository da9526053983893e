import { describe, expect, test } from '@jest/globals';
import { DRY_RUN_REUSE_MS, DryRunMemo } from './dry-run-memo.js';

describe('DryRunMemo', () => {
  test.each<[string, (m: DryRunMemo, clock: { t: number }) => void, string, boolean]>([
    ['never asked: not passed', () => undefined, 'a', false],
    ['passed just now: reused', (m) => m.remember('a'), 'a', true],
    ['passed, another key: not reused', (m) => m.remember('a'), 'b', false],
    [
      'passed a moment under the minute ago: reused',
      (m, c) => {
        m.remember('a');
        c.t += DRY_RUN_REUSE_MS - 1;
      },
      'a',
      true,
    ],
    [
      'passed a minute ago: asked again',
      (m, c) => {
        m.remember('a');
        c.t += DRY_RUN_REUSE_MS;
      },
      'a',
      false,
    ],
    [
      'over the bound: the oldest goes first',
      (m) => {
        m.remember('a');
        m.remember('b');
        m.remember('c');
      },
      'a',
      false,
    ],
    [
      'over the bound: a key passed again is the newest',
      (m) => {
        m.remember('a');
        m.remember('b');
        m.remember('a');
        m.remember('c');
      },
      'a',
      true,
    ],
  ])('%s', (_n, given, key, want) => {
    const clock = { t: 1_000 };
    const memo = new DryRunMemo(() => clock.t, 2);
    given(memo, clock);
    expect(memo.passedRecently(key)).toBe(want);
  });
});
