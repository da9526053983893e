// Slots (lib/valkey/slots.ts) against a real Valkey/Redis at $VALKEY_URL. The scripts read the
// server's clock, never the caller's, so a test lapses a lease by ageing its places (ageSlots),
// not by waiting, and checks an expiry against the server's clock read around the call.
import { describe, expect, jest, test } from '@jest/globals';
import type { Redis } from 'ioredis';
import { Slots, type AcquireResult } from '../../lib/valkey/slots.js';
import { ageSlots, serverNow, serverTimed, withValkey, type ValkeyTest } from '../support/valkey.js';
import { eventually } from '../support/wait.js';

const TTL = 30_000;

const ACQUIRED: AcquireResult = { acquired: true };
const full = (fullKey: string, holders: number): AcquireResult => ({ acquired: false, fullKey, holders });

async function score(redis: Redis, key: string, token: string): Promise<number | undefined> {
  const s = await redis.zscore(key, token);
  return s === null ? undefined : Number(s);
}

/** The place of `token` in `key` lapses `ttl` after the server's clock at the call, read between `before` and `after`. */
async function expectLease(redis: Redis, key: string, token: string, ttl: number, at: { before: number; after: number }) {
  const s = await score(redis, key, token);
  expect(s).toBeGreaterThanOrEqual(at.before + ttl);
  expect(s).toBeLessThanOrEqual(at.after + ttl);
}

async function members(redis: Redis, key: string): Promise<string[]> {
  return (await redis.zrange(key, '0', '-1')).sort();
}

function slotsTest(label: string, body: (v: ValkeyTest, slots: Slots) => Promise<void>) {
  return () => withValkey(label, (v) => body(v, new Slots(v.redis)));
}

describe('Slots: the server keeps time', () => {
  test(
    "a place lapses ttl after the server's clock at the call, whatever the caller's clock says",
    slotsTest('server-time', async (v, slots) => {
      const key = v.key('checks');
      const at = await serverTimed(v.redis, () => slots.acquire([key], [1], 'a', TTL));
      expect(at.result).toEqual(ACQUIRED);
      await expectLease(v.redis, key, 'a', TTL, at);
      const renewed = await serverTimed(v.redis, () => slots.renew([key], 'a', 2 * TTL));
      expect(renewed.result).toBe(true);
      await expectLease(v.redis, key, 'a', 2 * TTL, renewed);
    }),
  );
});

describe('Slots: one key', () => {
  test.each([1, 3])('limit %i: that many tokens get a place, the next is refused', (limit) =>
    withValkey(`limit-${limit}`, async (v) => {
      const slots = new Slots(v.redis);
      const key = v.key('checks');
      for (let i = 0; i < limit; i++) {
        expect(await slots.acquire([key], [limit], `t${i}`, TTL)).toEqual(ACQUIRED);
      }
      expect(await slots.acquire([key], [limit], 'late', TTL)).toEqual(full(key, limit));
      expect(await slots.holders(key)).toBe(limit);
      expect(await score(v.redis, key, 'late')).toBeUndefined();
      // Giving one place back lets the late one in.
      await slots.release([key], 't0');
      expect(await slots.acquire([key], [limit], 'late', TTL)).toEqual(ACQUIRED);
      expect(await slots.holders(key)).toBe(limit);
    }),
  );

  test(
    'an expired lease frees its place without anyone releasing it',
    slotsTest('expiry', async (v, slots) => {
      const key = v.key('checks');
      expect(await slots.acquire([key], [1], 'a', TTL)).toEqual(ACQUIRED);
      // Still live a few seconds before its expiry...
      await ageSlots(v.redis, [key], TTL - 5_000);
      expect(await slots.holders(key)).toBe(1);
      expect(await slots.acquire([key], [1], 'b', TTL)).toEqual(full(key, 1));
      // ...and gone at its expiry (score <= now has lapsed): scored at the server's now, read before the call.
      await v.redis.zadd(key, 'XX', await serverNow(v.redis), 'a');
      expect(await slots.holders(key)).toBe(0);
      expect(await slots.acquire([key], [1], 'b', TTL)).toEqual(ACQUIRED);
      expect(await members(v.redis, key)).toEqual(['b']);
    }),
  );

  test(
    'acquire is idempotent for a token that holds its place: renewed, even when the key is full',
    slotsTest('idempotent-1', async (v, slots) => {
      const key = v.key('checks');
      expect(await slots.acquire([key], [2], 'a', TTL)).toEqual(ACQUIRED);
      expect(await slots.acquire([key], [2], 'b', TTL)).toEqual(ACQUIRED);
      await ageSlots(v.redis, [key], 5_000);
      const again = await serverTimed(v.redis, () => slots.acquire([key], [2], 'a', TTL));
      expect(again.result).toEqual(ACQUIRED);
      await expectLease(v.redis, key, 'a', TTL, again);
      expect(await slots.holders(key)).toBe(2);
    }),
  );

  test(
    'the key carries a PEXPIRE safety net past its latest lease, and an abandoned key goes away',
    slotsTest('pexpire', async (v, slots) => {
      const key = v.key('checks');
      await slots.acquire([key], [3], 'a', TTL);
      await slots.acquire([key], [3], 'b', 2 * TTL); // latest lease: now + 2 TTL
      // The net is two of the writing call's ttls: its lease (2 TTL from now) and one more.
      const pttl = await v.redis.pttl(key);
      expect(pttl).toBeGreaterThan(4 * TTL - 1_000);
      expect(pttl).toBeLessThanOrEqual(4 * TTL);
      // A renewal with a short ttl does not cut the net below the latest lease: 2 TTL + 1 ms.
      await slots.renew([key], 'a', 1);
      const after = await v.redis.pttl(key);
      expect(after).toBeGreaterThan(2 * TTL - 1_000);
      expect(after).toBeLessThanOrEqual(2 * TTL + 1);

      // A later lease with a shorter ttl does not lower the net under an earlier, longer one's,
      // in one semaphore or two.
      const pair = [v.key('pair:all'), v.key('pair:scope')];
      await slots.acquire(pair, [3, 3], 'long', 3 * TTL);
      await slots.acquire(pair, [3, 3], 'short', 1_000);
      for (const k of [key, ...pair]) await slots.acquire([k], [5], 'shorter', 1);
      for (const k of pair) expect(await v.redis.pttl(k)).toBeGreaterThan(6 * TTL - 1_000);
      expect(await v.redis.pttl(key)).toBeGreaterThan(2 * TTL - 1_000);

      // A lease of 100 ms nobody releases: the key is gone by itself, on the server's clock.
      const abandoned = v.key('abandoned');
      await slots.acquire([abandoned], [1], 'a', 100);
      await eventually(`${abandoned} to expire`, async () => ((await v.redis.exists(abandoned)) === 0 ? true : undefined), 5_000);
    }),
  );
});

