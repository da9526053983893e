// The fleet-wide cap on running Jobs (WAITGATE_CONCURRENCY), which is off unless set: the
// scheduler and the namespaces' quotas own the cluster's capacity, and WAITGATE_SCOPE_LIMIT
// bounds each repository. Pure.

/**
 * The overall limit the scope semaphores are given when no cap is set: more holders than can
 * ever exist (and a safe integer, as the slot scripts want), so the overall semaphore still
 * counts what runs but never refuses a launch. Only the per-repository scope limit then binds.
 */
export const NO_JOB_CAP_LIMIT = Number.MAX_SAFE_INTEGER;

/** The limit of the overall semaphore: the cap, or NO_JOB_CAP_LIMIT when there is none. */
export function overallJobLimit(concurrency: number | undefined): number {
  return concurrency ?? NO_JOB_CAP_LIMIT;
}

/** The cap in words, for the logs, `waitgate doctor` and the chart's NOTES' wording. */
export function describeJobCap(concurrency: number | undefined): string {
  return concurrency === undefined
    ? 'no fleet-wide cap on running Jobs (WAITGATE_CONCURRENCY unset or 0)'
    : `at most ${concurrency} Job${concurrency === 1 ? '' : 's'} running at once across the fleet (WAITGATE_CONCURRENCY)`;
}
