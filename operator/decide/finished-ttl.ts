// How long a finished HeldJob is kept: WAITGATE_FINISHED_TTL_MS from status.finishedAt, then
// it is deleted (its Job goes with it through the owner reference). Pure.
//
// The receiver tells a second delivery apart from a new one by the live HeldJobs (a hold that
// launched less than 15 minutes ago supersedes it; the Valkey marker that says the same may be
// lost). So a hold that waited and launched is never deleted before that window has passed,
// whatever the time to live: deleting it sooner would let a relabel inside the window run again.
import { findCondition } from '../../api/conditions.js';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { supersedeWindowEnd } from '../../api/supersede-window.js';
import { epochOf, iso } from '../../api/time.js';
import { supersedingHoldOf } from '../../api/superseded-hold.js';
import { ConditionType, Phase } from '../../api/vocabulary.js';
import type { Action } from './actions.js';
import type { Observed } from './observed.js';

/** When the hold ended: status.finishedAt, else when its Finished condition turned True. */
export function finishedAtOf(status: HeldJobStatus): number | undefined {
  const at = epochOf(status.finishedAt);
  if (at !== undefined) return at;
  const finished = findCondition(status.conditions, ConditionType.Finished);
  return finished?.status === 'True' ? epochOf(finished.lastTransitionTime) : undefined;
}

export type Retention =
  /** The time to live is 0: finished HeldJobs are kept. */
  | { readonly kind: 'keep' }
  /** Nothing says when it ended: the end is stamped now, and the time to live runs from there. */
  | { readonly kind: 'unknownEnd' }
  | { readonly kind: 'deleteAt'; readonly at: number };

/**
 * When a finished HeldJob is to be deleted. `superseded`: a pending hold a newer delivery
 * replaced (api/superseded-hold.ts), deleted as soon as it has ended, even when others are kept. `waited`: it had conditions (only such holds
 * supersede later deliveries; a spec that cannot be read counts as having them).
 */
export function retentionOf(status: HeldJobStatus, waited: boolean, ttlMs: number, superseded = false): Retention {
  // A pending hold the newest delivery replaced is counted on its wait-superseded record and
  // goes at once, whatever the time to live: twenty quick relabels leave that one record, not
  // nineteen copies of the Job. It never ran, so there is nothing of it to keep.
  if (superseded) return { kind: 'deleteAt', at: finishedAtOf(status) ?? 0 };
  if (ttlMs <= 0) return { kind: 'keep' };
  const finishedAt = finishedAtOf(status);
  if (finishedAt === undefined) return { kind: 'unknownEnd' };
  const byTtl = finishedAt + ttlMs;
  if (!waited || status.launchedAt === undefined) return { kind: 'deleteAt', at: byTtl };
  const windowFrom = epochOf(status.launchedAt) ?? finishedAt;
  return { kind: 'deleteAt', at: Math.max(byTtl, supersedeWindowEnd(windowFrom)) };
}

/** A terminal HeldJob: deleted once its time is up, otherwise woken then (never polled). */
export function decideRetention(o: Observed, now: number): Action[] {
  const status = o.heldJob.status ?? {};
  const waited = o.view.ok ? o.view.conditions.length > 0 : true;
  const superseded =
    status.phase === Phase.Refused && status.launchedAt === undefined && supersedingHoldOf(o.heldJob) !== undefined && o.job === undefined;
  const r = retentionOf(status, waited, o.config.finishedTtlMs, superseded);
  switch (r.kind) {
    case 'keep':
      return [];
    case 'unknownEnd':
      return [{ type: 'updateStatus', status: { ...status, finishedAt: iso(now) } }];
    case 'deleteAt':
      return now >= r.at ? [{ type: 'deleteHeldJob', finishedTtlMs: o.config.finishedTtlMs }] : [{ type: 'wakeAt', at: r.at }];
  }
}
