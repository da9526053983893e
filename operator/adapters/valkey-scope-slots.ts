// Scope slots: a fleet-wide bound on running Jobs, overall and per scope key (the target's
// repository), held in Valkey from launch until the Job ends.
//
// A place has two lives. Taken for a launch, it is a lease (WAITGATE_SCOPE_LEASE_TTL_MS): a
// launch that crashes before it is recorded frees its place by itself. Once the launch is
// recorded (the hold is Running), the place belongs to the running hold, not to the liveness
// of the operator that launched it: it is kept with a time to live of a day, renewed by
// whichever replica leads, and given back when the hold's end is recorded (whoever records
// it), or by the leader when its informer's cache shows the HeldJob ended or gone (reclaim).
// A place given back at a hold's end is marked ended in Valkey, and never taken back by a keep:
// a keeper whose cache still read the hold as running (the end not yet in the watch) would
// otherwise bring it back next to the hold that took it, over the limit.
// So a Valkey-only partition of the leader, however long within a day, frees no place while
// its Job runs. Each operator deployment notes its running places in an index of its own, so
// its leader can find those to give back.
//
// Valkey may still lose places (a restart without persistence, FLUSHALL, a failover to an
// empty or lagging replica). A running Job then takes its place back even past the limit (it
// runs regardless): the semaphore counts what really runs, refuses every new holder until it
// is back under its limit, and the loss is reported (onKept). And the two semaphores have an
// epoch (lib/valkey/slots.ts), lost with them: a new holder is admitted only in the epoch this
// operator last registered its running Jobs in, so after a loss the first launch finds the
// epoch changed, keeps every running Job's place again, and only then asks for its own.
import type { Epoch, EpochAcquireResult, HoldResult, RunningBook } from '../../lib/valkey/slots.js';
import type { ValkeyKeys } from '../../lib/valkey/keys.js';
import type { ScopeSlots } from '../controller/ports.js';
import { reclaimable, type CachedHold, type KeptPlace } from '../controller/scope-places.js';

/** Fleet-wide leases on pairs of semaphores (lib/valkey/slots.ts): times are the server's, never ours. */
export interface PairLeases {
  acquireInEpoch(
    keys: readonly string[],
    limits: readonly number[],
    token: string,
    ttlMs: number,
    epoch: Epoch,
  ): Promise<EpochAcquireResult>;
  openEpoch(key: string): Promise<string>;
  holdMany(
    entries: readonly { keys: readonly string[]; token: string; note: string }[],
    book: RunningBook,
    ttlMs: number,
  ): Promise<HoldResult[]>;
  releaseHeld(keys: readonly string[], book: RunningBook, token: string, ended?: { readonly keepMs: number }): Promise<void>;
  heldIn(index: string): Promise<Map<string, string>>;
}

/**
 * Who is about: `here` marks `token` present on `key` for `ttlMs` (server time) and answers
 * how many tokens are present there now, its own counted (a semaphore of lib/valkey/slots.ts).
 */
export interface Presence {
  here(key: string, token: string, ttlMs: number): Promise<number>;
}

/** What a reclaim gave back, and whether this deployment was the only one on its index. */
export interface Reclaimed {
  readonly released: readonly RunningHolder[];
  readonly sole: boolean;
}

/** A running Job's place: its scope key, and its holder token (the HeldJob's uid). */
export interface RunningHolder {
  readonly scopeKey: string;
  readonly holder: string;
}

/** A place taken for a launch lives this long unless renewed (WAITGATE_SCOPE_LEASE_TTL_MS). */
export const SCOPE_LEASE_TTL_MS = 120_000;
/**
 * A running Job's place lives this long unless kept again (every sweep keeps it): longer than
 * any partition worth riding out, short enough that the places of a deployment removed for
 * good while its Jobs ran do not block their repositories for ever.
 */
export const RUNNING_PLACE_TTL_MS = 86_400_000;
/** Room on an index's presence semaphore: more leaders than any fleet has, all of them counted. */
export const LEADERS_ON_AN_INDEX = 1_000;
/**
 * A hold's end is marked this long (no place of it is taken back meanwhile): as long as a running
 * place lives, so no keeper that read the hold as running before its end outlasts the mark.
 */
export const ENDED_MARK_MS = RUNNING_PLACE_TTL_MS;
/** A leader is the index's only one after this many marks (a lease time of sweeps) alone there. */
export const MARKS_BEFORE_SOLE = 5;

export interface ScopeSlotsOptions {
  /** Default SCOPE_LEASE_TTL_MS. */
  readonly leaseTtlMs?: number;
  /** Default RUNNING_PLACE_TTL_MS. */
  readonly runningTtlMs?: number;
  /** This deployment's worker name and watched namespace: whose index of running places. */
  readonly deployment?: { readonly worker: string; readonly watchNamespace: string };
  /**
   * The leaders present on the index (see reclaim), and this process's token among them;
   * without them, this deployment counts as the index's only one.
   */
  readonly presence?: { readonly leaders: Presence; readonly token: string };
  /** Told of every batch of running places kept; `complete` when it was every running Job. */
  readonly onKept?: (places: readonly KeptPlace[], complete: boolean) => void;
}

