// The JobSpec a trigger's HeldJob carries: run.job as written, with run.replicas made into
// the Job's own counts. One home, so the receiver and the command line say the same.
import type { TriggerRun } from './types.js';

/** The JobSpec fields run.replicas sets; a trigger that sets them itself as well is refused at load. */
export const REPLICA_FIELDS = ['completions', 'parallelism', 'completionMode'] as const;

/** run.job, and with run.replicas N: N Pods at once, each with its own completion index. */
export function jobSpecOf(run: Pick<TriggerRun, 'job' | 'replicas'>): TriggerRun['job'] {
  if (run.replicas === undefined) return run.job;
  return { ...run.job, completions: run.replicas, parallelism: run.replicas, completionMode: 'Indexed' };
}
