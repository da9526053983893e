// Scope slots: a fleet-wide bound on running Jobs, overall and per scope key (the target's
// repository), held in Valkey from launch until the Job ends.
//
// Valkey may lose its data (a restart without persistence, FLUSHALL, a failover to an empty
// replica), and the places of running Jobs with it; a launch that came first would then find
// room that is not there. So the two semaphores have an epoch (lib/valkey/slots.ts), which is
// lost with them, and a new holder is admitted only in the epoch this operator last registered
// its running Jobs in: after a loss the first launch finds the epoch changed, registers every
// running Job again (renews or re-takes its places), and only then asks for its own.
import type { Epoch, EpochAcquireResult } from '../../lib/valkey/slots.js';
import type { ValkeyKeys } from '../../lib/valkey/keys.js';
import type { ScopeSlots } from '../controller/ports.js';

/** Fleet-wide leases on pairs of semaphores (lib/valkey/slots.ts): times are the server's, never ours. */
export interface PairLeases {
  acquire(keys: readonly string[], limits: readonly number[], token: string, ttlMs: number): Promise<{ acquired: boolean }>;
  acquireInEpoch(
    keys: readonly string[],
    limits: readonly number[],
    token: string,
    ttlMs: number,
    epoch: Epoch,
  ): Promise<EpochAcquireResult>;
  openEpoch(key: string): Promise<string>;
  release(keys: readonly string[], token: string): Promise<void>;
  renewMany(entries: readonly { keys: readonly string[]; token: string }[], ttlMs: number): Promise<string[]>;
}

/** A running Job's place: its scope key, and its holder token (the HeldJob's uid). */
export interface RunningHolder {
  readonly scopeKey: string;
  readonly holder: string;
}

/** A running Job's lease lives this long unless renewed (WAITGATE_SCOPE_LEASE_TTL_MS); the renewal sweep runs well inside it. */
export const SCOPE_LEASE_TTL_MS = 120_000;

export class ValkeyScopeSlots implements ScopeSlots {
  /** The epoch this operator last registered every running Job in; none before the first launch. */
  private registeredIn: string | undefined;
  private registering: Promise<void> | undefined;

  /** `running`: the Jobs this operator keeps running now (as the informer's cache has them). */
  constructor(
    private readonly leases: PairLeases,
    private readonly keys: ValkeyKeys,
    private readonly concurrency: number,
    private readonly scopeLimit: number,
    private readonly running: () => readonly RunningHolder[],
    private readonly leaseTtlMs: number = SCOPE_LEASE_TTL_MS,
  ) {}

  async acquire(scopeKey: string, holder: string): Promise<'acquired' | 'full' | 'unavailable'> {
    try {
      let r = await this.acquireInEpoch(scopeKey, holder);
      if ('epochChanged' in r) {
        // First launch of this process, or Valkey lost its data: every running Job first.
        await this.register();
        r = await this.acquireInEpoch(scopeKey, holder);
      }
      // Lost again while registering: not now.
      if ('epochChanged' in r) return 'unavailable';
      return r.acquired ? 'acquired' : 'full';
    } catch {
      return 'unavailable';
    }
  }

  release(scopeKey: string, holder: string): Promise<void> {
    return this.leases.release(this.keys.scopeSlots(scopeKey), holder);
  }

  /** Renews the leases of every running Job; re-takes any that lapsed (the Job runs regardless). */
  async renew(running: readonly RunningHolder[]): Promise<number> {
    if (running.length === 0) return 0;
    const lost = await this.leases.renewMany(
      running.map((r) => ({ keys: this.keys.scopeSlots(r.scopeKey), token: r.holder })),
      this.leaseTtlMs,
    );
    const lostSet = new Set(lost);
    for (const r of running) {
      if (lostSet.has(r.holder)) await this.retake(r);
    }
    return lost.length;
  }

  private acquireInEpoch(scopeKey: string, holder: string): Promise<EpochAcquireResult> {
    const epoch = { key: this.keys.scopeEpoch(), id: this.registeredIn ?? '' };
    return this.leases.acquireInEpoch(
      this.keys.scopeSlots(scopeKey),
      [this.concurrency, this.scopeLimit],
      holder,
      this.leaseTtlMs,
      epoch,
    );
  }

  /** A running Job takes its place again. It runs regardless: a place it cannot get is not an error. */
  private async retake(r: RunningHolder): Promise<void> {
    await this.leases
      .acquire(this.keys.scopeSlots(r.scopeKey), [this.concurrency, this.scopeLimit], r.holder, this.leaseTtlMs)
      .catch(() => undefined);
  }

  /** Opens the epoch, registers every running Job in it, and remembers it; one at a time. */
  private register(): Promise<void> {
    this.registering ??= (async () => {
      try {
        const epoch = await this.leases.openEpoch(this.keys.scopeEpoch());
        await this.renew(this.running());
        this.registeredIn = epoch;
      } finally {
        this.registering = undefined;
      }
    })();
    return this.registering;
  }
}
