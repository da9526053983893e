// Two leases taken, kept and dropped together in one round trip each (lib/valkey/leases.ts,
// acquireLeases-2.lua and its siblings), against a real Valkey/Redis: a delivery's id and body.
import { describe, expect, test } from '@jest/globals';
import { Leases } from '../../lib/valkey/leases.js';
import { withValkey } from '../support/valkey.js';

describe('Leases: a pair', () => {
  test.each<[string, (l: Leases, k: [string, string]) => Promise<unknown>, 'taken' | 'first' | 'second']>([
    ['both free: both taken', async () => undefined, 'taken'],
    ['the first held: refused, the second not taken', (l, k) => l.acquire(k[0], 60_000), 'first'],
    ['the second held: refused, the first not taken', (l, k) => l.acquire(k[1], 60_000), 'second'],
    ['the pair held by another: refused at the first', (l, k) => l.acquirePair(k, 60_000), 'first'],
  ])('%s', (name, given, want) =>
    withValkey(`pair-${want}`, async (v) => {
      const leases = new Leases(v.redis);
      const keys: [string, string] = [`${v.prefix}a`, `${v.prefix}b`];
      await given(leases, keys);
      const before = await Promise.all(keys.map((k) => v.redis.get(k)));
      const got = await leases.acquirePair(keys, 60_000);
      if (want === 'taken') {
        expect(got).toMatchObject({ taken: { keys } });
        const token = 'taken' in got ? got.taken.token : '';
        expect(await Promise.all(keys.map((k) => v.redis.get(k)))).toEqual([token, token]);
        expect(await v.redis.pttl(keys[0])).toBeGreaterThan(59_000);
      } else {
        expect(got).toEqual({ held: want });
        // Nothing the call found changed, and nothing was taken.
        expect(await Promise.all(keys.map((k) => v.redis.get(k)))).toEqual(before);
      }
      expect(name).toBeTruthy();
    }),
  );

  test('renewed each for its own time, released together; another token touches neither', () =>
    withValkey('pair-renew', async (v) => {
      const leases = new Leases(v.redis);
      const keys: [string, string] = [`${v.prefix}id`, `${v.prefix}body`];
      const got = await leases.acquirePair(keys, 1_000);
      if (!('taken' in got)) throw new Error('not taken');
      const stranger = { keys, token: 'not-the-token' };
      expect(await leases.renewPair(stranger, [600_000, 86_400_000])).toBe(0);
      expect(await leases.releasePair(stranger)).toBe(0);
      expect(await leases.renewPair(got.taken, [600_000, 86_400_000])).toBe(2);
      expect(await v.redis.pttl(keys[0])).toBeGreaterThan(590_000);
      expect(await v.redis.pttl(keys[0])).toBeLessThanOrEqual(600_000);
      expect(await v.redis.pttl(keys[1])).toBeGreaterThan(86_000_000);
      expect(await leases.releasePair(got.taken)).toBe(2);
      expect(await v.redis.exists(...keys)).toBe(0);
      // Taken again by someone else, the old pair's release drops nothing.
      await leases.acquirePair(keys, 60_000);
      expect(await leases.releasePair(got.taken)).toBe(0);
      expect(await v.redis.exists(...keys)).toBe(2);
    }));
});
