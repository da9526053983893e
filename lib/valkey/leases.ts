// Token-carrying leases in Valkey, one round trip each, through the Lua scripts in lua/.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

/** What the lease scripts return. */
export const LeaseResult = { Done: 1, NotHeld: 0 } as const;
export type LeaseResult = (typeof LeaseResult)[keyof typeof LeaseResult];

function script(name: string): string {
  return readFileSync(new URL(`./lua/${name}`, import.meta.url), 'utf8');
}

interface LeaseCommands {
  acquireLease(key: string, token: string, ttlMs: number): Promise<number>;
  renewLease(key: string, token: string, ttlMs: number): Promise<number>;
  releaseLease(key: string, token: string): Promise<number>;
}

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
}
