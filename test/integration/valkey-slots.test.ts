// Slots (lib/valkey/slots.ts) against a real Valkey/Redis at $VALKEY_URL. Time is injected
// through nowMs, so lapsing a lease is a matter of passing a later instant, not of waiting.
import { describe, expect, jest, test } from '@jest/globals';
import type { Redis } from 'ioredis';
import { Slots, type AcquireResult } from '../../lib/valkey/slots.js';
import { withValkey, type ValkeyTest } from '../support/valkey.js';
import { eventually } from '../support/wait.js';

/** An arbitrary fixed instant: the scripts never read the server clock. */
const T0 = 1_750_000_000_000;
const TTL = 30_000;

const ACQUIRED: AcquireResult = { acquired: true };
const full = (fullKey: string, holders: number): AcquireResult => ({ acquired: false, fullKey, holders });

async function score(redis: Redis, key: string, token: string): Promise<number | undefined> {
  const s = await redis.zscore(key, token);
  return s === null ? undefined : Number(s);
}

async function members(redis: Redis, key: string): Promise<string[]> {
  return (await redis.zrange(key, 0, -1)).sort();
}

function slotsTest(label: string, body: (v: ValkeyTest, slots: Slots) => Promise<void>) {
  return () => withValkey(label, (v) => body(v, new Slots(v.redis)));
}

describe('Slots: one key', () => {
  test.each([1, 3])('limit %i: that many tokens get a place, the next is refused', (limit) =>
    withValkey(`limit-${limit}`, async (v) => {
      const slots = new Slots(v.redis);
      const key = v.key('checks');
      for (let i = 0; i < limit; i++) {
        expect(await slots.acquire([key], [limit], `t${i}`, T0 + i, TTL)).toEqual(ACQUIRED);
      }
      expect(await slots.acquire([key], [limit], 'late', T0 + limit, TTL)).toEqual(full(key, limit));
      expect(await slots.holders(key, T0 + limit)).toBe(limit);
      expect(await score(v.redis, key, 'late')).toBeUndefined();
      // Giving one place back lets the late one in.
      await slots.release([key], 't0');
      expect(await slots.acquire([key], [limit], 'late', T0 + limit, TTL)).toEqual(ACQUIRED);
      expect(await slots.holders(key, T0 + limit)).toBe(limit);
    }),
  );

  test(
    'an expired lease frees its place without anyone releasing it',
    slotsTest('expiry', async (v, slots) => {
      const key = v.key('checks');
      expect(await slots.acquire([key], [1], 'a', T0, TTL)).toEqual(ACQUIRED);
      // Still live one millisecond before its expiry...
      expect(await slots.holders(key, T0 + TTL - 1)).toBe(1);
      expect(await slots.acquire([key], [1], 'b', T0 + TTL - 1, TTL)).toEqual(full(key, 1));
      // ...and gone at its expiry (score <= now has lapsed).
      expect(await slots.holders(key, T0 + TTL)).toBe(0);
      expect(await slots.acquire([key], [1], 'b', T0 + TTL, TTL)).toEqual(ACQUIRED);
      expect(await members(v.redis, key)).toEqual(['b']);
    }),
  );

  test(
    'acquire is idempotent for a token that holds its place: renewed, even when the key is full',
    slotsTest('idempotent-1', async (v, slots) => {
      const key = v.key('checks');
      expect(await slots.acquire([key], [2], 'a', T0, TTL)).toEqual(ACQUIRED);
      expect(await slots.acquire([key], [2], 'b', T0, TTL)).toEqual(ACQUIRED);
      expect(await slots.acquire([key], [2], 'a', T0 + 5_000, TTL)).toEqual(ACQUIRED);
      expect(await score(v.redis, key, 'a')).toBe(T0 + 5_000 + TTL);
      expect(await slots.holders(key, T0 + 5_000)).toBe(2);
    }),
  );

  test(
    'the key carries a PEXPIRE safety net past its latest lease, and an abandoned key goes away',
    slotsTest('pexpire', async (v, slots) => {
      const key = v.key('checks');
      await slots.acquire([key], [3], 'a', T0, TTL);
      await slots.acquire([key], [3], 'b', T0, 2 * TTL); // latest lease: T0 + 2 TTL
      // The net is the latest lease (2 TTL from now) plus the writing call's ttl (2 TTL).
      const pttl = await v.redis.pttl(key);
      expect(pttl).toBeGreaterThan(4 * TTL - 1_000);
      expect(pttl).toBeLessThanOrEqual(4 * TTL);
      // A renewal with a short ttl does not cut the net below the latest lease: 2 TTL + 1 ms.
      await slots.renew([key], 'a', T0, 1);
      const after = await v.redis.pttl(key);
      expect(after).toBeGreaterThan(2 * TTL - 1_000);
      expect(after).toBeLessThanOrEqual(2 * TTL + 1);

      // A lease of 100 ms nobody releases: the key is gone by itself, on the server's clock.
      const abandoned = v.key('abandoned');
      await slots.acquire([abandoned], [1], 'a', Date.now(), 100);
      await eventually(`${abandoned} to expire`, async () => ((await v.redis.exists(abandoned)) === 0 ? true : undefined), 5_000);
    }),
  );
});

