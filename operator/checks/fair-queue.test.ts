import { describe, expect, test } from '@jest/globals';
import { splitKey } from '../controller/object-key.js';
import { FairQueue } from './fair-queue.js';

/** One step: a key comes, a namespace takes a place by asking (served), or the next is taken off the queue. */
type Step = { add: string } | { served: string } | 'next';

/** The keys taken off in order, each when its group is marked served (as the gate hands it a place). */
function play(steps: readonly Step[]): (string | undefined)[] {
  const q = new FairQueue((key) => splitKey(key).namespace);
  const taken: (string | undefined)[] = [];
  for (const s of steps) {
    if (s === 'next') {
      const key = q.peek();
      taken.push(key);
      if (key === undefined) continue;
      q.delete(key);
      q.served(splitKey(key).namespace);
    } else if ('add' in s) q.add(s.add);
    else q.served(s.served);
  }
  return taken;
}

const adds = (...keys: string[]): Step[] => keys.map((add) => ({ add }));
const next = (n: number): Step[] => Array.from({ length: n }, () => 'next' as const);

describe('FairQueue: round-robin by namespace, first come first within one', () => {
  test.each<[string, Step[], (string | undefined)[]]>([
    ['empty: nothing', next(1), [undefined]],
    ['one namespace: first come first', [...adds('a/1', 'a/2', 'a/3'), ...next(3)], ['a/1', 'a/2', 'a/3']],
    ['a key added twice keeps its first place', [...adds('a/1', 'a/2', 'a/1'), ...next(3)], ['a/1', 'a/2', undefined]],
    [
      "fifty of one namespace do not go before another's one",
      [...adds(...Array.from({ length: 50 }, (_, i) => `a/${i}`)), { add: 'b/1' }, ...next(3)],
      ['a/0', 'b/1', 'a/1'],
    ],
    [
      'a namespace served by asking (its check running) goes behind one never served, though its holds came first',
      [{ served: 'a' }, ...adds('a/1', 'a/2', 'b/1'), ...next(3)],
      ['b/1', 'a/1', 'a/2'],
    ],
    [
      'two busy namespaces take turns',
      [{ served: 'a' }, ...adds('a/1', 'a/2', 'a/3', 'b/1', 'b/2', 'b/3'), ...next(6)],
      ['b/1', 'a/1', 'b/2', 'a/2', 'b/3', 'a/3'],
    ],
    [
      'among namespaces never served, the one whose first came first',
      [...adds('c/1', 'b/1', 'a/1', 'c/2'), ...next(4)],
      ['c/1', 'b/1', 'a/1', 'c/2'],
    ],
    [
      'three namespaces, one of them late: it joins the turn at once',
      [...adds('a/1', 'a/2', 'b/1', 'b/2'), ...next(2), { add: 'c/1' }, ...next(3)],
      ['a/1', 'b/1', 'c/1', 'a/2', 'b/2'],
    ],
  ])('%s', (_name, steps, expected) => {
    expect(play(steps)).toEqual(expected);
  });

  test('deleted keys are gone, and nothing is kept for a namespace that neither waits nor holds a place', () => {
    const q = new FairQueue((key) => splitKey(key).namespace);
    q.add('a/1');
    q.add('b/1');
    q.served('a');
    q.served('c');
    expect(q.size).toBe(2);
    expect(q.groupsTracked).toBe(3);
    expect(q.delete('a/1')).toBe(true);
    expect(q.delete('a/1')).toBe(false);
    expect(q.has('a/1')).toBe(false);
    expect([...q.keys()]).toEqual(['b/1']);
    // a holds a place still; c does not; b waits.
    q.keepServedOnly(new Set(['a']));
    expect(q.groupsTracked).toBe(2);
    q.keepServedOnly(new Set());
    expect(q.groupsTracked).toBe(1);
    q.delete('b/1');
    expect(q.groupsTracked).toBe(0);
    expect(q.peek()).toBeUndefined();
  });
});
