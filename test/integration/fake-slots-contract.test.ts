// test/support/fakes.ts's FakeSlots stands in for lib/valkey/slots.ts's Slots in unit tests.
// Here both go through the same steps, and must give the same answers, so the fake cannot
// drift from the scripts it stands in for. Both keep their own time (the server's, and the
// fake's clock): a step's `at` moves it on, the fake's by advancing its clock, the server's by
// ageing every place (ageSlots), since nobody can move a server's clock. A step `lose` drops
// every key, as FLUSHALL or a restart without persistence does. Epoch ids are random in Valkey,
// so an answer names an epoch by the order it was first seen in (1, 2, ...).
import { describe, expect, test } from '@jest/globals';
import { Slots, type Epoch, type RunningBook, type SharedPlace, type SharePlace } from '../../lib/valkey/slots.js';
import { FakeSlots, ManualClock } from '../support/fakes.js';
import { ageSlots, withValkey } from '../support/valkey.js';

const TTL = 30_000;
/** Where every step's ended holders are marked, and for how long (longer than any run here). */
const ENDED = 'ended';
const ENDED_KEEP_MS = 100 * TTL;
/** The fleet's check slots and the active namespaces, in every step of a fair share. */
const FLEET = 'checks';
const ACTIVE = 'active';
/** How long a namespace stays active after it asks, unless a step says otherwise. */
const ACTIVE_MS = 2 * TTL;

/** One step, `at` ms after the first; `k` turns a key name into the key of the run. */
type Step =
  | { op: 'acquire'; keys: string[]; limits: number[]; token: string; at: number; ttl?: number }
  | { op: 'release'; keys: string[]; token: string }
  /** `from`'s place given back and one taken for `to`, in one call. */
  | { op: 'handOn'; key: string; from: string; to: string; limit: number; at: number }
  | { op: 'renewMany'; entries: { keys: string[]; token: string }[]; at: number; ttl?: number }
  | { op: 'openEpoch'; key: string }
  /** In the epoch last opened, or (`stale`) in none. */
  | { op: 'acquireInEpoch'; keys: string[]; limits: number[]; token: string; epochKey: string; stale?: true }
  | { op: 'holdMany'; entries: { keys: string[]; token: string; note: string }[]; index: string; at: number; ttl?: number }
  /** `ended`: the holder is over for good (marked ended, never taken back). */
  | { op: 'releaseHeld'; keys: string[]; index: string; token: string; ended?: true }
  | { op: 'heldIn'; index: string }
  /** A place in FLEET within the share of the namespace whose semaphore is `ns`. */
  | { op: 'acquireShare'; ns: string; token: string; limit: number; at: number; activeMs?: number }
  /** `from`'s place (of the namespace `fromNs`) given back and one taken for `to` within `ns`'s share, in one call. */
  | { op: 'handOnShare'; fromNs: string; from: string; ns: string; to: string; limit: number; at: number }
  | { op: 'lose' };

interface SlotsLike {
  acquire(keys: readonly string[], limits: readonly number[], token: string, ttlMs: number): Promise<unknown>;
  acquireInEpoch(keys: readonly string[], limits: readonly number[], token: string, ttlMs: number, epoch: Epoch): Promise<unknown>;
  openEpoch(key: string): Promise<string>;
  release(keys: readonly string[], token: string): Promise<void>;
  handOn(key: string, from: string, to: string, limit: number, ttlMs: number): Promise<unknown>;
  renewMany(entries: readonly { keys: readonly string[]; token: string }[], ttlMs: number): Promise<string[]>;
  holdMany(
    entries: readonly { keys: readonly string[]; token: string; note: string }[],
    book: RunningBook,
    ttlMs: number,
  ): Promise<unknown[]>;
  releaseHeld(keys: readonly string[], book: RunningBook, token: string, ended?: { readonly keepMs: number }): Promise<void>;
  heldIn(index: string): Promise<Map<string, string>>;
  acquireShare(place: SharePlace, token: string, ttlMs: number, activeMs: number): Promise<unknown>;
  handOnShare(from: SharedPlace, place: SharePlace, to: string, ttlMs: number, activeMs: number): Promise<unknown>;
}

