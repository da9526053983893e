// A Valkey for one integration test: connections to $VALKEY_URL, a key prefix of its own, and
// its keys and connections cleaned away afterwards, so tests share one server side by side.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { requireEnv } from './env.js';

export interface ValkeyTest {
  /** The test's first connection. */
  readonly redis: Redis;
  /** Every key of this test starts with it; it carries a {hash tag}, so they share a cluster slot. */
  readonly prefix: string;
  /** A key of this test: prefix + name. */
  key(name: string): string;
  /** Another connection, closed with the test. */
  connect(): Promise<Redis>;
}

async function open(url: string): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw new Error(`cannot reach Valkey at ${url}: ${(err as Error).message}`, { cause: err });
  }
  return redis;
}

async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  // The prefix holds only [a-z0-9-:{}], none of which MATCH treats specially.
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}

export async function withValkey<T>(label: string, body: (v: ValkeyTest) => Promise<T>): Promise<T> {
  if (!/^[a-z0-9-]+$/.test(label)) throw new Error(`withValkey: label ${JSON.stringify(label)} must match [a-z0-9-]+`);
  const url = requireEnv('VALKEY_URL');
  const prefix = `waitgate-test:{${label}-${randomBytes(6).toString('hex')}}:`;
  const connections: Redis[] = [];
  const connect = async () => {
    const r = await open(url);
    connections.push(r);
    return r;
  };
  const redis = await connect();
  try {
    return await body({ redis, prefix, key: (name) => `${prefix}${name}`, connect });
  } finally {
    try {
      await deleteKeys(redis, prefix);
    } finally {
      await Promise.all(connections.map((c) => c.quit().catch(() => c.disconnect())));
    }
  }
}

/**
 * A connection to $VALKEY_URL for an e2e test that reads, expires or deletes keys a waitgate
 * process wrote (under that process's own prefix), closed afterwards.
 */
export async function withRedis<T>(body: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = await open(requireEnv('VALKEY_URL'));
  try {
    return await body(redis);
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}

/** The server's clock (TIME), in epoch milliseconds: the clock every slot script reads. */
export async function serverNow(redis: Redis): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** `body`'s result, with the server's clock read just before and just after it. */
export async function serverTimed<T>(redis: Redis, body: () => Promise<T>): Promise<{ result: T; before: number; after: number }> {
  const before = await serverNow(redis);
  const result = await body();
  return { result, before, after: await serverNow(redis) };
}

/**
 * Moves every place in the sorted-set `keys` `ms` closer to its expiry, as if the server's
 * clock had run on by `ms`: how a test lapses a lease without waiting for it.
 */
export async function ageSlots(redis: Redis, keys: readonly string[], ms: number): Promise<void> {
  for (const key of keys) {
    const flat = await redis.zrange(key, '0', '-1', 'WITHSCORES');
    const pipeline = redis.pipeline();
    for (let i = 0; i < flat.length; i += 2) pipeline.zadd(key, 'XX', Number(flat[i + 1]) - ms, flat[i] as string);
    await pipeline.exec();
  }
}