describe('Slots: two keys, all or nothing', () => {
  interface PairCase {
    readonly name: string;
    /** Places taken before the call, as [key name, token, limit]. */
    readonly before: readonly (readonly ['overall' | 'scope', string, number])[];
    readonly limits: readonly [number, number];
    /** undefined: acquired; otherwise the full key and its holders. */
    readonly refused?: readonly ['overall' | 'scope', number];
  }
  const cases: readonly PairCase[] = [
    { name: 'both have room', before: [], limits: [2, 1] },
    { name: 'overall full', before: [['overall', 'x', 1]], limits: [1, 5], refused: ['overall', 1] },
    {
      name: 'scope full',
      before: [
        ['scope', 'x', 2],
        ['scope', 'y', 2],
      ],
      limits: [5, 2],
      refused: ['scope', 2],
    },
    {
      name: 'both full: the first full key is reported',
      before: [
        ['overall', 'x', 1],
        ['scope', 'y', 1],
      ],
      limits: [1, 1],
      refused: ['overall', 1],
    },
    // The token held one of the two before the call: refused, and that place is left exactly as it was.
    {
      name: 'held overall before, scope full',
      before: [
        ['overall', 'me', 2],
        ['scope', 'x', 1],
      ],
      limits: [2, 1],
      refused: ['scope', 1],
    },
    {
      name: 'held scope before, overall full',
      before: [
        ['scope', 'me', 2],
        ['overall', 'x', 1],
      ],
      limits: [1, 2],
      refused: ['overall', 1],
    },
    // ...and acquired in both when the other key has room: idempotent for the half it held.
    { name: 'held overall before, scope has room', before: [['overall', 'me', 1]], limits: [1, 1] },
  ];

  test.each(cases)('$name', ({ before, limits, refused }) =>
    withValkey('pair', async (v) => {
      const slots = new Slots(v.redis);
      const keys = { overall: v.key('overall'), scope: v.key('scope:a') };
      for (const [which, token, limit] of before) {
        expect(await slots.acquire([keys[which]], [limit], token, T0, TTL)).toEqual(ACQUIRED);
      }
      const heldBefore = {
        overall: await score(v.redis, keys.overall, 'me'),
        scope: await score(v.redis, keys.scope, 'me'),
      };
      const now = T0 + 1_000;
      const result = await slots.acquire([keys.overall, keys.scope], limits, 'me', now, TTL);
      if (refused === undefined) {
        expect(result).toEqual(ACQUIRED);
        expect(await score(v.redis, keys.overall, 'me')).toBe(now + TTL);
        expect(await score(v.redis, keys.scope, 'me')).toBe(now + TTL);
      } else {
        expect(result).toEqual(full(keys[refused[0]], refused[1]));
        // Never a place in one key and not the other, unless held before the call, untouched.
        expect(await score(v.redis, keys.overall, 'me')).toBe(heldBefore.overall);
        expect(await score(v.redis, keys.scope, 'me')).toBe(heldBefore.scope);
      }
    }),
  );

  test(
    'a token holding both is renewed by acquire (idempotent), and lapsed places are swept first',
    slotsTest('idempotent-2', async (v, slots) => {
      const keys = [v.key('overall'), v.key('scope:a')];
      expect(await slots.acquire(keys, [1, 1], 'me', T0, TTL)).toEqual(ACQUIRED);
      expect(await slots.acquire(keys, [1, 1], 'me', T0 + 10, TTL)).toEqual(ACQUIRED);
      expect(await score(v.redis, keys[0]!, 'me')).toBe(T0 + 10 + TTL);
      expect(await score(v.redis, keys[1]!, 'me')).toBe(T0 + 10 + TTL);
      expect(await slots.acquire(keys, [1, 1], 'other', T0 + 20, TTL)).toEqual(full(keys[0]!, 1));
      expect(await slots.acquire(keys, [1, 1], 'other', T0 + 10 + TTL, TTL)).toEqual(ACQUIRED);
      expect(await members(v.redis, keys[0]!)).toEqual(['other']);
      expect(await members(v.redis, keys[1]!)).toEqual(['other']);
    }),
  );
});

