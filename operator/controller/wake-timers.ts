// One wake per HeldJob, at an exact instant. setTimeout cannot wait longer than 2^31-1 ms
// (about 24.8 days) and an `after` may be 30 days out, so long waits are taken in steps and
// the instant is re-checked against the clock on every step.
import type { Clock } from './clock.js';

export const MAX_TIMER_MS = 2 ** 31 - 1;

export class WakeTimers {
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();

  constructor(
    private readonly clock: Clock,
    private readonly onWake: (key: string) => void,
    private readonly maxStepMs: number = MAX_TIMER_MS,
  ) {}

  /** Wakes `key` at `at` (epoch ms), replacing any earlier wake of the key. */
  schedule(key: string, at: number): void {
    const existing = this.timers.get(key);
    if (existing && existing.at === at) return;
    if (existing) clearTimeout(existing.timer);
    this.arm(key, at);
  }

  cancel(key: string): void {
    const existing = this.timers.get(key);
    if (existing) clearTimeout(existing.timer);
    this.timers.delete(key);
  }

  /** The instant a key will wake at, if one is armed. */
  wakeOf(key: string): number | undefined {
    return this.timers.get(key)?.at;
  }

  get size(): number {
    return this.timers.size;
  }

  stop(): void {
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private arm(key: string, at: number): void {
    const delay = Math.max(0, Math.min(at - this.clock.now(), this.maxStepMs));
    const timer = setTimeout(() => {
      if (this.clock.now() < at) return this.arm(key, at);
      this.timers.delete(key);
      this.onWake(key);
    }, delay);
    this.timers.set(key, { at, timer });
  }
}
