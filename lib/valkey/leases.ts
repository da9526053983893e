// Token-carrying leases in Valkey, one round trip each, through the Lua scripts in lua/.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { luaScript as script } from './lua-script.js';

/** What the lease scripts return. */
export const LeaseResult = { Done: 1, NotHeld: 0 } as const;
export type LeaseResult = (typeof LeaseResult)[keyof typeof LeaseResult];

interface LeaseCommands {
  acquireLease(key: string, token: string, ttlMs: number): Promise<number>;
  renewLease(key: string, token: string, ttlMs: number): Promise<number>;
  releaseLease(key: string, token: string): Promise<number>;
  acquireLeases2(key1: string, key2: string, token: string, ttlMs: number): Promise<number>;
  renewLeases2(key1: string, key2: string, token: string, ttl1Ms: number, ttl2Ms: number): Promise<number>;
  releaseLeases2(key1: string, key2: string, token: string): Promise<number>;
}

/** What acquireLeases-2.lua answers. */
export const PairResult = { Taken: 1, FirstHeld: 0, SecondHeld: 2 } as const;

/** Two leases taken together under one token (acquirePair). */
export interface LeasePair {
  readonly keys: readonly [string, string];
  readonly token: string;
}

/** How taking a pair went: taken, or refused because one of the keys is held (nothing taken). */
export type PairAcquire = { readonly taken: LeasePair } | { readonly held: 'first' | 'second' };

export interface Lease {
  readonly key: string;
  readonly token: string;
}

export class Leases {
  private readonly redis: Redis & LeaseCommands;

  constructor(redis: Redis) {
    redis.defineCommand('acquireLease', { numberOfKeys: 1, lua: script('acquireLease-1.lua') });
    redis.defineCommand('renewLease', { numberOfKeys: 1, lua: script('renewLease-1.lua') });
    redis.defineCommand('releaseLease', { numberOfKeys: 1, lua: script('releaseLease-1.lua') });
    redis.defineCommand('acquireLeases2', { numberOfKeys: 2, lua: script('acquireLeases-2.lua') });
    redis.defineCommand('renewLeases2', { numberOfKeys: 2, lua: script('renewLeases-2.lua') });
    redis.defineCommand('releaseLeases2', { numberOfKeys: 2, lua: script('releaseLeases-2.lua') });
    this.redis = redis as Redis & LeaseCommands;
  }

  /** The lease, or undefined when someone else holds the key. */
  async acquire(key: string, ttlMs: number): Promise<Lease | undefined> {
    const token = randomBytes(12).toString('hex');
    const r = await this.redis.acquireLease(key, token, ttlMs);
    return r === LeaseResult.Done ? { key, token } : undefined;
  }

  async renew(lease: Lease, ttlMs: number): Promise<boolean> {
    return (await this.redis.renewLease(lease.key, lease.token, ttlMs)) === LeaseResult.Done;
  }

  async release(lease: Lease): Promise<boolean> {
    return (await this.redis.releaseLease(lease.key, lease.token)) === LeaseResult.Done;
  }

  /** Two leases in one round trip, both or neither (a delivery's id and its body). */
  async acquirePair(keys: readonly [string, string], ttlMs: number): Promise<PairAcquire> {
    if (keys[0] === keys[1]) throw new Error(`Leases: a pair needs two keys, got ${keys[0]} twice`);
    const token = randomBytes(12).toString('hex');
    const r = await this.redis.acquireLeases2(keys[0], keys[1], token, ttlMs);
    if (r === PairResult.Taken) return { taken: { keys, token } };
    if (r === PairResult.FirstHeld) return { held: 'first' };
    if (r === PairResult.SecondHeld) return { held: 'second' };
    throw new Error(`Leases: unexpected reply from acquireLeases-2: ${String(r)}`);
  }

  /** Extends both leases of a pair, each for its own time; how many were still the pair's. */
  renewPair(pair: LeasePair, ttlMs: readonly [number, number]): Promise<number> {
    return this.redis.renewLeases2(pair.keys[0], pair.keys[1], pair.token, ttlMs[0], ttlMs[1]);
  }

  /** Drops both leases of a pair (those still its own); how many were. */
  releasePair(pair: LeasePair): Promise<number> {
    return this.redis.releaseLeases2(pair.keys[0], pair.keys[1], pair.token);
  }
}
