// A trigger without conditions, bounded as GitHub's concurrency groups are (#30, finding 4):
// for one trigger and target, at most one Job running and one hold pending. Deliveries past
// that are counted on the trigger and target's wait-superseded record instead of each making a
// HeldJob (and, minutes later, a Job carrying the whole spec for days). Once the running Job
// ends, the next delivery holds again. Pure: the live HeldJobs come in, read by name.
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { Annotations, isTerminal } from '../../api/vocabulary.js';
import type { LabelEvent } from '../forges/event.js';
import { generationOf, isOwnRecord, recordedOutcome, type HoldDecision, type Remembered } from './plan.js';

/** How many holds of one trigger and target may be live at once: one running, one pending. */
export const MAX_LIVE_HOLDS = 2;

/** Whether a live hold's Job has been created (or its creation recorded): it runs, it no longer waits. */
function launched(hj: HeldJobObject): boolean {
  return hj.status?.jobName !== undefined || hj.status?.launchedAt !== undefined;
}

/**
 * Whether a delivery of a trigger without conditions may hold, from the live HeldJobs of that
 * trigger and target:
 * 1. its own HeldJob, from an earlier handling of the same delivery, is its answer;
 * 2. a hold not yet launched is the pending one: this delivery is counted on the record;
 * 3. so is any delivery while MAX_LIVE_HOLDS holds are live (one running, one pending);
 * 4. otherwise the next generation.
 */
export function decideBounded(event: LabelEvent, trigger: string, live: readonly HeldJobObject[], remembered: Remembered): HoldDecision {
  const own = live.find((r) => isOwnRecord(r, event));
  if (own) return { kind: 'recorded', recorded: recordedOutcome(own) };
  const holds = live.filter((r) => r.metadata.annotations?.[Annotations.refusal] === undefined && !isTerminal(r.status?.phase));
  const pending = holds.find((h) => !launched(h));
  if (pending) {
    return {
      kind: 'superseded',
      by: pending.metadata.name,
      message: `HeldJob ${pending.metadata.name} is already pending for ${trigger} on this target`,
    };
  }
  if (holds.length >= MAX_LIVE_HOLDS) {
    const names = holds.map((h) => h.metadata.name).join(', ');
    return {
      kind: 'superseded',
      by: holds[0]?.metadata.name ?? '',
      message: `HeldJobs ${names} already run and wait for ${trigger} on this target`,
    };
  }
  return { kind: 'hold', generation: Math.max(remembered.generation ?? 0, ...live.map(generationOf)) + 1 };
}