describe('Slots: renew and release compare the token', () => {
  test(
    'a lapsed token whose place another took can neither renew nor release it',
    slotsTest('compare', async (v, slots) => {
      const key = v.key('checks');
      await slots.acquire([key], [1], 'a', T0, TTL);
      expect(await slots.renew([key], 'a', T0 + 1_000, TTL)).toBe(true);
      expect(await score(v.redis, key, 'a')).toBe(T0 + 1_000 + TTL);

      const later = T0 + 1_000 + TTL;
      expect(await slots.acquire([key], [1], 'b', later, TTL)).toEqual(ACQUIRED);
      expect(await slots.renew([key], 'a', later + 1, TTL)).toBe(false);
      await slots.release([key], 'a');
      expect(await members(v.redis, key)).toEqual(['b']);
      expect(await score(v.redis, key, 'b')).toBe(later + TTL);

      expect(await slots.renew([key], 'b', later + 2, TTL)).toBe(true);
      await slots.release([key], 'b');
      expect(await v.redis.exists(key)).toBe(0);
    }),
  );

  test(
    'a lapsed place cannot be renewed even when nobody took it',
    slotsTest('lapsed', async (v, slots) => {
      const key = v.key('checks');
      await slots.acquire([key], [1], 'a', T0, TTL);
      expect(await slots.renew([key], 'a', T0 + TTL, TTL)).toBe(false);
      expect(await slots.holders(key, T0 + TTL)).toBe(0);
    }),
  );

  test(
    'release of a token that holds nothing does nothing; release of a pair frees both',
    slotsTest('release', async (v, slots) => {
      const keys = [v.key('overall'), v.key('scope:a')];
      await slots.release(keys, 'nobody');
      await slots.acquire(keys, [2, 2], 'a', T0, TTL);
      await slots.acquire(keys, [2, 2], 'b', T0, TTL);
      await slots.release(keys, 'nobody');
      expect(await slots.holders(keys[0]!, T0)).toBe(2);
      await slots.release(keys, 'a');
      expect(await members(v.redis, keys[0]!)).toEqual(['b']);
      expect(await members(v.redis, keys[1]!)).toEqual(['b']);
    }),
  );

  test(
    'renew of a pair where one place was lost: false, and the place still held is extended',
    slotsTest('renew-pair', async (v, slots) => {
      const keys = [v.key('overall'), v.key('scope:a')];
      await slots.acquire(keys, [2, 2], 'a', T0, TTL);
      await v.redis.zrem(keys[1]!, 'a'); // e.g. removed by hand
      expect(await slots.renew(keys, 'a', T0 + 500, TTL)).toBe(false);
      expect(await score(v.redis, keys[0]!, 'a')).toBe(T0 + 500 + TTL);
      expect(await score(v.redis, keys[1]!, 'a')).toBeUndefined();
    }),
  );
});

