import { describe, expect, test } from '@jest/globals';
import { JobTombstones } from './job-tombstones.js';

const job = (name: string) => ({ metadata: { name, namespace: 'n' } });

describe('JobTombstones', () => {
  test('keeps the last state for a while, then lets it go', () => {
    let now = 0;
    const t = new JobTombstones(() => now, 1000, 10);
    t.remember(job('a'));
    expect(t.get('a', 'n')).toEqual(job('a'));
    now = 999;
    expect(t.get('a', 'n')).toBeDefined();
    now = 1000;
    expect(t.get('a', 'n')).toBeUndefined();
  });

  test('bounded: the oldest go first', () => {
    const t = new JobTombstones(() => 0, 1000, 2);
    for (const n of ['a', 'b', 'c']) t.remember(job(n));
    expect([t.get('a', 'n'), t.get('b', 'n'), t.get('c', 'n')].map(Boolean)).toEqual([false, true, true]);
  });

  test('a Job created again is no longer gone', () => {
    const t = new JobTombstones(() => 0);
    t.remember(job('a'));
    t.forget(job('a'));
    expect(t.get('a', 'n')).toBeUndefined();
  });
});
