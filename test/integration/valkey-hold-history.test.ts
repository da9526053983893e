// The receiver's hold history (receiver/adapters/valkey-hold-history.ts) against a real
// Valkey/Redis at $VALKEY_URL: the launch marker as the operator leaves it, and the highest
// hold generation, which only ever rises.
import { describe, expect, test } from '@jest/globals';
import { SUPERSEDE_WINDOW_MS } from '../../api/supersede-window.js';
import { ValkeyMarkers } from '../../operator/adapters/valkey-markers.js';
import { ValkeyKeys } from '../../lib/valkey/keys.js';
import { GENERATION_MEMORY_MS, ValkeyHoldHistory } from '../../receiver/adapters/valkey-hold-history.js';
import { withValkey } from '../support/valkey.js';

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
  });
});
