// The receiver's hold history (receiver/adapters/valkey-hold-history.ts) against a real
// Valkey/Redis at $VALKEY_URL: the launch marker as the operator leaves it, the highest hold
// generation, which only ever rises, and the hold lock taken with them (lockHold-3.lua) and
// given back with the generation handed out (unlockHold-2.lua).
import { describe, expect, test } from '@jest/globals';
import { SUPERSEDE_WINDOW_MS } from '../../api/supersede-window.js';
import { ValkeyMarkers } from '../../operator/adapters/valkey-markers.js';
import { ValkeyKeys } from '../../lib/valkey/keys.js';
import { GENERATION_MEMORY_MS, ValkeyHoldHistory } from '../../receiver/adapters/valkey-hold-history.js';
import { withValkey } from '../support/valkey.js';
import { eventually } from '../support/wait.js';

const keysOf = (prefix: string) => new ValkeyKeys(prefix.replace(/:$/, ''));

describe('ValkeyHoldHistory', () => {
  test('nothing remembered: no marker, no generation', () =>
    withValkey('history-empty', async (v) => {
      expect(await new ValkeyHoldHistory(v.redis, keysOf(v.prefix)).recall('deploy', 'acme/web#7')).toEqual({
        launched: undefined,
        generation: undefined,
      });
    }));

  test('a generation 0 handed out (looked, and no hold found) is remembered as 0, and any hold raises it', () =>
    withValkey('history-zero', async (v) => {
      const history = new ValkeyHoldHistory(v.redis, keysOf(v.prefix));
      await history.handedOut('deploy', 'acme/web#7', 0);
      expect(await history.recall('deploy', 'acme/web#7')).toMatchObject({ generation: 0 });
      await history.handedOut('deploy', 'acme/web#7', 1);
      await history.handedOut('deploy', 'acme/web#7', 0);
      expect(await history.recall('deploy', 'acme/web#7')).toMatchObject({ generation: 1 });
    }));

  test('reads the marker the operator leaves, for that trigger and target only', () =>
    withValkey('history-marker', async (v) => {
      const keys = keysOf(v.prefix);
      await new ValkeyMarkers(v.redis, keys).leave('deploy', 'acme/web#7', 'web-7-deploy-1a2b3c4d-1');
      const history = new ValkeyHoldHistory(v.redis, keys);
      expect(await history.recall('deploy', 'acme/web#7')).toMatchObject({ launched: 'web-7-deploy-1a2b3c4d-1' });
      expect(await history.recall('deploy', 'acme/web#8')).toMatchObject({ launched: undefined });
      // It lives as long as the supersede window, no longer and not much shorter.
      const ttl = await v.redis.pttl(keys.finishedMarker('deploy', 'acme/web#7'));
      expect(ttl).toBeLessThanOrEqual(SUPERSEDE_WINDOW_MS);
      expect(ttl).toBeGreaterThan(SUPERSEDE_WINDOW_MS - 10_000);
    }));

  test('the generation only ever rises, and is kept for its memory from the last one handed out', () =>
    withValkey('history-generation', async (v) => {
      const keys = keysOf(v.prefix);
      const history = new ValkeyHoldHistory(v.redis, keys);
      await history.handedOut('deploy', 'acme/web#7', 3);
      // A late write of an older generation does not lower it.
      await history.handedOut('deploy', 'acme/web#7', 2);
      expect(await history.recall('deploy', 'acme/web#7')).toMatchObject({ generation: 3 });
      await history.handedOut('deploy', 'acme/web#7', 4);
      expect(await history.recall('deploy', 'acme/web#7')).toMatchObject({ generation: 4 });
      expect(await history.recall('other', 'acme/web#7')).toMatchObject({ generation: undefined });
      const ttl = await v.redis.pttl(keys.holdGeneration('deploy', 'acme/web#7'));
      expect(ttl).toBeGreaterThan(GENERATION_MEMORY_MS - 60_000);
      expect(ttl).toBeLessThanOrEqual(GENERATION_MEMORY_MS);
    }));

  test('the keys are where the receiver and the operator both look', () => {
    const keys = new ValkeyKeys('wg');
    expect(keys.holdGeneration('deploy', 'acme/web#7')).toMatch(/^wg:hold-generation:[0-9a-f]{16}:[0-9a-f]{16}$/);
    expect(keys.finishedMarker('deploy', 'acme/web#7')).toMatch(/^wg:finished:[0-9a-f]{16}:[0-9a-f]{16}$/);
    expect(keys.holdLock('deploy', 'acme/web#7')).toMatch(/^wg:hold-lock:[0-9a-f]{16}:[0-9a-f]{16}$/);
  });
});

