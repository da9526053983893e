// The held-job gauges, counted from the informer's cache when scraped: no apiserver calls.
import { Phase, PHASES } from '../../api/vocabulary.js';
import type { HeldJob } from './ports.js';
import { viewOf } from '../decide/view.js';

export interface HeldJobCounts {
  readonly byPhase: ReadonlyMap<Phase, number>;
  /** Held HeldJobs per profile they wait on. */
  readonly heldByProfile: ReadonlyMap<string, number>;
}

export function countHeldJobs(heldJobs: readonly HeldJob[]): HeldJobCounts {
  const byPhase = new Map<Phase, number>(PHASES.map((p) => [p, 0]));
  const heldByProfile = new Map<string, number>();
  for (const hj of heldJobs) {
    const phase = hj.status?.phase ?? Phase.Pending;
    byPhase.set(phase, (byPhase.get(phase) ?? 0) + 1);
    if (phase !== Phase.Held) continue;
    const view = viewOf(hj);
    for (const profile of view.ok ? view.profiles : []) heldByProfile.set(profile, (heldByProfile.get(profile) ?? 0) + 1);
  }
  return { byPhase, heldByProfile };
}
