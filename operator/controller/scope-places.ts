// What the places of running Jobs say, once kept: which scopes run over their limit (a place
// was lost and another holder took it before it came back), and which noted places belong to
// holds that are gone or ended and are to be given back. Pure: the sweep and the adapter do the I/O.
import { isTerminal, type Phase } from '../../api/vocabulary.js';

/** The two semaphores a place is in: every running Job, and the Jobs of one scope key. */
export const Semaphore = { All: 'all', Scope: 'scope' } as const;
export type Semaphore = (typeof Semaphore)[keyof typeof Semaphore];

/** One running Job's place after it was kept (holdMany). */
export interface KeptPlace {
  readonly scopeKey: string;
  readonly holder: string;
  /** False: the place had lapsed or been lost, and was taken back. */
  readonly kept: boolean;
  /** Live holders of each semaphore after it was kept. */
  readonly holders: { readonly all: number; readonly scope: number };
}

export interface ScopeLimits {
  readonly all: number;
  readonly scope: number;
}

/** A place taken back into a semaphore that is now over its limit. */
export interface Overcommit {
  readonly scopeKey: string;
  readonly holder: string;
  readonly semaphore: Semaphore;
  readonly holders: number;
  readonly limit: number;
}

/**
 * `lost`: each place that was lost and came back into a semaphore over its limit (the scope's
 * first, then the overall one): reported once, when it comes back. `over`: how many semaphores
 * (each scope key, and the overall one) the kept places found over their limits, lost or not.
 */
export function overcommitsOf(places: readonly KeptPlace[], limits: ScopeLimits): { lost: Overcommit[]; over: number } {
  const lost: Overcommit[] = [];
  const overScopes = new Set<string>();
  let overAll = false;
  for (const p of places) {
    const scopeOver = p.holders.scope > limits.scope;
    const allOver = p.holders.all > limits.all;
    if (scopeOver) overScopes.add(p.scopeKey);
    overAll ||= allOver;
    if (p.kept) continue;
    if (scopeOver)
      lost.push({ scopeKey: p.scopeKey, holder: p.holder, semaphore: Semaphore.Scope, holders: p.holders.scope, limit: limits.scope });
    else if (allOver)
      lost.push({ scopeKey: p.scopeKey, holder: p.holder, semaphore: Semaphore.All, holders: p.holders.all, limit: limits.all });
  }
  return { lost, over: overScopes.size + (overAll ? 1 : 0) };
}

/** What the informer's cache says of a holder (a HeldJob's uid). */
export type CachedHold = { readonly found: false } | { readonly found: true; readonly phase: Phase | undefined };

/**
 * The noted places to give back: those whose HeldJob the cache has ended, and, when `sole`
 * (no other deployment writes this index), those whose HeldJob it no longer has (deleted while
 * its release failed). A hold in any other phase keeps its place: Running, or Pending or Held
 * with a launch under way (its Running status not yet in the cache). Only a synced cache may
 * be asked. A HeldJob the cache lacks is another deployment's as much as a deleted one when
 * two share the index (one worker name, one watched namespace, one Valkey prefix): then only
 * the ended ones go.
 */
export function reclaimable(
  noted: ReadonlyMap<string, string>,
  cached: (holder: string) => CachedHold,
  sole: boolean,
): { scopeKey: string; holder: string }[] {
  const out: { scopeKey: string; holder: string }[] = [];
  for (const [holder, scopeKey] of noted) {
    const c = cached(holder);
    if (c.found ? isTerminal(c.phase) : sole) out.push({ scopeKey, holder });
  }
  return out;
}
