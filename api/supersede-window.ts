// The supersede window, shared by the receiver (which refuses a second delivery inside it)
// and the operator (which never deletes a finished hold before it has passed).

/** A hold that finished waiting keeps refusing new deliveries for this long after its launch. */
export const SUPERSEDE_WINDOW_MS = 15 * 60_000;