/** Every key name the steps use. */
const namesOf = (steps: readonly Step[]): string[] => [
  ...new Set(
    steps.flatMap((s) => {
      switch (s.op) {
        case 'renewMany':
          return s.entries.flatMap((e) => e.keys);
        // An index of running places is a hash, not a semaphore: nothing in it to age.
        case 'holdMany':
          return s.entries.flatMap((e) => e.keys);
        case 'releaseHeld':
          return s.keys;
        case 'heldIn':
          return [];
        case 'openEpoch':
        case 'handOn':
          return [s.key];
        case 'acquireInEpoch':
          return [...s.keys, s.epochKey];
        // The active set is aged as a semaphore is: its scores are when each namespace's activity lapses.
        case 'acquireShare':
          return [FLEET, s.ns, ACTIVE];
        case 'handOnShare':
          return [FLEET, s.fromNs, s.ns, ACTIVE];
        case 'lose':
          return [];
        default:
          return s.keys;
      }
    }),
  ),
];

/** Every index of running places the steps use, and the ended set (not semaphores; lost with the rest). */
const indexesOf = (steps: readonly Step[]): string[] => [
  ...new Set(steps.flatMap((s) => (s.op === 'holdMany' || s.op === 'releaseHeld' || s.op === 'heldIn' ? [s.index, ENDED] : []))),
];

/** The full key's name, not the run's key, so runs compare. */
function named(r: unknown, keys: readonly string[], k: (name: string) => string): unknown {
  const a = r as { acquired: boolean; fullKey?: string };
  return a.acquired || a.fullKey === undefined ? r : { ...a, fullKey: keys[keys.map(k).indexOf(a.fullKey)] };
}

