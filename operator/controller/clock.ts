/** Time, injected: production reads the system clock, tests hand in their own. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