describe('Slots: renewMany', () => {
  test(
    'renews every live place in one pipeline and reports the tokens that had lost theirs',
    slotsTest('renew-many', async (v, slots) => {
      const overall = v.key('overall');
      const scope = (s: string) => v.key(`scope:${s}`);
      await slots.acquire([overall, scope('a')], [10, 5], 'live-pair', T0, TTL);
      await slots.acquire([overall, scope('b')], [10, 5], 'half-lost', T0, TTL);
      await slots.acquire([overall], [10], 'live-one', T0, TTL);
      await slots.acquire([overall], [10], 'short', T0, 100); // lapses before the renewal
      await slots.acquire([scope('a')], [5], 'released', T0, TTL);
      await slots.release([scope('a')], 'released');
      await v.redis.zrem(scope('b'), 'half-lost');

      const now = T0 + 1_000;
      const lost = await slots.renewMany(
        [
          { keys: [overall, scope('a')], token: 'live-pair' },
          { keys: [overall, scope('b')], token: 'half-lost' },
          { keys: [overall], token: 'live-one' },
          { keys: [overall], token: 'short' },
          { keys: [scope('a')], token: 'released' },
          { keys: [scope('a')], token: 'never-there' },
        ],
        now,
        TTL,
      );
      expect(lost).toEqual(['half-lost', 'short', 'released', 'never-there']);
      for (const [key, token] of [
        [overall, 'live-pair'],
        [scope('a'), 'live-pair'],
        [overall, 'live-one'],
        [overall, 'half-lost'],
      ] as const) {
        expect(await score(v.redis, key, token)).toBe(now + TTL);
      }
      expect(await slots.holders(overall, now)).toBe(3);
      expect(await slots.renewMany([], now, TTL)).toEqual([]);
    }),
  );

  test(
    'a few thousand entries in one call',
    slotsTest('renew-many-large', async (v, slots) => {
      const n = 3_000;
      const key = (i: number) => v.key(`scope:${i % 50}`);
      const pipeline = v.redis.pipeline();
      for (let i = 0; i < n; i++) pipeline.zadd(key(i), T0 + TTL, `t${i}`);
      await pipeline.exec();
      // Every tenth one lost its place.
      const gone = v.redis.pipeline();
      for (let i = 0; i < n; i += 10) gone.zrem(key(i), `t${i}`);
      await gone.exec();
      const entries = Array.from({ length: n }, (_, i) => ({ keys: [key(i)], token: `t${i}` }));
      const lost = await slots.renewMany(entries, T0 + 1, TTL);
      expect(lost).toEqual(Array.from({ length: n / 10 }, (_, j) => `t${j * 10}`));
    }),
  );
});

describe('Slots: concurrency', () => {
  test(
    '50 concurrent acquires from 5 connections on a limit-2 semaphore: exactly 2 get a place',
    slotsTest('concurrent-1', async (v) => {
      const key = v.key('checks');
      const fleet = await Promise.all(Array.from({ length: 5 }, async () => new Slots(await v.connect())));
      const tokens = Array.from({ length: 50 }, (_, i) => `op-${i}`);
      const results = await Promise.all(tokens.map((t, i) => fleet[i % fleet.length]!.acquire([key], [2], t, T0, TTL)));
      const winners = tokens.filter((_, i) => results[i]!.acquired);
      expect(winners).toHaveLength(2);
      expect(await members(v.redis, key)).toEqual([...winners].sort());
      for (const r of results) if (!r.acquired) expect(r).toEqual(full(key, 2));
    }),
  );

  test(
    'concurrent pair acquires never leave a place in one key without the other',
    slotsTest('concurrent-2', async (v) => {
      const overall = v.key('overall');
      const scopes = ['a', 'b', 'c'].map((s) => v.key(`scope:${s}`));
      const fleet = await Promise.all(Array.from({ length: 5 }, async () => new Slots(await v.connect())));
      const jobs = Array.from({ length: 60 }, (_, i) => ({ token: `job-${i}`, scope: scopes[i % scopes.length]! }));
      const results = await Promise.all(jobs.map((j, i) => fleet[i % fleet.length]!.acquire([overall, j.scope], [4, 2], j.token, T0, TTL)));
      const winners = jobs
        .filter((_, i) => results[i]!.acquired)
        .map((j) => j.token)
        .sort();
      expect(winners).toHaveLength(4);
      expect(await members(v.redis, overall)).toEqual(winners);
      const inScopes = (await Promise.all(scopes.map((s) => members(v.redis, s)))).flat().sort();
      expect(inScopes).toEqual(winners);
      for (const s of scopes) expect((await members(v.redis, s)).length).toBeLessThanOrEqual(2);
    }),
  );
});

