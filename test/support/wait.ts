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

/**
 * Checks that `probe` stays true until `untilMs` (epoch); fails the moment it is not. A probe
 * that finished after `untilMs` may have seen the world after it, so its answer is not held
 * against the claim.
 */
export async function staysTrue(what: string, probe: () => Promise<boolean>, untilMs: number): Promise<void> {
  while (Date.now() < untilMs) {
    const ok = await probe();
    if (!ok && Date.now() <= untilMs) throw new Error(`expected ${what} to hold until ${new Date(untilMs).toISOString()}`);
    await new Promise((r) => setTimeout(r, Timeouts.pollMs * 2));
  }
}
