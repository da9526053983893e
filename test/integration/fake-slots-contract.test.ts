// test/support/fakes.ts's FakeSlots stands in for lib/valkey/slots.ts's Slots in unit tests.
// Here both go through the same steps, and must give the same answers, so the fake cannot
// drift from the scripts it stands in for. Both keep their own time (the server's, and the
// fake's clock): a step's `at` moves it on, the fake's by advancing its clock, the server's by
// ageing every place (ageSlots), since nobody can move a server's clock.
import { describe, expect, test } from '@jest/globals';
import { Slots } from '../../lib/valkey/slots.js';
import { FakeSlots, ManualClock } from '../support/fakes.js';
import { ageSlots, withValkey } from '../support/valkey.js';

const TTL = 30_000;

/** One step, `at` ms after the first; `k` turns a key name into the key of the run. */
type Step =
  | { op: 'acquire'; keys: string[]; limits: number[]; token: string; at: number; ttl?: number }
  | { op: 'release'; keys: string[]; token: string }
  | { op: 'renewMany'; entries: { keys: string[]; token: string }[]; at: number; ttl?: number };

interface SlotsLike {
  acquire(keys: readonly string[], limits: readonly number[], token: string, ttlMs: number): Promise<unknown>;
  release(keys: readonly string[], token: string): Promise<void>;
  renewMany(entries: readonly { keys: readonly string[]; token: string }[], ttlMs: number): Promise<string[]>;
}

/** Every key name the steps use. */
const namesOf = (steps: readonly Step[]): string[] => [
  ...new Set(steps.flatMap((s) => (s.op === 'renewMany' ? s.entries.flatMap((e) => e.keys) : s.keys))),
];

async function play(
  slots: SlotsLike,
  steps: readonly Step[],
  k: (name: string) => string,
  advance: (ms: number) => Promise<void> | void,
): Promise<unknown[]> {
  const answers: unknown[] = [];
  let now = 0;
  for (const s of steps) {
    if (s.op !== 'release' && s.at > now) {
      await advance(s.at - now);
      now = s.at;
    }
    if (s.op === 'acquire') {
      const r = (await slots.acquire(s.keys.map(k), s.limits, s.token, s.ttl ?? TTL)) as {
        acquired: boolean;
        fullKey?: string;
        holders?: number;
      };
      // The full key's name, not the run's key, so runs compare.
      answers.push(r.acquired ? r : { ...r, fullKey: s.keys[s.keys.map(k).indexOf(r.fullKey ?? '')] });
    } else if (s.op === 'release') {
      await slots.release(s.keys.map(k), s.token);
      answers.push('released');
    } else {
      answers.push(
        await slots.renewMany(
          s.entries.map((e) => ({ keys: e.keys.map(k), token: e.token })),
          s.ttl ?? TTL,
        ),
      );
    }
  }
  return answers;
}

const acquire = (keys: string[], limits: number[], token: string, at = 0, ttl?: number): Step => ({
  op: 'acquire',
  keys,
  limits,
  token,
  at,
  ...(ttl ? { ttl } : {}),
});

const scenarios: [string, Step[]][] = [
  [
    'one key fills, refuses, frees on release',
    [
      acquire(['a'], [2], 't1'),
      acquire(['a'], [2], 't2'),
      acquire(['a'], [2], 't3'),
      { op: 'release', keys: ['a'], token: 't1' },
      acquire(['a'], [2], 't3'),
    ],
  ],
  [
    'a holder re-acquiring is renewed even when full',
    [acquire(['a'], [1], 't1'), acquire(['a'], [1], 't1', 10), acquire(['a'], [1], 't2', 20)],
  ],
  [
    // A second before (the server's clock runs on by a few ms between steps), and at it.
    'a place lapses at its expiry, not before',
    [acquire(['a'], [1], 't1'), acquire(['a'], [1], 't2', TTL - 1_000), acquire(['a'], [1], 't2', TTL)],
  ],
  [
    'two keys: all or nothing, and the first full key is named',
    [
      acquire(['all', 's'], [3, 1], 't1'),
      acquire(['all', 's'], [3, 1], 't2'),
      acquire(['all', 'x'], [3, 1], 't3'),
      acquire(['all', 'y'], [3, 1], 't4'),
      acquire(['all', 'z'], [3, 1], 't5'),
    ],
  ],
  [
    'renewMany: live places are extended, lapsed ones reported once',
    [
      acquire(['all', 's'], [5, 5], 't1'),
      acquire(['all', 's'], [5, 5], 't2', 0, 2 * TTL),
      {
        op: 'renewMany',
        entries: [
          { keys: ['all', 's'], token: 't1' },
          { keys: ['all', 's'], token: 't2' },
          { keys: ['all', 's'], token: 'never' },
        ],
        at: TTL + 1,
      },
      { op: 'renewMany', entries: [{ keys: ['all', 's'], token: 't2' }], at: 2 * TTL + 2 },
    ],
  ],
  ['release of a place not held is a no-op', [{ op: 'release', keys: ['a'], token: 'ghost' }, acquire(['a'], [1], 't1')]],
];

describe('FakeSlots answers as Slots does', () => {
  test.each(scenarios)('%s', async (_name, steps) => {
    const clock = new ManualClock();
    const fake = await play(
      new FakeSlots(clock.now),
      steps,
      (name) => name,
      (ms) => clock.advance(ms),
    );
    const real = await withValkey('fake-contract', (v) =>
      play(
        new Slots(v.redis),
        steps,
        (name) => v.key(name),
        (ms) =>
          ageSlots(
            v.redis,
            namesOf(steps).map((name) => v.key(name)),
            ms,
          ),
      ),
    );
    expect(fake).toEqual(real);
  });
});