export class ValkeyScopeSlots implements ScopeSlots {
  /** The epoch this operator last registered every running Job in; none before the first launch. */
  private registeredIn: string | undefined;
  private registering: Promise<void> | undefined;
  private readonly leaseTtlMs: number;
  private readonly runningTtlMs: number;
  private readonly book: RunningBook;
  private readonly leadersKey: string;
  /** How often this process has marked itself present on its index. */
  private marks = 0;

  /** `running`: the Jobs this operator keeps running now (as the informer's cache has them). */
  constructor(
    private readonly leases: PairLeases,
    private readonly keys: ValkeyKeys,
    private readonly concurrency: number,
    private readonly scopeLimit: number,
    private readonly running: () => readonly RunningHolder[],
    private readonly options: ScopeSlotsOptions = {},
  ) {
    this.leaseTtlMs = options.leaseTtlMs ?? SCOPE_LEASE_TTL_MS;
    this.runningTtlMs = options.runningTtlMs ?? RUNNING_PLACE_TTL_MS;
    const d = options.deployment ?? { worker: 'waitgate', watchNamespace: '' };
    this.book = { index: keys.scopeRunning(d.worker, d.watchNamespace), ended: keys.scopeEnded() };
    this.leadersKey = keys.scopeRunningLeaders(d.worker, d.watchNamespace);
  }

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

  async hold(scopeKey: string, holder: string): Promise<void> {
    await this.keepAll([{ scopeKey, holder }], false);
  }

  /**
   * Gives the place back. `ended`: the hold is over or gone, never to run again; its place is
   * then never taken back, whoever still reads it as running (a cache that lags behind the end).
   */
  release(scopeKey: string, holder: string, ended: boolean): Promise<void> {
    return this.leases.releaseHeld(this.keys.scopeSlots(scopeKey), this.book, holder, ended ? { keepMs: ENDED_MARK_MS } : undefined);
  }

  /**
   * Keeps the place of every running Job (`running`: all of them, as the cache has them); takes
   * back any that was lost, even past the limit, but none whose hold's end was recorded. The
   * kept places, as the sweep reports them (those of ended holds left out).
   */
  keep(running: readonly RunningHolder[]): Promise<KeptPlace[]> {
    return this.keepAll(running, true);
  }

  /**
   * Gives back the noted places whose HeldJob `cached` shows ended, and those it does not have
   * when this process is the only leader present on the index (no other deployment shares
   * it). `cached` must be a synced cache of this deployment's HeldJobs.
   */
  async reclaim(cached: (holder: string) => CachedHold): Promise<Reclaimed> {
    const sole = await this.ownIndex();
    const released = reclaimable(await this.leases.heldIn(this.book.index), cached, sole);
    for (const p of released) await this.release(p.scopeKey, p.holder, true);
    return { released, sole };
  }

  /**
   * Whether this process is the only leader present on its index: it marks itself present for
   * a lease time (each sweep marks it again) and counts who else is, and counts itself alone
   * only once it has been marking for a lease time. A new leader of the same
   * deployment finds its predecessor present until that lapses; two deployments that share the
   * index (one worker name, watched namespace and prefix) find each other for as long as both lead.
   */
  private async ownIndex(): Promise<boolean> {
    const { presence } = this.options;
    if (!presence) return true;
    const present = await presence.leaders.here(this.leadersKey, presence.token, this.leaseTtlMs);
    this.marks++;
    // Sweeps run at least every quarter lease: after MARKS_BEFORE_SOLE marks, a lease time has
    // passed, and any other leader of the index has marked itself present within it.
    return present === 1 && this.marks >= MARKS_BEFORE_SOLE;
  }

  private async keepAll(running: readonly RunningHolder[], complete: boolean): Promise<KeptPlace[]> {
    const results = await this.leases.holdMany(
      running.map((r) => ({ keys: this.keys.scopeSlots(r.scopeKey), token: r.holder, note: r.scopeKey })),
      this.book,
      this.runningTtlMs,
    );
    const places = results.flatMap((r, i): KeptPlace[] => {
      const { scopeKey, holder } = running[i] as RunningHolder;
      return r.ended ? [] : [{ scopeKey, holder, kept: r.kept, holders: { all: r.holders[0], scope: r.holders[1] } }];
    });
    this.options.onKept?.(places, complete);
    return places;
  }

  private acquireInEpoch(scopeKey: string, holder: string): Promise<EpochAcquireResult> {
    const epoch = { key: this.keys.scopeEpoch(), id: this.registeredIn ?? '' };
    return this.leases.acquireInEpoch(this.keys.scopeSlots(scopeKey), [this.concurrency, this.scopeLimit], holder, this.leaseTtlMs, epoch);
  }

  /** Opens the epoch, keeps every running Job's place in it, and remembers it; one at a time. */
  private register(): Promise<void> {
    this.registering ??= (async () => {
      try {
        const epoch = await this.leases.openEpoch(this.keys.scopeEpoch());
        await this.keep(this.running());
        this.registeredIn = epoch;
      } finally {
        this.registering = undefined;
      }
    })();
    return this.registering;
  }
}
