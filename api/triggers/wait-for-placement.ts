// Where a wait may stand: only as run.waitFor, spelled exactly so, and never beside the
// settings it cannot work with (on.once, run.replicas, a cron schedule).
import { childPath, show } from './json-path.js';
import { TriggerRefusalCode as Code } from './refusal-codes.js';
import type { PathRefusal } from './types.js';

/** Which part of an entry a key was found in. */
export type EntryPart = 'entry' | 'on' | 'run';

/** `waitfor`, `wait_for`, `Wait-For`, `WAITFOR`... : anything that reads as waitFor. */
export function readsAsWaitFor(key: string): boolean {
  return key.replace(/[\s_.-]/g, '').toLowerCase() === 'waitfor';
}

/**
 * Keys of `part` that look like a wait but would not be read as one. Only `run.waitFor`,
 * exactly, is a wait; anything near it is refused so that it cannot be silently ignored.
 */
export function misplacedWaits(obj: Record<string, unknown>, part: EntryPart, partPath: string): PathRefusal[] {
  const out: PathRefusal[] = [];
  for (const key of Object.keys(obj)) {
    if (!readsAsWaitFor(key) || (part === 'run' && key === 'waitFor')) continue;
    if (obj[key] === undefined) continue; // as absent as in JSON, where undefined cannot be written
    const where =
      part === 'run'
        ? `${show(key)} is not read as a wait: the field is spelled waitFor, exactly`
        : `${show(key)} is not read as a wait: waitFor belongs under run, not ${part === 'on' ? 'under on' : 'at the top of the entry'}`;
    out.push({
      path: childPath(partPath, key),
      code: Code.WaitForMisspelled,
      message: `${where}. It is refused rather than ignored, since the job would otherwise start at once as though it had no conditions`,
    });
  }
  return out;
}

/** What the combination rules need to know about an entry. */
export interface WaitCombination {
  /** Whether run.waitFor is present at all (valid or not). */
  readonly hasWaitFor: boolean;
  readonly onType: unknown;
  readonly once: unknown;
  readonly replicas: unknown;
}

/** Settings that cannot go with a wait. `entryPath` is the path of the entry, e.g. `$[3]`. */
export function waitCombinations(entry: WaitCombination, entryPath: string): PathRefusal[] {
  if (!entry.hasWaitFor) return [];
  const out: PathRefusal[] = [];
  const on = childPath(entryPath, 'on');
  const run = childPath(entryPath, 'run');
  if (entry.onType === 'cron') {
    out.push({
      path: childPath(on, 'type'),
      code: Code.OnCron,
      message:
        'a cron trigger cannot wait: a held run of a schedule would still be pending after the schedule had moved on or been removed, and would start late anyway; nor has it an issue or merge request to hand a check as its target. Put the wait on a label trigger, or build the time into the schedule',
    });
  }
  if (entry.once === true) {
    out.push({
      path: childPath(on, 'once'),
      code: Code.WithOnce,
      message:
        'waitFor cannot go with on.once: once is consumed when the job is recorded, so if the wait never cleared the trigger would be gone with nothing run, and only a hand edit of the file could bring it back; drop once or drop the wait',
    });
  }
  if (entry.replicas !== undefined) {
    out.push({
      path: childPath(run, 'replicas'),
      code: Code.WithReplicas,
      message:
        'waitFor cannot go with run.replicas: each replica becomes its own held job, so one condition, which has one answer, would be checked once per replica; remove replicas, or the wait',
    });
  }
  return out;
}