async function play(
  slots: SlotsLike,
  steps: readonly Step[],
  k: (name: string) => string,
  advance: (ms: number) => Promise<void> | void,
  lose: () => Promise<void> | void,
): Promise<unknown[]> {
  const answers: unknown[] = [];
  const epochs: string[] = [];
  let now = 0;
  for (const s of steps) {
    if ('at' in s && s.at > now) {
      await advance(s.at - now);
      now = s.at;
    }
    if (s.op === 'lose') {
      await lose();
      answers.push('lost');
    } else if (s.op === 'openEpoch') {
      const id = await slots.openEpoch(k(s.key));
      if (!epochs.includes(id)) epochs.push(id);
      answers.push(`epoch ${epochs.indexOf(id) + 1}`);
    } else if (s.op === 'acquireInEpoch') {
      const id = s.stale ? 'none' : (epochs.at(-1) ?? 'none');
      answers.push(named(await slots.acquireInEpoch(s.keys.map(k), s.limits, s.token, TTL, { key: k(s.epochKey), id }), s.keys, k));
    } else if (s.op === 'acquire') {
      answers.push(named(await slots.acquire(s.keys.map(k), s.limits, s.token, s.ttl ?? TTL), s.keys, k));
    } else if (s.op === 'handOn') {
      answers.push(named(await slots.handOn(k(s.key), s.from, s.to, s.limit, TTL), [s.key], k));
    } else if (s.op === 'acquireShare' || s.op === 'handOnShare') {
      const place = { fleetKey: k(FLEET), namespaceKey: k(s.ns), activeKey: k(ACTIVE), limit: s.limit };
      const answer =
        s.op === 'acquireShare'
          ? await slots.acquireShare(place, s.token, TTL, s.activeMs ?? ACTIVE_MS)
          : await slots.handOnShare({ namespaceKey: k(s.fromNs), token: s.from }, place, s.to, TTL, ACTIVE_MS);
      answers.push(named(answer, [FLEET, s.ns], k));
    } else if (s.op === 'release') {
      await slots.release(s.keys.map(k), s.token);
      answers.push('released');
    } else if (s.op === 'holdMany') {
      const entries = s.entries.map((e) => ({ keys: e.keys.map(k), token: e.token, note: e.note }));
      answers.push(await slots.holdMany(entries, { index: k(s.index), ended: k(ENDED) }, s.ttl ?? TTL));
    } else if (s.op === 'releaseHeld') {
      await slots.releaseHeld(
        s.keys.map(k),
        { index: k(s.index), ended: k(ENDED) },
        s.token,
        s.ended ? { keepMs: ENDED_KEEP_MS } : undefined,
      );
      answers.push('released');
    } else if (s.op === 'heldIn') {
      answers.push([...(await slots.heldIn(k(s.index)))].sort());
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

const inEpoch = (keys: string[], limits: number[], token: string, stale?: true): Step => ({
  op: 'acquireInEpoch',
  keys,
  limits,
  token,
  epochKey: 'epoch',
  ...(stale ? { stale } : {}),
});

const share = (ns: string, token: string, limit: number, at = 0, activeMs?: number): Step => ({
  op: 'acquireShare',
  ns,
  token,
  limit,
  at,
  ...(activeMs ? { activeMs } : {}),
});

const scenarios: [string, Step[]][] = [
  [
    'a fair share: a namespace alone takes every place; another asking, refused, shrinks its share; it grows back once the other lapses',
    [
      share('ns-a', 'a1', 4),
      share('ns-a', 'a2', 4),
      share('ns-a', 'a3', 4),
      share('ns-a', 'a4', 4),
      share('ns-a', 'a5', 4),
      // Refused (the fleet full), but ns-b is active from now: the share is ceil(4 / 2) = 2.
      share('ns-b', 'b1', 4, 0, 5_000),
      { op: 'release', keys: [FLEET, 'ns-a'], token: 'a1' },
      // ns-a holds 3, over its share: it keeps them (a2 renewed), but takes no new place.
      share('ns-a', 'a5', 4, 1_000),
      share('ns-a', 'a2', 4, 1_000),
      share('ns-b', 'b1', 4, 1_000, 5_000),
      { op: 'release', keys: [FLEET, 'ns-b'], token: 'b1' },
      share('ns-a', 'a5', 4, 3_000),
      // ns-b's activity lapsed (5 s from its last ask): ns-a alone again, with every place.
      share('ns-a', 'a5', 4, 6_001),
      share('ns-a', 'a6', 4, 6_001),
    ],
  ],
  [
    'a fair share: the activity window is never shortened by a shorter one asked later',
    [
      share('ns-b', 'b1', 2, 0, 20_000),
      { op: 'release', keys: [FLEET, 'ns-b'], token: 'b1' },
      share('ns-b', 'b1', 2, 0, 1_000),
      { op: 'release', keys: [FLEET, 'ns-b'], token: 'b1' },
      share('ns-a', 'a1', 2, 5_000),
      // ns-b still active (20 s): ns-a's share is 1.
      share('ns-a', 'a2', 2, 5_000),
      share('ns-a', 'a2', 2, 20_001),
    ],
  ],
  [
    'a fair share: a lapsed place frees its namespace’s share as well as the fleet’s',
    [
      share('ns-a', 'a1', 2),
      share('ns-b', 'b1', 2),
      share('ns-a', 'a2', 2),
      share('ns-a', 'a2', 2, TTL + 1),
      share('ns-a', 'a3', 2, TTL + 1),
      share('ns-b', 'b2', 2, TTL + 1),
    ],
  ],
  [
    'a fair share handed on: from another namespace, and refused at the share with the place given back all the same',
    [
      share('ns-a', 'a1', 2),
      share('ns-a', 'a2', 2),
      share('ns-b', 'b1', 2),
      // ns-a gives a1 back, and holds 1 still: its share (ceil(2 / 2)) refuses a3.
      { op: 'handOnShare', fromNs: 'ns-a', from: 'a1', ns: 'ns-a', to: 'a3', limit: 2, at: 10 },
      // From ns-a to ns-b: ns-b holds none.
      { op: 'handOnShare', fromNs: 'ns-a', from: 'a2', ns: 'ns-b', to: 'b1', limit: 2, at: 20 },
      share('ns-a', 'a3', 2, 30),
      share('ns-a', 'a4', 2, 30),
      share('ns-b', 'b2', 2, 30),
      // A token given back that holds nothing: a plain ask.
      { op: 'handOnShare', fromNs: 'ns-b', from: 'ghost', ns: 'ns-b', to: 'b2', limit: 2, at: 40 },
    ],
  ],
  [
    'an epoch: refused before it is open, taken in it once open, refused again once lost',
    [
      inEpoch(['all', 's'], [2, 1], 't1'),
      { op: 'openEpoch', key: 'epoch' },
      { op: 'openEpoch', key: 'epoch' },
      inEpoch(['all', 's'], [2, 1], 't1'),
      inEpoch(['all', 's'], [2, 1], 't2'),
      inEpoch(['all', 's'], [2, 1], 't2', true),
      { op: 'lose' },
      inEpoch(['all', 's'], [2, 1], 't3'),
      acquire(['all', 's'], [2, 1], 't1'),
      { op: 'openEpoch', key: 'epoch' },
      inEpoch(['all', 's'], [2, 1], 't3'),
      inEpoch(['all', 'x'], [2, 1], 't3'),
      inEpoch(['all', 'y'], [2, 1], 't4'),
    ],
  ],
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
  [
    'holdMany: a running place outlives the lease, is taken back past the limit once lost, and is noted until releaseHeld',
    [
      acquire(['all', 's'], [5, 1], 't1'),
      { op: 'holdMany', entries: [{ keys: ['all', 's'], token: 't1', note: 'acme/web' }], index: 'idx', at: 0, ttl: 3 * TTL },
      acquire(['all', 's'], [5, 1], 't2', TTL + 1),
      { op: 'lose' },
      { op: 'heldIn', index: 'idx' },
      acquire(['all', 's'], [5, 1], 't2', TTL + 2),
      {
        op: 'holdMany',
        entries: [
          { keys: ['all', 's'], token: 't1', note: 'acme/web' },
          { keys: ['all', 'x'], token: 't3', note: 'acme/api' },
        ],
        index: 'idx',
        at: TTL + 3,
        ttl: 3 * TTL,
      },
      { op: 'heldIn', index: 'idx' },
      acquire(['all', 's'], [5, 1], 't4', TTL + 4),
      { op: 'releaseHeld', keys: ['all', 's'], index: 'idx', token: 't1' },
      { op: 'releaseHeld', keys: ['all', 's'], index: 'idx', token: 'ghost' },
      { op: 'heldIn', index: 'idx' },
      acquire(['all', 's'], [5, 2], 't4', TTL + 5),
    ],
  ],
  [
    'holdMany: a holder marked ended is never taken back, even by a keeper that read it as running; one given back for now is',
    [
      acquire(['all', 's'], [5, 1], 't1'),
      { op: 'holdMany', entries: [{ keys: ['all', 's'], token: 't1', note: 'acme/web' }], index: 'idx', at: 0, ttl: 3 * TTL },
      { op: 'releaseHeld', keys: ['all', 's'], index: 'idx', token: 't1', ended: true },
      acquire(['all', 's'], [5, 1], 't2', 1),
      {
        op: 'holdMany',
        entries: [
          { keys: ['all', 's'], token: 't1', note: 'acme/web' },
          { keys: ['all', 's'], token: 't2', note: 'acme/web' },
        ],
        index: 'idx',
        at: 2,
        ttl: 3 * TTL,
      },
      { op: 'heldIn', index: 'idx' },
      { op: 'releaseHeld', keys: ['all', 's'], index: 'idx', token: 't2' },
      { op: 'holdMany', entries: [{ keys: ['all', 's'], token: 't2', note: 'acme/web' }], index: 'idx', at: 3, ttl: 3 * TTL },
      { op: 'releaseHeld', keys: ['all', 's'], index: 'idx', token: 't2', ended: true },
      { op: 'releaseHeld', keys: ['all', 's'], index: 'idx', token: 't2', ended: true },
      { op: 'holdMany', entries: [{ keys: ['all', 's'], token: 't2', note: 'acme/web' }], index: 'idx', at: 4, ttl: 3 * TTL },
      { op: 'heldIn', index: 'idx' },
      acquire(['all', 's'], [5, 1], 't3', 5),
    ],
  ],
  [
    'a place handed on: the giver loses it, the taker holds it, a third finds it full',
    [
      acquire(['a'], [1], 't1'),
      { op: 'handOn', key: 'a', from: 't1', to: 't2', limit: 1, at: 1_000 },
      acquire(['a'], [1], 't3', 1_000),
      acquire(['a'], [1], 't1', 1_000),
      // Held for TTL from the hand-on, not from t1's acquire.
      acquire(['a'], [1], 't3', TTL + 500),
      acquire(['a'], [1], 't3', TTL + 1_000),
    ],
  ],
  [
    'handing on a place to a holder that has one renews it; from a holder without one, it takes a free place or finds it full',
    [
      acquire(['a'], [2], 't1'),
      acquire(['a'], [2], 't2'),
      { op: 'handOn', key: 'a', from: 't1', to: 't2', limit: 2, at: 10 },
      { op: 'handOn', key: 'a', from: 'ghost', to: 't3', limit: 2, at: 10 },
      { op: 'handOn', key: 'a', from: 'ghost', to: 't4', limit: 2, at: 10 },
      // A lowered limit: the giver's place goes back all the same, the taker gets none.
      { op: 'handOn', key: 'a', from: 't3', to: 't5', limit: 1, at: 20 },
      acquire(['a'], [2], 't6', 20),
    ],
  ],
  ['release of a place not held is a no-op', [{ op: 'release', keys: ['a'], token: 'ghost' }, acquire(['a'], [1], 't1')]],
];

describe('FakeSlots answers as Slots does', () => {
  test.each(scenarios)('%s', async (_name, steps) => {
    const clock = new ManualClock();
    const fakeSlots = new FakeSlots(clock.now);
    const fake = await play(
      fakeSlots,
      steps,
      (name) => name,
      (ms) => clock.advance(ms),
      () => fakeSlots.loseEverything(),
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
        async () => {
          await v.redis.unlink(...[...namesOf(steps), ...indexesOf(steps)].map((name) => v.key(name)));
        },
      ),
    );
    expect(fake).toEqual(real);
  });
});