describe('Slots: an epoch', () => {
  test(
    'is opened once, kept without expiry, and a place in it is refused once it is gone or another',
    slotsTest('epoch', async (v, slots) => {
      const keys = [v.key('overall'), v.key('scope:a')];
      const epochKey = v.key('epoch');
      expect(await slots.acquireInEpoch(keys, [2, 2], 'a', TTL, { key: epochKey, id: '' })).toEqual({
        acquired: false,
        epochChanged: true,
      });
      const id = await slots.openEpoch(epochKey);
      expect(id).toMatch(/^[0-9a-f]{24}$/);
      expect(await slots.openEpoch(epochKey)).toBe(id);
      expect(await v.redis.pttl(epochKey)).toBe(-1);

      const at = await serverTimed(v.redis, () => slots.acquireInEpoch(keys, [2, 2], 'a', TTL, { key: epochKey, id }));
      expect(at.result).toEqual(ACQUIRED);
      await expectLease(v.redis, keys[1]!, 'a', TTL, at);
      expect(await slots.acquireInEpoch(keys, [2, 1], 'b', TTL, { key: epochKey, id })).toEqual(full(keys[1]!, 1));

      await v.redis.del(epochKey); // as lost with the rest
      expect(await slots.acquireInEpoch(keys, [2, 2], 'b', TTL, { key: epochKey, id })).toEqual({ acquired: false, epochChanged: true });
      const next = await slots.openEpoch(epochKey);
      expect(next).not.toBe(id);
      expect(await slots.acquireInEpoch(keys, [2, 2], 'b', TTL, { key: epochKey, id })).toEqual({ acquired: false, epochChanged: true });
      expect(await members(v.redis, keys[0]!)).toEqual(['a']);
      expect(await slots.acquireInEpoch(keys, [2, 2], 'b', TTL, { key: epochKey, id: next })).toEqual(ACQUIRED);
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
        expect(await slots.acquire([keys[which]], [limit], token, TTL)).toEqual(ACQUIRED);
      }
      await ageSlots(v.redis, [keys.overall, keys.scope], 1_000);
      const heldBefore = {
        overall: await score(v.redis, keys.overall, 'me'),
        scope: await score(v.redis, keys.scope, 'me'),
      };
      const at = await serverTimed(v.redis, () => slots.acquire([keys.overall, keys.scope], limits, 'me', TTL));
      const result = at.result;
      if (refused === undefined) {
        expect(result).toEqual(ACQUIRED);
        await expectLease(v.redis, keys.overall, 'me', TTL, at);
        await expectLease(v.redis, keys.scope, 'me', TTL, at);
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
      expect(await slots.acquire(keys, [1, 1], 'me', TTL)).toEqual(ACQUIRED);
      await ageSlots(v.redis, keys, 10_000);
      const again = await serverTimed(v.redis, () => slots.acquire(keys, [1, 1], 'me', TTL));
      expect(again.result).toEqual(ACQUIRED);
      await expectLease(v.redis, keys[0]!, 'me', TTL, again);
      await expectLease(v.redis, keys[1]!, 'me', TTL, again);
      expect(await slots.acquire(keys, [1, 1], 'other', TTL)).toEqual(full(keys[0]!, 1));
      await ageSlots(v.redis, keys, TTL);
      expect(await slots.acquire(keys, [1, 1], 'other', TTL)).toEqual(ACQUIRED);
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
      await slots.acquire([key], [1], 'a', TTL);
      await ageSlots(v.redis, [key], 1_000);
      const renewed = await serverTimed(v.redis, () => slots.renew([key], 'a', TTL));
      expect(renewed.result).toBe(true);
      await expectLease(v.redis, key, 'a', TTL, renewed);

      await ageSlots(v.redis, [key], TTL); // a lapses
      const taken = await serverTimed(v.redis, () => slots.acquire([key], [1], 'b', TTL));
      expect(taken.result).toEqual(ACQUIRED);
      expect(await slots.renew([key], 'a', TTL)).toBe(false);
      await slots.release([key], 'a');
      expect(await members(v.redis, key)).toEqual(['b']);
      await expectLease(v.redis, key, 'b', TTL, taken);

      expect(await slots.renew([key], 'b', TTL)).toBe(true);
      await slots.release([key], 'b');
      expect(await v.redis.exists(key)).toBe(0);
    }),
  );

  test(
    'a lapsed place cannot be renewed even when nobody took it',
    slotsTest('lapsed', async (v, slots) => {
      const key = v.key('checks');
      await slots.acquire([key], [1], 'a', TTL);
      await ageSlots(v.redis, [key], TTL);
      expect(await slots.renew([key], 'a', TTL)).toBe(false);
      expect(await slots.holders(key)).toBe(0);
    }),
  );

  test(
    'release of a token that holds nothing does nothing; release of a pair frees both',
    slotsTest('release', async (v, slots) => {
      const keys = [v.key('overall'), v.key('scope:a')];
      await slots.release(keys, 'nobody');
      await slots.acquire(keys, [2, 2], 'a', TTL);
      await slots.acquire(keys, [2, 2], 'b', TTL);
      await slots.release(keys, 'nobody');
      expect(await slots.holders(keys[0]!)).toBe(2);
      await slots.release(keys, 'a');
      expect(await members(v.redis, keys[0]!)).toEqual(['b']);
      expect(await members(v.redis, keys[1]!)).toEqual(['b']);
    }),
  );

  test(
    'renew of a pair where one place was lost: false, and the place still held is extended',
    slotsTest('renew-pair', async (v, slots) => {
      const keys = [v.key('overall'), v.key('scope:a')];
      await slots.acquire(keys, [2, 2], 'a', TTL);
      await v.redis.zrem(keys[1]!, 'a'); // e.g. removed by hand
      await ageSlots(v.redis, keys, 500);
      const renewed = await serverTimed(v.redis, () => slots.renew(keys, 'a', TTL));
      expect(renewed.result).toBe(false);
      await expectLease(v.redis, keys[0]!, 'a', TTL, renewed);
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
      await slots.acquire([overall, scope('a')], [10, 5], 'live-pair', TTL);
      await slots.acquire([overall, scope('b')], [10, 5], 'half-lost', TTL);
      await slots.acquire([overall], [10], 'live-one', TTL);
      await slots.acquire([overall], [10], 'short', 100);
      await slots.acquire([scope('a')], [5], 'released', TTL);
      await slots.release([scope('a')], 'released');
      await v.redis.zrem(scope('b'), 'half-lost');
      await ageSlots(v.redis, [overall, scope('a'), scope('b')], 1_000); // 'short' lapses

      const at = await serverTimed(v.redis, () =>
        slots.renewMany(
          [
            { keys: [overall, scope('a')], token: 'live-pair' },
            { keys: [overall, scope('b')], token: 'half-lost' },
            { keys: [overall], token: 'live-one' },
            { keys: [overall], token: 'short' },
            { keys: [scope('a')], token: 'released' },
            { keys: [scope('a')], token: 'never-there' },
          ],
          TTL,
        ),
      );
      expect(at.result).toEqual(['half-lost', 'short', 'released', 'never-there']);
      for (const [key, token] of [
        [overall, 'live-pair'],
        [scope('a'), 'live-pair'],
        [overall, 'live-one'],
        [overall, 'half-lost'],
      ] as const) {
        await expectLease(v.redis, key, token, TTL, at);
      }
      expect(await slots.holders(overall)).toBe(3);
      expect(await slots.renewMany([], TTL)).toEqual([]);
    }),
  );

  test(
    'a few thousand entries in one call',
    slotsTest('renew-many-large', async (v, slots) => {
      const n = 3_000;
      const key = (i: number) => v.key(`scope:${i % 50}`);
      const now = await serverNow(v.redis);
      const pipeline = v.redis.pipeline();
      for (let i = 0; i < n; i++) pipeline.zadd(key(i), now + TTL, `t${i}`);
      await pipeline.exec();
      // Every tenth one lost its place.
      const gone = v.redis.pipeline();
      for (let i = 0; i < n; i += 10) gone.zrem(key(i), `t${i}`);
      await gone.exec();
      const entries = Array.from({ length: n }, (_, i) => ({ keys: [key(i)], token: `t${i}` }));
      const lost = await slots.renewMany(entries, TTL);
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
      const results = await Promise.all(tokens.map((t, i) => fleet[i % fleet.length]!.acquire([key], [2], t, TTL)));
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
      const results = await Promise.all(jobs.map((j, i) => fleet[i % fleet.length]!.acquire([overall, j.scope], [4, 2], j.token, TTL)));
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
    { name: 'no key', call: (s: Slots) => s.acquire([], [], 't', TTL), message: /1 or 2 keys, got 0/ },
    { name: 'three keys', call: (s: Slots) => s.acquire([k('a'), k('b'), k('c')], [1, 1, 1], 't', TTL), message: /1 or 2 keys, got 3/ },
    {
      name: 'limit 0',
      call: (s: Slots) => s.acquire([k('a')], [0], 't', TTL),
      message: /limit of unused:a must be an integer >= 1, got 0/,
    },
    {
      name: 'negative limit',
      call: (s: Slots) => s.acquire([k('a'), k('b')], [1, -1], 't', TTL),
      message: /limit of unused:b .* got -1/,
    },
    { name: 'fractional limit', call: (s: Slots) => s.acquire([k('a')], [1.5], 't', TTL), message: /got 1.5/ },
    { name: 'limits not one per key', call: (s: Slots) => s.acquire([k('a'), k('b')], [1], 't', TTL), message: /one limit per key/ },
    { name: 'the same key twice', call: (s: Slots) => s.acquire([k('a'), k('a')], [1, 1], 't', TTL), message: /must differ/ },
    { name: 'empty token', call: (s: Slots) => s.acquire([k('a')], [1], '', TTL), message: /token/ },
    { name: 'ttl 0', call: (s: Slots) => s.acquire([k('a')], [1], 't', 0), message: /ttlMs/ },
    { name: 'renew of three keys', call: (s: Slots) => s.renew([k('a'), k('b'), k('c')], 't', TTL), message: /1 or 2 keys/ },
    { name: 'release of no key', call: (s: Slots) => s.release([], 't'), message: /1 or 2 keys/ },
    {
      name: 'renewMany with one bad entry',
      call: (s: Slots) =>
        s.renewMany(
          [
            { keys: [k('a')], token: 't' },
            { keys: [], token: 'u' },
          ],
          TTL,
        ),
      message: /1 or 2 keys/,
    },
    {
      name: 'a place in an epoch in one key',
      call: (s: Slots) => s.acquireInEpoch([k('a')], [1], 't', TTL, { key: k('e'), id: 'x' }),
      message: /in 2 keys, got 1/,
    },
    {
      name: 'an epoch key that is one of the semaphores',
      call: (s: Slots) => s.acquireInEpoch([k('a'), k('b')], [1, 1], 't', TTL, { key: k('b'), id: 'x' }),
      message: /epoch key must differ/,
    },
    { name: 'an empty epoch key', call: (s: Slots) => s.openEpoch(''), message: /non-empty/ },
    { name: 'fractional ttl', call: (s: Slots) => s.renew([k('a')], 't', 1.5), message: /ttlMs/ },
    { name: 'empty key', call: (s: Slots) => s.holders(''), message: /non-empty/ },
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
      await slots.holders(v.key('checks'));
      await slots.renew([v.key('checks')], 't', TTL);
      expect(sent).toHaveBeenCalled();
      sent.mockRestore();
    }),
  );
});
