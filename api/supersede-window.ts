// The supersede window, shared by the receiver (which refuses a second delivery inside it),
// the operator (which never deletes a finished hold before it has passed) and the Valkey
// marker the operator leaves at a launch (which lives exactly as long).

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