describe('ValkeyHoldHistory: the hold lock', () => {
  const LOCK_TTL_MS = 15_000;

  test('taken with nothing remembered: the lock, under its key and for its time, and nothing read', () =>
    withValkey('hold-lock-empty', async (v) => {
      const keys = keysOf(v.prefix);
      const taken = await new ValkeyHoldHistory(v.redis, keys).lockAndRecall('deploy', 'acme/web#7', LOCK_TTL_MS);
      expect(taken).toEqual({
        lock: { trigger: 'deploy', target: 'acme/web#7', token: expect.stringMatching(/^[0-9a-f]{24}$/) },
        remembered: { launched: undefined, generation: undefined },
      });
      const lockKey = keys.holdLock('deploy', 'acme/web#7');
      expect(await v.redis.get(lockKey)).toBe(taken?.lock.token);
      const ttl = await v.redis.pttl(lockKey);
      expect(ttl).toBeLessThanOrEqual(LOCK_TTL_MS);
      expect(ttl).toBeGreaterThan(LOCK_TTL_MS - 5_000);
    }));

  test('what is remembered comes with the lock: the marker and the generation, 0 included', () =>
    withValkey('hold-lock-recall', async (v) => {
      const keys = keysOf(v.prefix);
      const history = new ValkeyHoldHistory(v.redis, keys);
      await new ValkeyMarkers(v.redis, keys).leave('deploy', 'acme/web#7', 'web-7-deploy-1a2b3c4d-3');
      await history.handedOut('deploy', 'acme/web#7', 3);
      await history.handedOut('deploy', 'acme/web#8', 0);
      const taken = await history.lockAndRecall('deploy', 'acme/web#7', LOCK_TTL_MS);
      expect(taken?.remembered).toEqual({ launched: 'web-7-deploy-1a2b3c4d-3', generation: 3 });
      expect(taken?.remembered).toEqual(await history.recall('deploy', 'acme/web#7'));
      expect((await history.lockAndRecall('deploy', 'acme/web#8', LOCK_TTL_MS))?.remembered).toEqual({
        launched: undefined,
        generation: 0,
      });
    }));

  test('refused while held, by another connection too, and nothing read; taken again once given back', () =>
    withValkey('hold-lock-held', async (v) => {
      const keys = keysOf(v.prefix);
      const first = new ValkeyHoldHistory(v.redis, keys);
      const second = new ValkeyHoldHistory(await v.connect(), keys);
      const taken = await first.lockAndRecall('deploy', 'acme/web#7', LOCK_TTL_MS);
      expect(taken).toBeDefined();
      expect(await second.lockAndRecall('deploy', 'acme/web#7', LOCK_TTL_MS)).toBeUndefined();
      expect(await first.lockAndRecall('deploy', 'acme/web#7', LOCK_TTL_MS)).toBeUndefined();
      // Another trigger, or another target, has a lock of its own.
      expect(await second.lockAndRecall('other', 'acme/web#7', LOCK_TTL_MS)).toBeDefined();
      expect(await second.lockAndRecall('deploy', 'acme/web#8', LOCK_TTL_MS)).toBeDefined();
      expect(await first.unlock(taken!.lock)).toBe(true);
      expect(await second.lockAndRecall('deploy', 'acme/web#7', LOCK_TTL_MS)).toBeDefined();
    }));

  test('a lock lapses at its time to live', () =>
    withValkey('hold-lock-lapses', async (v) => {
      const history = new ValkeyHoldHistory(v.redis, keysOf(v.prefix));
      expect(await history.lockAndRecall('deploy', 'acme/web#7', 50)).toBeDefined();
      await eventually('the lock to lapse', () => history.lockAndRecall('deploy', 'acme/web#7', LOCK_TTL_MS));
    }));

  test('given back only with its own token: a wrong token leaves the lock where it is, and says so', () =>
    withValkey('hold-lock-token', async (v) => {
      const keys = keysOf(v.prefix);
      const history = new ValkeyHoldHistory(v.redis, keys);
      const taken = await history.lockAndRecall('deploy', 'acme/web#7', LOCK_TTL_MS);
      expect(await history.unlock({ ...taken!.lock, token: 'someone-else' })).toBe(false);
      expect(await v.redis.get(keys.holdLock('deploy', 'acme/web#7'))).toBe(taken!.lock.token);
      expect(await history.lockAndRecall('deploy', 'acme/web#7', LOCK_TTL_MS)).toBeUndefined();
      expect(await history.unlock(taken!.lock)).toBe(true);
      expect(await v.redis.exists(keys.holdLock('deploy', 'acme/web#7'))).toBe(0);
      // Given back twice: the second finds it gone.
      expect(await history.unlock(taken!.lock)).toBe(false);
    }));

  test('given back with the generation handed out: remembered for its memory, and never lowered', () =>
    withValkey('hold-lock-generation', async (v) => {
      const keys = keysOf(v.prefix);
      const history = new ValkeyHoldHistory(v.redis, keys);
      const generationKey = keys.holdGeneration('deploy', 'acme/web#7');
      let taken = await history.lockAndRecall('deploy', 'acme/web#7', LOCK_TTL_MS);
      expect(await history.unlock(taken!.lock, 4)).toBe(true);
      expect(await history.recall('deploy', 'acme/web#7')).toMatchObject({ generation: 4 });
      const ttl = await v.redis.pttl(generationKey);
      expect(ttl).toBeGreaterThan(GENERATION_MEMORY_MS - 60_000);
      expect(ttl).toBeLessThanOrEqual(GENERATION_MEMORY_MS);
      // A late delivery's older generation does not lower it.
      taken = await history.lockAndRecall('deploy', 'acme/web#7', LOCK_TTL_MS);
      expect(taken?.remembered.generation).toBe(4);
      await history.unlock(taken!.lock, 2);
      expect(await history.recall('deploy', 'acme/web#7')).toMatchObject({ generation: 4 });
      // No generation given: the lock goes, what is remembered stays as it is.
      taken = await history.lockAndRecall('deploy', 'acme/web#7', LOCK_TTL_MS);
      await v.redis.pexpire(generationKey, 60_000);
      expect(await history.unlock(taken!.lock)).toBe(true);
      expect(await history.recall('deploy', 'acme/web#7')).toMatchObject({ generation: 4 });
      expect(await v.redis.pttl(generationKey)).toBeLessThanOrEqual(60_000);
      expect(await v.redis.exists(keys.holdLock('deploy', 'acme/web#7'))).toBe(0);
    }));

  test('a generation is remembered even when the lock is no longer its own (it lapsed and was taken again)', () =>
    withValkey('hold-lock-lapsed-generation', async (v) => {
      const keys = keysOf(v.prefix);
      const history = new ValkeyHoldHistory(v.redis, keys);
      const stale = await history.lockAndRecall('deploy', 'acme/web#7', LOCK_TTL_MS);
      // The lock ran out mid-create, and another delivery holds it now.
      await v.redis.del(keys.holdLock('deploy', 'acme/web#7'));
      const now = await history.lockAndRecall('deploy', 'acme/web#7', LOCK_TTL_MS);
      expect(await history.unlock(stale!.lock, 1)).toBe(false);
      expect(await v.redis.get(keys.holdLock('deploy', 'acme/web#7'))).toBe(now!.lock.token);
      expect(await history.recall('deploy', 'acme/web#7')).toMatchObject({ generation: 1 });
    }));

  test('a generation that is no whole number from 0 is refused before Valkey is asked, and the lock stays', () =>
    withValkey('hold-lock-bad-generation', async (v) => {
      const keys = keysOf(v.prefix);
      const history = new ValkeyHoldHistory(v.redis, keys);
      const taken = await history.lockAndRecall('deploy', 'acme/web#7', LOCK_TTL_MS);
      await expect(history.unlock(taken!.lock, 1.5)).rejects.toThrow(/whole number/);
      await expect(history.unlock(taken!.lock, -1)).rejects.toThrow(/whole number/);
      expect(await v.redis.get(keys.holdLock('deploy', 'acme/web#7'))).toBe(taken!.lock.token);
      expect(await v.redis.exists(keys.holdGeneration('deploy', 'acme/web#7'))).toBe(0);
    }));
});

