import { describe, expect, test } from '@jest/globals';
import { Phase } from '../../api/vocabulary.js';
import { overcommitsOf, reclaimable, Semaphore, type CachedHold, type KeptPlace, type Overcommit } from './scope-places.js';

const LIMITS = { all: 4, scope: 1 };
const place = (holder: string, scopeKey: string, kept: boolean, all: number, scope: number): KeptPlace => ({
  scopeKey,
  holder,
  kept,
  holders: { all, scope },
});

describe('overcommitsOf', () => {
  test.each<[string, KeptPlace[], Overcommit[], number]>([
    ['nothing running', [], [], 0],
    ['every place kept, every semaphore within its limit', [place('a', 'acme/web', true, 2, 1), place('b', 'acme/api', true, 2, 1)], [], 0],
    ['a place lost and taken back into room: nothing to say', [place('a', 'acme/web', false, 1, 1)], [], 0],
    [
      'a place lost and taken back over its scope limit: said, for that holder',
      [place('a', 'acme/web', false, 2, 2)],
      [{ scopeKey: 'acme/web', holder: 'a', semaphore: Semaphore.Scope, holders: 2, limit: 1 }],
      1,
    ],
    [
      'the holder that kept its place is not blamed for the one that came back',
      [place('a', 'acme/web', true, 2, 2), place('b', 'acme/web', false, 2, 2)],
      [{ scopeKey: 'acme/web', holder: 'b', semaphore: Semaphore.Scope, holders: 2, limit: 1 }],
      1,
    ],
    [
      'over the overall limit only: said as such',
      [place('a', 'acme/web', false, 5, 1)],
      [{ scopeKey: 'acme/web', holder: 'a', semaphore: Semaphore.All, holders: 5, limit: 4 }],
      1,
    ],
    [
      'over both: the scope is named (it is what blocks its repository)',
      [place('a', 'acme/web', false, 5, 3)],
      [{ scopeKey: 'acme/web', holder: 'a', semaphore: Semaphore.Scope, holders: 3, limit: 1 }],
      2,
    ],
    [
      'over its limit with every place kept (a loss reported before, or by another cluster): counted, not said again',
      [place('a', 'acme/web', true, 2, 2), place('b', 'acme/api', true, 2, 1)],
      [],
      1,
    ],
    [
      'two scopes over: each counted once',
      [place('a', 'acme/web', true, 4, 2), place('b', 'acme/web', true, 4, 2), place('c', 'acme/api', true, 4, 2)],
      [],
      2,
    ],
  ])('%s', (_name, places, lost, over) => {
    expect(overcommitsOf(places, LIMITS)).toEqual({ lost, over });
  });
});

describe('reclaimable', () => {
  const cache: Record<string, Phase | undefined> = {
    running: Phase.Running,
    succeeded: Phase.Succeeded,
    failed: Phase.Failed,
    refused: Phase.Refused,
    held: Phase.Held,
    pending: Phase.Pending,
    unset: undefined,
  };
  const cached = (h: string): CachedHold => (h in cache ? { found: true, phase: cache[h] } : { found: false });

  test.each<[string, string, boolean, boolean]>([
    ['running: keeps its place', 'running', true, false],
    ['succeeded: given back', 'succeeded', true, true],
    ['failed: given back', 'failed', true, true],
    ['refused: given back', 'refused', true, true],
    ['held (a launch under way, its Running status not yet cached): keeps it', 'held', true, false],
    ['pending: keeps it', 'pending', true, false],
    ['no phase yet: keeps it', 'unset', true, false],
    ['not in the cache (deleted): given back', 'deleted', true, true],
    ['ended, with another deployment on the index: still given back (the cache vouches for it)', 'succeeded', false, true],
    ['not in the cache, with another deployment on the index: kept (it may be theirs)', 'deleted', false, false],
    ['running, with another deployment on the index: kept', 'running', false, false],
  ])('%s', (_name, holder, sole, reclaimed) => {
    expect(reclaimable(new Map([[holder, 'acme/web']]), cached, sole)).toEqual(reclaimed ? [{ scopeKey: 'acme/web', holder }] : []);
  });

  test('each under the scope key it was noted with', () => {
    const noted = new Map([
      ['succeeded', 'acme/web'],
      ['running', 'acme/web'],
      ['deleted', 'acme/api'],
    ]);
    expect(reclaimable(noted, cached, true)).toEqual([
      { scopeKey: 'acme/web', holder: 'succeeded' },
      { scopeKey: 'acme/api', holder: 'deleted' },
    ]);
  });
});
