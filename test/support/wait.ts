import { Timeouts } from './timeouts.js';

/** Polls until `probe` returns a value other than undefined, or fails at the deadline. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number = Timeouts.shortMs,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastErr ? ` (last error: ${lastErr instanceof Error ? String(lastErr) : JSON.stringify(lastErr)})` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, Timeouts.pollMs));
  }
}

/** The clock and the sleep staysTrue runs on; the real ones unless a unit test gives its own. */
export interface WaitClock {
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

const realClock: WaitClock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

/**
 * Checks that `probe` stays true until `untilMs` (epoch); fails the moment it is not.
 *
 * The window counts as watched only once an answer has come back inside it: a first probe that
 * returns after `untilMs` fails the claim, whatever it answered, since on a machine too loaded
 * for it to finish in time the window watched nothing, and saying so beats passing. A later
 * probe that started inside the window and returns just after it still counts (its answer is
 * about an instant at least as late, which is what the properties watched here, "nothing has
 * happened yet", need). Probes are spaced so that the last one ends inside the window when the
 * machine keeps pace: another is started only while what is left of the window is more than
 * twice the time the last one took. A window that is over before the first probe fails too.
 */
export async function staysTrue(
  what: string,
  probe: () => Promise<boolean> | boolean,
  untilMs: number,
  clock: WaitClock = realClock,
): Promise<void> {
  const until = new Date(untilMs).toISOString();
  if (clock.now() >= untilMs) throw new Error(`cannot watch ${what}: the window ended at ${until}, before the first probe`);
  let watched = false;
  for (;;) {
    const started = clock.now();
    const ok = await probe();
    const ended = clock.now();
    if (ended > untilMs && !watched) {
      throw new Error(
        `a probe of ${what} returned ${ended - untilMs} ms after the window ended at ${until} (it took ${ended - started} ms): ` +
          'its answer vouches for nothing inside the window; widen the window or make the probe cheaper',
      );
    }
    if (!ok) throw new Error(`expected ${what} to hold until ${until}; it did not at ${new Date(ended).toISOString()}`);
    if (ended >= untilMs) return;
    watched = true;
    const left = untilMs - ended;
    const took = ended - started;
    if (left <= 2 * took) return;
    await clock.sleep(Math.min(Timeouts.pollMs * 2, left - 2 * took));
  }
}
