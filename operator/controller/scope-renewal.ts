// Only the leader sweeps, with its synced cache: a follower's cache vouches for nothing it acts
// on, and a keep from it could bring back a place the leader had just given back at a hold's end.
// The leader keeps the scope places of running Jobs (a lost one is taken back, and reported
// when that puts its scope over the limit), and gives back the places its index still lists
// for holds its synced cache shows ended or gone: a release that failed (Valkey away when the
// hold ended or was deleted) is made good here, not by time. Holds that ended lately give
// their places back once more on each sweep too: a place can come back after its release
// (Valkey restored from a snapshot taken before it, or a re-registration that read the hold as
// still running), and would otherwise block its repository until it lapsed.
import type { Logger } from 'pino';
import { ConditionType, isTerminal, Phase } from '../../api/vocabulary.js';
import { scopeOf } from '../decide/view.js';
import type { HeldJob } from './ports.js';
import type { CachedHold } from './scope-places.js';

/** The place a HeldJob holds, under the scope recorded at its launch (scopeOf): none when that cannot be told. */
function placeOf(hj: HeldJob): { scopeKey: string; holder: string }[] {
  const scopeKey = scopeOf(hj);
  return scopeKey === undefined ? [] : [{ scopeKey, holder: hj.metadata.uid }];
}

/**
 * The scope places the running Jobs hold: one per HeldJob in phase Running, its uid the holder,
 * whatever its spec says now (an edit after the launch must not free its place while it runs).
 */
export function runningHolders(heldJobs: readonly HeldJob[]): { scopeKey: string; holder: string }[] {
  return heldJobs.filter((hj) => hj.status?.phase === Phase.Running && !launchUnconfirmed(hj)).flatMap(placeOf);
}

/**
 * A launch recorded whose Job is not confirmed (Launched Unknown): its place is the launch's
 * business (taken for the create, given back while a failed create waits to be tried again),
 * never one to take back past the limit. The chaos run of 2026-12-04 saw it: a create that
 * failed while kube-apiserver restarted gave its place back, the status still said Running,
 * and the next leader's sweep took the place back over the limit for a Job that did not exist.
 */
function launchUnconfirmed(hj: HeldJob): boolean {
  const launched = hj.status?.conditions?.find((c) => c.type === ConditionType.Launched);
  return launched !== undefined && launched.status !== 'True';
}

/**
 * The places of holds that ended within `windowMs` before `now` (status.finishedAt): released
 * again, idempotently, in case they came back.
 */
export function endedHolders(heldJobs: readonly HeldJob[], now: number, windowMs: number): { scopeKey: string; holder: string }[] {
  return heldJobs
    .filter((hj) => isTerminal(hj.status?.phase) && hj.status?.finishedAt && now - Date.parse(hj.status.finishedAt) <= windowMs)
    .flatMap(placeOf);
}

/** How often the leases of running Jobs are renewed: well inside their time to live. */
export const SCOPE_RENEW_EVERY_MS = 30_000;

/** The renewal period for leases of `leaseTtlMs`: every 30 s, or a quarter of a shorter lease. */
export function scopeRenewEveryMs(leaseTtlMs: number): number {
  return Math.max(1, Math.min(SCOPE_RENEW_EVERY_MS, Math.floor(leaseTtlMs / 4)));
}
/** Ended holds release again for as long as a place of theirs could live: one lease time to live. */
export const RELEASE_AGAIN_WINDOW_MS = 120_000;
const RELEASE_BATCH = 100;
/** Sweeps run at most every quarter lease: eight of them outlast a predecessor's lease twice. */
const SHARED_FOR_SWEEPS = 8;

export interface RenewableScopeSlots {
  keep(running: readonly { scopeKey: string; holder: string }[]): Promise<unknown>;
  release(scopeKey: string, holder: string, ended: boolean): Promise<void>;
  reclaim(cached: (holder: string) => CachedHold): Promise<{ released: readonly unknown[]; sole: boolean }>;
}

/** What the cache says of each holder (a HeldJob's uid). */
export function cachedHolds(heldJobs: readonly HeldJob[]): (holder: string) => CachedHold {
  const byUid = new Map(heldJobs.map((hj) => [hj.metadata.uid, hj]));
  return (holder) => {
    const hj = byUid.get(holder);
    return hj ? { found: true, phase: hj.status?.phase } : { found: false };
  };
}

export class ScopeRenewal {
  private timer: NodeJS.Timeout | undefined;
  /** Since when reclaims have found the index's lease held by another, and whether that was said. */
  private sharedSince: number | undefined;
  private saidShared = false;

  constructor(
    private readonly heldJobs: () => readonly HeldJob[],
    private readonly scope: RenewableScopeSlots,
    private readonly log: Logger,
    private readonly now: () => number,
    private readonly everyMs: number = SCOPE_RENEW_EVERY_MS,
    /** Whether the cache is synced and this replica leads: only then does a sweep do anything. */
    private readonly leads: () => boolean = () => true,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.renewOnce(), this.everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One sweep at a time: one that outlasts its period (Valkey slow to answer) is not joined by the next. */
  private sweeping = false;

  async renewOnce(): Promise<void> {
    if (this.sweeping || !this.leads()) return;
    this.sweeping = true;
    try {
      await this.sweep();
    } finally {
      this.sweeping = false;
    }
  }

  private async sweep(): Promise<void> {
    const all = this.heldJobs();
    await this.scope
      .keep(runningHolders(all))
      .catch((err: unknown) => this.log.warn({ err }, 'Failed to keep the scope places of running Jobs'));
    const ended = endedHolders(all, this.now(), RELEASE_AGAIN_WINDOW_MS);
    try {
      for (let i = 0; i < ended.length; i += RELEASE_BATCH) {
        await Promise.all(ended.slice(i, i + RELEASE_BATCH).map((e) => this.scope.release(e.scopeKey, e.holder, true)));
      }
    } catch (err) {
      this.log.warn({ err }, 'Failed to release the scope places of ended holds again');
    }
    try {
      const { released, sole } = await this.scope.reclaim(cachedHolds(all));
      if (released.length > 0) this.log.info({ places: released.length }, 'Reclaimed the scope places of ended or deleted holds');
      // A new leader finds its predecessor's lease for up to a lease time: said only past that.
      if (sole) this.sharedSince = undefined;
      else this.sharedSince ??= this.now();
      const sharedLong = this.sharedSince !== undefined && this.now() - this.sharedSince >= SHARED_FOR_SWEEPS * this.everyMs;
      if (sharedLong && !this.saidShared) {
        this.log.warn(
          { hint: 'another operator deployment has the same worker name, watched namespace and Valkey prefix' },
          'Found the index of running scope places in use by another operator; reclaiming only the places of ended holds',
        );
      }
      this.saidShared = sharedLong;
    } catch (err) {
      this.log.warn({ err }, 'Failed to reclaim the scope places of ended or deleted holds');
    }
  }
}