describe('Slots: bad arguments are refused before anything is sent', () => {
  const k = (n: string) => `unused:${n}`;
  test.each([
    { name: 'no key', call: (s: Slots) => s.acquire([], [], 't', T0, TTL), message: /1 or 2 keys, got 0/ },
    { name: 'three keys', call: (s: Slots) => s.acquire([k('a'), k('b'), k('c')], [1, 1, 1], 't', T0, TTL), message: /1 or 2 keys, got 3/ },
    {
      name: 'limit 0',
      call: (s: Slots) => s.acquire([k('a')], [0], 't', T0, TTL),
      message: /limit of unused:a must be an integer >= 1, got 0/,
    },
    {
      name: 'negative limit',
      call: (s: Slots) => s.acquire([k('a'), k('b')], [1, -1], 't', T0, TTL),
      message: /limit of unused:b .* got -1/,
    },
    { name: 'fractional limit', call: (s: Slots) => s.acquire([k('a')], [1.5], 't', T0, TTL), message: /got 1.5/ },
    { name: 'limits not one per key', call: (s: Slots) => s.acquire([k('a'), k('b')], [1], 't', T0, TTL), message: /one limit per key/ },
    { name: 'the same key twice', call: (s: Slots) => s.acquire([k('a'), k('a')], [1, 1], 't', T0, TTL), message: /must differ/ },
    { name: 'empty token', call: (s: Slots) => s.acquire([k('a')], [1], '', T0, TTL), message: /token/ },
    { name: 'ttl 0', call: (s: Slots) => s.acquire([k('a')], [1], 't', T0, 0), message: /ttlMs/ },
    { name: 'renew of three keys', call: (s: Slots) => s.renew([k('a'), k('b'), k('c')], 't', T0, TTL), message: /1 or 2 keys/ },
    { name: 'release of no key', call: (s: Slots) => s.release([], 't'), message: /1 or 2 keys/ },
    {
      name: 'renewMany with one bad entry',
      call: (s: Slots) =>
        s.renewMany(
          [
            { keys: [k('a')], token: 't' },
            { keys: [], token: 'u' },
          ],
          T0,
          TTL,
        ),
      message: /1 or 2 keys/,
    },
    { name: 'fractional now', call: (s: Slots) => s.holders(k('a'), 1.5), message: /nowMs/ },
  ])('$name', ({ call, message }) =>
    withValkey('bad-args', async (v) => {
      const slots = new Slots(v.redis);
      const sent = jest.spyOn(v.redis, 'sendCommand');
      await expect(call(slots)).rejects.toThrow(message);
      expect(sent).not.toHaveBeenCalled();
      sent.mockRestore();
    }),
  );

  test(
    'while a good call is seen going out (the check above is not vacuous)',
    slotsTest('good-args', async (v, slots) => {
      const sent = jest.spyOn(v.redis, 'sendCommand');
      await slots.holders(v.key('checks'), T0);
      await slots.renew([v.key('checks')], 't', T0, TTL);
      expect(sent).toHaveBeenCalled();
      sent.mockRestore();
    }),
  );
});