// A Valkey shared by a fleet has other writers: another cluster's receiver, or whoever holds
// its credential. What they plant under waitgate's keys must not refuse or block for ever.
describe('ValkeyHoldHistory: keys planted by another client of a shared Valkey', () => {
  const LOCK_TTL_MS = 15_000;
  const TARGET = 'acme/web#7';

  test.each<[string, (redis: import('ioredis').Redis, key: string) => Promise<unknown>]>([
    ['a marker with no expiry', (r, k) => r.set(k, 'web-7-deploy-1a2b3c4d-3')],
    ['a marker expiring in a year', (r, k) => r.set(k, 'web-7-deploy-1a2b3c4d-3', 'PX', 365 * 86_400_000)],
    ['a marker that is no object name', (r, k) => r.set(k, 'Not A Name!', 'PX', 60_000)],
    ['a marker of another type', (r, k) => r.hset(k, 'x', '1')],
  ])('%s refuses nothing, and is reported', (_what, plant) =>
    withValkey('planted-marker', async (v) => {
      const keys = keysOf(v.prefix);
      const found: unknown[] = [];
      const history = new ValkeyHoldHistory(v.redis, keys, undefined, (f) => found.push(f));
      await plant(v.redis, keys.finishedMarker('deploy', TARGET));
      const taken = await history.lockAndRecall('deploy', TARGET, LOCK_TTL_MS);
      expect(taken?.remembered.launched).toBeUndefined();
      expect((await history.recall('deploy', TARGET)).launched).toBeUndefined();
      // The hash reads as absent (no WRONGTYPE error); the others are reported twice (both reads).
      if (found.length > 0) expect(found).toContainEqual({ kind: 'marker', trigger: 'deploy', target: TARGET });
    }),
  );

  test('a marker as the operator writes it is still honoured', () =>
    withValkey('honest-marker', async (v) => {
      const keys = keysOf(v.prefix);
      await new ValkeyMarkers(v.redis, keys).leave('deploy', TARGET, 'web-7-deploy-1a2b3c4d-3');
      expect((await new ValkeyHoldHistory(v.redis, keys).recall('deploy', TARGET)).launched).toBe('web-7-deploy-1a2b3c4d-3');
    }));

  test.each<[string, (redis: import('ioredis').Redis, key: string) => Promise<unknown>]>([
    ['a lock with no expiry', (r, k) => r.set(k, 'aaaaaaaaaaaaaaaaaaaaaaaa')],
    ['a lock expiring in a day', (r, k) => r.set(k, 'aaaaaaaaaaaaaaaaaaaaaaaa', 'PX', 86_400_000)],
    ['a lock that is no token', (r, k) => r.set(k, 'mine', 'PX', 10_000)],
    ['a lock of another type', (r, k) => r.lpush(k, 'x')],
  ])('%s is taken over, not answered 503 for ever', (_what, plant) =>
    withValkey('planted-lock', async (v) => {
      const keys = keysOf(v.prefix);
      const found: unknown[] = [];
      const history = new ValkeyHoldHistory(v.redis, keys, undefined, (f) => found.push(f));
      await plant(v.redis, keys.holdLock('deploy', TARGET));
      const taken = await history.lockAndRecall('deploy', TARGET, LOCK_TTL_MS);
      expect(taken).toBeDefined();
      expect(await v.redis.get(keys.holdLock('deploy', TARGET))).toBe(taken!.lock.token);
      expect(await v.redis.pttl(keys.holdLock('deploy', TARGET))).toBeLessThanOrEqual(LOCK_TTL_MS);
      expect(found).toEqual([{ kind: 'lock', trigger: 'deploy', target: TARGET }]);
      // And a real holder's lock is still respected: the next delivery waits its turn.
      expect(await history.lockAndRecall('deploy', TARGET, LOCK_TTL_MS)).toBeUndefined();
    }),
  );
});
