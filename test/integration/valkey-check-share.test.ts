// Fair shares of the fleet's check slots per namespace (lib/valkey/slots.ts acquireShare,
// lua/acquireShare-4.lua) against a real Valkey at $VALKEY_URL: a namespace alone takes every
// place; a namespace that asks, even refused, is active and shrinks every other's share to
// ceil(limit / active); one over its share keeps what it holds but takes no new place; once a
// namespace's activity lapses the others' shares grow back. Lapses here are on the server's
// clock, in real time (short windows, polled with a deadline).
import { describe, expect, test } from '@jest/globals';
import type { Redis } from 'ioredis';
import { ValkeyKeys } from '../../lib/valkey/keys.js';
import { Slots, type AcquireResult, type SharePlace } from '../../lib/valkey/slots.js';
import { Timeouts } from '../support/timeouts.js';
import { serverNow, withValkey, type ValkeyTest } from '../support/valkey.js';
import { eventually } from '../support/wait.js';

const TTL = 30_000;
/** How long a namespace stays active after it asks, where a test does not lapse it. */
const ACTIVE_MS = 60_000;
const ACQUIRED: AcquireResult = { acquired: true };
const full = (fullKey: string, holders: number): AcquireResult => ({ acquired: false, fullKey, holders });

/** The check slot keys of the test's own prefix, as the operator names them. */
function keysOf(v: ValkeyTest): ValkeyKeys {
  return new ValkeyKeys(v.prefix.replace(/:$/, ''));
}

/** Where a check slot of `namespace` is taken, of `limit` in the fleet. */
function placeIn(keys: ValkeyKeys, namespace: string, limit: number): SharePlace {
  return { fleetKey: keys.checkSlots(), namespaceKey: keys.checkSlotsOf(namespace), activeKey: keys.checkActive(), limit };
}

async function members(redis: Redis, key: string): Promise<string[]> {
  return (await redis.zrange(key, '0', '-1')).sort();
}

