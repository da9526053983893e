// Valkey loses its keys while Jobs run (FLUSHALL, or a restart with nothing persisted): the
// running Jobs' scope places must be registered again before any new launch takes one, so the
// scope limit is never exceeded. A redis-server of this file's own, since both wipe everything.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Redis } from 'ioredis';
import { connectValkey } from '../../lib/valkey/connection.js';
import { ValkeyKeys } from '../../lib/valkey/keys.js';
import { Slots } from '../../lib/valkey/slots.js';
import { ValkeyScopeSlots, type RunningHolder } from '../../operator/adapters/valkey-scope-slots.js';
import { OwnRedisServer } from '../support/redis-server.js';
import { eventually } from '../support/wait.js';

const CONCURRENCY = 10;
const SCOPE_LIMIT = 2;
const keys = new ValkeyKeys('waitgate-test');
const [, WEB] = keys.scopeSlots('acme/web');

let server: OwnRedisServer;
beforeAll(async () => {
  server = await OwnRedisServer.start();
});
afterAll(async () => {
  await server.stop();
});

/** An operator: its connection, its scope slots, and the Jobs it keeps running. */
async function operator() {
  const redis = connectValkey(server.url);
  redis.on('error', () => undefined);
  await ready(redis);
  const running: RunningHolder[] = [];
  const scope = new ValkeyScopeSlots(new Slots(redis), keys, CONCURRENCY, SCOPE_LIMIT, () => running);
  return { redis, running, scope };
}

async function ready(redis: Redis): Promise<void> {
  await eventually('the connection to be ready again', async () =>
    redis.status === 'ready' && (await redis.ping()) === 'PONG' ? true : undefined,
  );
}

/** A launch as the reconciler retries it: again while Valkey is unavailable, until it says full or acquired. */
async function launch(scope: ValkeyScopeSlots, holder: string): Promise<'acquired' | 'full'> {
  return eventually(`a launch of ${holder} to be answered`, async () => {
    const r = await scope.acquire('acme/web', holder);
    return r === 'unavailable' ? undefined : r;
  });
}

const losses: [string, (redis: Redis) => Promise<unknown>][] = [
  ['FLUSHALL', (redis) => redis.flushall()],
  ['a restart without persistence', () => server.restart()],
];

describe.each(losses)('after %s', (_name, lose) => {
  test('a new launch finds the running Jobs back before it, and stays out of the full scope', async () => {
    const { redis, running, scope } = await operator();
    try {
      await redis.flushall();
      for (const holder of ['run-1', 'run-2']) {
        expect(await launch(scope, holder)).toBe('acquired');
        running.push({ scopeKey: 'acme/web', holder });
      }
      expect(await launch(scope, 'new')).toBe('full');

      await lose(redis);
      await ready(redis);
      expect(await redis.zcard(WEB)).toBe(0);

      expect(await launch(scope, 'new')).toBe('full');
      expect((await redis.zrange(WEB, '0', '-1')).sort()).toEqual(['run-1', 'run-2']);

      // A running Job ends: the next one gets its place, as ever.
      await scope.release('acme/web', 'run-1', true);
      expect(await launch(scope, 'new')).toBe('acquired');
      expect((await redis.zrange(WEB, '0', '-1')).sort()).toEqual(['new', 'run-2']);
    } finally {
      redis.disconnect();
    }
  });

  test('launches racing each other right after the loss never take the scope past its limit', async () => {
    const { redis, running, scope } = await operator();
    const watcher = (await operator()).redis;
    try {
      await redis.flushall();
      for (const holder of ['run-1', 'run-2']) {
        expect(await launch(scope, holder)).toBe('acquired');
        running.push({ scopeKey: 'acme/web', holder });
      }

      await lose(redis);
      await Promise.all([ready(redis), ready(watcher)]);

      let racing = true;
      let most = 0;
      const watching = (async () => {
        while (racing) most = Math.max(most, await watcher.zcard(WEB));
      })();
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => launch(scope, `new-${i}`)));
      racing = false;
      await watching;

      expect(results).toEqual(Array.from({ length: 12 }, () => 'full'));
      expect(most).toBeLessThanOrEqual(SCOPE_LIMIT);
      expect((await redis.zrange(WEB, '0', '-1')).sort()).toEqual(['run-1', 'run-2']);
    } finally {
      redis.disconnect();
      watcher.disconnect();
    }
  });
});
