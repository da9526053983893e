// The supersede window, shared by the receiver (which refuses a second delivery inside it),
// the operator (which never deletes a finished hold before it has passed) and the Valkey
// marker the operator leaves at a launch (which lives exactly as long).
import { isDnsLabel } from './object-name.js';

/** A hold that finished waiting keeps refusing new deliveries for this long after its launch. */
export const SUPERSEDE_WINDOW_MS = 15 * 60_000;

/** When the window of a hold launched at `launchedAtMs` closes (the first instant outside it). */
export function supersedeWindowEnd(launchedAtMs: number): number {
  return launchedAtMs + SUPERSEDE_WINDOW_MS;
}

/** Whether `now` lies inside the window of a hold launched at `launchedAtMs`. */
export function insideSupersedeWindow(launchedAtMs: number, now: number): boolean {
  return now < supersedeWindowEnd(launchedAtMs);
}

/**
 * Whether a launch marker read from Valkey may be believed. The operator writes one as the name
 * of the HeldJob that finished waiting, expiring at the end of its supersede window. Any other
 * shape (a value that is no object name, no expiry, or one further off than a window) was not
 * written by an operator: on a Valkey several clusters share, one could plant it to refuse a
 * trigger and target for ever. Such a marker refuses nothing. `pttlMs` is Valkey's PTTL: -1 for
 * no expiry, -2 for no key.
 */
export function markerHonoured(value: string | null | undefined, pttlMs: number): value is string {
  return typeof value === 'string' && isDnsLabel(value) && pttlMs > 0 && pttlMs <= SUPERSEDE_WINDOW_MS;
}