describe('check slots: a fair share per namespace', () => {
  test('limit 4: alone, a namespace takes 4; another asking makes the share 2; once its activity lapses, the first has all 4 again', () =>
    withValkey('check-share', async (v) => {
      const keys = keysOf(v);
      const slots = new Slots(v.redis);
      const a = placeIn(keys, 'team-a', 4);
      const b = placeIn(keys, 'team-b', 4);
      /** team-b's activity window: short, so the test sees it lapse. */
      const bActiveMs = 3_000;

      for (const token of ['a1', 'a2', 'a3', 'a4']) expect(await slots.acquireShare(a, token, TTL, ACTIVE_MS)).toEqual(ACQUIRED);
      expect(await slots.acquireShare(a, 'a5', TTL, ACTIVE_MS)).toEqual(full(a.fleetKey, 4));
      // team-b asks: the fleet is full, but team-b is active from now on.
      expect(await slots.acquireShare(b, 'b1', TTL, bActiveMs)).toEqual(full(a.fleetKey, 4));
      expect(await members(v.redis, keys.checkActive())).toEqual([a.namespaceKey, b.namespaceKey].sort());
      // One of team-a's checks ends; team-a asks again: refused at its share (it holds 3 >= ceil(4 / 2)).
      await slots.release([a.fleetKey, a.namespaceKey], 'a1');
      expect(await slots.acquireShare(a, 'a5', TTL, ACTIVE_MS)).toEqual(full(a.namespaceKey, 3));
      // team-a keeps what it holds: a renewal over its share is granted.
      expect(await slots.acquireShare(a, 'a2', TTL, ACTIVE_MS)).toEqual(ACQUIRED);
      // The freed place is team-b's.
      expect(await slots.acquireShare(b, 'b1', TTL, bActiveMs)).toEqual(ACQUIRED);
      expect(await members(v.redis, a.fleetKey)).toEqual(['a2', 'a3', 'a4', 'b1']);
      expect(await members(v.redis, b.namespaceKey)).toEqual(['b1']);

      // team-b's check ends and it asks no more: its activity lapses bActiveMs after its last ask.
      await slots.release([b.fleetKey, b.namespaceKey], 'b1');
      const bLapses = Number(await v.redis.zscore(keys.checkActive(), b.namespaceKey));
      expect(await slots.acquireShare(a, 'a5', TTL, ACTIVE_MS)).toEqual(full(a.namespaceKey, 3));
      await eventually(
        "team-b's activity to lapse, and team-a to take a fourth place",
        async () => ((await slots.acquireShare(a, 'a5', TTL, ACTIVE_MS)).acquired ? true : undefined),
        bActiveMs + Timeouts.shortMs,
      );
      expect(await serverNow(v.redis)).toBeGreaterThanOrEqual(bLapses);
      expect(await members(v.redis, keys.checkActive())).toEqual([a.namespaceKey]);
      expect(await members(v.redis, a.namespaceKey)).toEqual(['a2', 'a3', 'a4', 'a5']);
      expect(await slots.acquireShare(a, 'a6', TTL, ACTIVE_MS)).toEqual(full(a.fleetKey, 4));
    }));

  test("a hostile namespace's 50 holds asking in a loop never leave another namespace's one hold without a place past one release", () =>
    withValkey('check-share-attack', async (v) => {
      const keys = keysOf(v);
      const limit = 4;
      const hostile = placeIn(keys, 'hostile', limit);
      const victim = placeIn(keys, 'victim', limit);
      // Two operators: the hostile namespace's and the victim's, each with a connection of its own.
      const hostileSlots = new Slots(await v.connect());
      const victimSlots = new Slots(await v.connect());
      // Each hostile release is numbered as it is sent; the highest number whose reply came is kept.
      let releasesSent = 0;
      let lastReleaseDone = 0;
      let stop = false;
      const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
      // Each hostile hold asks again at once when refused (no backoff), runs a 5 ms check when granted.
      const hold = async (token: string) => {
        while (!stop) {
          if ((await hostileSlots.acquireShare(hostile, token, TTL, ACTIVE_MS)).acquired) {
            await pause(5);
            const n = ++releasesSent;
            await hostileSlots.release([hostile.fleetKey, hostile.namespaceKey], token);
            lastReleaseDone = Math.max(lastReleaseDone, n);
          } else await new Promise((r) => setImmediate(r));
        }
      };
      const attack = Array.from({ length: 50 }, (_, i) => hold(`h${i}`));
      try {
        await eventually('the hostile namespace to hold every place', async () =>
          (await v.redis.zcard(hostile.namespaceKey)) === limit ? true : undefined,
        );
        for (let cycle = 0; cycle < 20; cycle++) {
          // The victim's one hold asks until granted. Its first refusal makes it active; a hostile
          // release sent after that refusal came back, and done before the next ask is sent, ran
          // on the server between the two: the place it freed must be the victim's.
          let refusedAt: number | undefined;
          for (;;) {
            const releasedBefore = lastReleaseDone;
            const { acquired } = await victimSlots.acquireShare(victim, 'v1', TTL, ACTIVE_MS);
            if (acquired) break;
            if (refusedAt !== undefined && releasedBefore > refusedAt) {
              throw new Error(`cycle ${cycle}: refused after hostile release ${releasedBefore}, sent after its first refusal`);
            }
            refusedAt ??= releasesSent;
            await new Promise((r) => setImmediate(r));
          }
          // Only the first cycle meets every place taken: the hostile namespace never takes all again.
          if (cycle > 0) expect(refusedAt).toBeUndefined();
          expect(await v.redis.zcard(hostile.namespaceKey)).toBeLessThanOrEqual(limit - 1);
          await pause(5);
          await victimSlots.release([victim.fleetKey, victim.namespaceKey], 'v1');
        }
        // The hostile namespace was not starved either: it kept checking, within its share.
        expect(lastReleaseDone).toBeGreaterThan(10);
      } finally {
        stop = true;
        await Promise.all(attack);
      }
    }));

  test('the active set carries a safety net of two windows, raised and never lowered; the semaphores of two leases', () =>
    withValkey('check-share-pexpire', async (v) => {
      const keys = keysOf(v);
      const slots = new Slots(v.redis);
      const a = placeIn(keys, 'team-a', 2);
      expect(await slots.acquireShare(a, 'a1', TTL, ACTIVE_MS)).toEqual(ACQUIRED);
      const pttl = await v.redis.pttl(keys.checkActive());
      expect(pttl).toBeGreaterThan(2 * ACTIVE_MS - 1_000);
      expect(pttl).toBeLessThanOrEqual(2 * ACTIVE_MS);
      for (const k of [a.fleetKey, a.namespaceKey]) expect(await v.redis.pttl(k)).toBeGreaterThan(2 * TTL - 1_000);
      // A shorter window later lowers neither the net nor the namespace's activity.
      const until = Number(await v.redis.zscore(keys.checkActive(), a.namespaceKey));
      expect(await slots.acquireShare(a, 'a2', TTL, 1_000)).toEqual(ACQUIRED);
      expect(await v.redis.pttl(keys.checkActive())).toBeGreaterThan(2 * ACTIVE_MS - 1_000);
      expect(Number(await v.redis.zscore(keys.checkActive(), a.namespaceKey))).toBe(until);
    }));

  test('a place handed on from another namespace: given back there, taken within the share here', () =>
    withValkey('check-share-hand-on', async (v) => {
      const keys = keysOf(v);
      const slots = new Slots(v.redis);
      const a = placeIn(keys, 'team-a', 2);
      const b = placeIn(keys, 'team-b', 2);
      expect(await slots.acquireShare(a, 'a1', TTL, ACTIVE_MS)).toEqual(ACQUIRED);
      expect(await slots.acquireShare(a, 'a2', TTL, ACTIVE_MS)).toEqual(ACQUIRED);
      expect(await slots.acquireShare(b, 'b1', TTL, ACTIVE_MS)).toEqual(full(a.fleetKey, 2));
      // team-a hands a1's place to its own a3: given back, but team-a holds its share (1) still.
      expect(await slots.handOnShare({ namespaceKey: a.namespaceKey, token: 'a1' }, a, 'a3', TTL, ACTIVE_MS)).toEqual(
        full(a.namespaceKey, 1),
      );
      expect(await slots.handOnShare({ namespaceKey: a.namespaceKey, token: 'a2' }, b, 'b1', TTL, ACTIVE_MS)).toEqual(ACQUIRED);
      expect(await members(v.redis, a.fleetKey)).toEqual(['b1']);
      expect(await members(v.redis, a.namespaceKey)).toEqual([]);
      expect(await members(v.redis, b.namespaceKey)).toEqual(['b1']);
    }));

  test.each<[string, (slots: Slots, a: SharePlace) => Promise<unknown>, RegExp]>([
    ['the fleet as its own namespace', (s, a) => s.acquireShare({ ...a, namespaceKey: a.fleetKey }, 't', TTL, 1), /must differ/],
    ['the active set as a semaphore', (s, a) => s.acquireShare({ ...a, activeKey: a.namespaceKey }, 't', TTL, 1), /active set must differ/],
    ['a limit of 0', (s, a) => s.acquireShare({ ...a, limit: 0 }, 't', TTL, 1), /limit .* >= 1/],
    ['an activity window of 0', (s, a) => s.acquireShare(a, 't', TTL, 0), /activeMs must be an integer >= 1/],
    ['an empty token', (s, a) => s.acquireShare(a, '', TTL, 1), /token/],
    [
      "a giver's namespace that is the fleet",
      (s, a) => s.handOnShare({ namespaceKey: a.fleetKey, token: 'x' }, a, 't', TTL, 1),
      /giver's namespace semaphore must differ/,
    ],
  ])('refused before anything is sent: %s', (_name, call, error) =>
    withValkey('check-share-args', async (v) => {
      const keys = keysOf(v);
      await expect(call(new Slots(v.redis), placeIn(keys, 'team-a', 2))).rejects.toThrow(error);
      expect(await v.redis.exists(keys.checkActive(), keys.checkSlots())).toBe(0);
    }),
  );
});
