/** Shared timeouts for tests that wait on the real cluster. */
export const Timeouts = {
  /** One poll step. */
  pollMs: 100,
  /** A waitgate process starting up, on a machine busy with the rest of the suite. */
  startMs: 45_000,
  /** An object appearing or changing after an action. */
  shortMs: 15_000,
  /** A Job running to its end through controller-manager, scheduler and kwok. */
  jobMs: 45_000,
  /** The garbage collector removing dependents. */
  gcMs: 60_000,
  /**
   * How far ahead an `after` instant is set when a test must see the hold, or act on it (cancel
   * it, kill the operator), before the instant: 3-5 s was missed on two loaded cores.
   */
  leadMs: 10_000,
  /** A whole e2e test. */
  testMs: 120_000,
} as const;
