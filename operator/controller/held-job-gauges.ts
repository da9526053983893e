// The held-job gauges (HeldJobs by phase, held ones by profile), kept up to date from the
// informer's events, so a scrape reads numbers and never walks the cache: at 10,000 holds,
// scraped every 15 s, a walk per scrape blocked the leader's event loop each time.
//
// Each HeldJob's share of the counts is kept by its key: an add or an update replaces what
// that key counted before (a move between phases moves one count), a delete takes it away,
// and an event seen twice (a relist replays every object) changes nothing. After a (re)list
// the tally is rebuilt from the informer's store once, not on every scrape.
import { Phase, PHASES } from '../../api/vocabulary.js';
import type { HeldJob } from './ports.js';
import { keyOf } from './object-key.js';
import { viewOf } from '../decide/view.js';

export interface HeldJobCounts {
  readonly byPhase: ReadonlyMap<Phase, number>;
  /** Held HeldJobs per profile they wait on. */
  readonly heldByProfile: ReadonlyMap<string, number>;
}

/** What one HeldJob counts for. */
interface Share {
  readonly phase: Phase;
  /** The profiles it waits on, when it is Held. */
  readonly profiles: readonly string[];
}

const KNOWN_PHASES: ReadonlySet<string> = new Set(PHASES);

/**
 * A HeldJob's phase as counted: no phase yet, or one outside the vocabulary (written by hand,
 * or by a newer version), is Pending, as the decisions treat it; the label stays a closed set.
 */
export function countedPhase(hj: HeldJob): Phase {
  // The type says Phase; the informer's object is the apiserver's, unchecked: looked at anyway.
  const phase = hj.status?.phase;
  return phase !== undefined && KNOWN_PHASES.has(phase) ? phase : Phase.Pending;
}

function shareOf(hj: HeldJob): Share {
  const phase = countedPhase(hj);
  if (phase !== Phase.Held) return { phase, profiles: [] };
  const view = viewOf(hj);
  return { phase, profiles: view.ok ? view.profiles : [] };
}

/** The counts of a whole list, walked once (what a rebuild does; the bench's "before"). */
export function countHeldJobs(heldJobs: readonly HeldJob[]): HeldJobCounts {
  const tally = new HeldJobTally({ list: () => heldJobs });
  tally.relisted();
  return tally.counts();
}

/** What the tally rebuilds from after a (re)list: the informer's store. */
export interface HeldJobStore {
  list(): readonly HeldJob[];
}

export class HeldJobTally {
  private readonly shares = new Map<string, Share>();
  private readonly byPhase = new Map<Phase, number>(PHASES.map((p) => [p, 0]));
  private readonly heldByProfile = new Map<string, number>();

  constructor(private readonly store: HeldJobStore) {}

  /** An informer event: an add or an update counts the object as it is now; a delete uncounts it. */
  observe(event: 'add' | 'update' | 'delete', hj: HeldJob): void {
    const key = keyOf(hj.metadata.namespace, hj.metadata.name);
    this.take(key);
    if (event === 'delete') return;
    const share = shareOf(hj);
    this.shares.set(key, share);
    this.move(share, 1);
  }

  /** The informer (re)listed: counted again from its store, once. */
  relisted(): void {
    this.shares.clear();
    for (const p of PHASES) this.byPhase.set(p, 0);
    this.heldByProfile.clear();
    for (const hj of this.store.list()) this.observe('add', hj);
  }

  /** The counts now: a copy, read without walking anything but the phases and profiles. */
  counts(): HeldJobCounts {
    return { byPhase: new Map(this.byPhase), heldByProfile: new Map(this.heldByProfile) };
  }

  private take(key: string): void {
    const before = this.shares.get(key);
    if (!before) return;
    this.shares.delete(key);
    this.move(before, -1);
  }

  private move(share: Share, by: 1 | -1): void {
    this.byPhase.set(share.phase, (this.byPhase.get(share.phase) ?? 0) + by);
    for (const profile of share.profiles) {
      const n = (this.heldByProfile.get(profile) ?? 0) + by;
      // A profile no hold waits on any more is dropped, as a scrape of the cache never listed it.
      if (n > 0) this.heldByProfile.set(profile, n);
      else this.heldByProfile.delete(profile);
    }
  }
}
