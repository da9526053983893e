// Scope slots: a fleet-wide bound on running Jobs, overall and per scope key (the target's
// repository), held in Valkey from launch until the Job ends.
import type { ValkeyKeys } from '../../lib/valkey/keys.js';
import type { ScopeSlots } from '../controller/ports.js';

/** Fleet-wide leases on pairs of semaphores (lib/valkey/slots.ts): times are the server's, never ours. */
export interface PairLeases {
  acquire(keys: readonly string[], limits: readonly number[], token: string, ttlMs: number): Promise<{ acquired: boolean }>;
  release(keys: readonly string[], token: string): Promise<void>;
  renewMany(entries: readonly { keys: readonly string[]; token: string }[], ttlMs: number): Promise<string[]>;
}

/** A running Job's lease lives this long unless renewed; the renewal sweep runs well inside it. */
export const SCOPE_LEASE_TTL_MS = 120_000;

export class ValkeyScopeSlots implements ScopeSlots {
  constructor(
    private readonly leases: PairLeases,
    private readonly keys: ValkeyKeys,
    private readonly concurrency: number,
    private readonly scopeLimit: number,
  ) {}

  async acquire(scopeKey: string, holder: string): Promise<'acquired' | 'full' | 'unavailable'> {
    try {
      const r = await this.leases.acquire(this.keys.scopeSlots(scopeKey), [this.concurrency, this.scopeLimit], holder, SCOPE_LEASE_TTL_MS);
      return r.acquired ? 'acquired' : 'full';
    } catch {
      return 'unavailable';
    }
  }

  release(scopeKey: string, holder: string): Promise<void> {
    return this.leases.release(this.keys.scopeSlots(scopeKey), holder);
  }

  /** Renews the leases of every running Job; re-takes any that lapsed (the Job runs regardless). */
  async renew(running: readonly { scopeKey: string; holder: string }[]): Promise<number> {
    if (running.length === 0) return 0;
    const lost = await this.leases.renewMany(
      running.map((r) => ({ keys: this.keys.scopeSlots(r.scopeKey), token: r.holder })),
      SCOPE_LEASE_TTL_MS,
    );
    const lostSet = new Set(lost);
    for (const r of running) {
      if (lostSet.has(r.holder)) await this.acquire(r.scopeKey, r.holder);
    }
    return lost.length;
  }
}
