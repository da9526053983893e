// Which apiserver answers may go away by themselves, written once: the operator's launch
// (a create that failed is tried again, or ends the hold) and the receiver's retries both ask it.

/**
 * Whether an apiserver call that failed with this HTTP code is worth trying again: no answer at
 * all (undefined), a request timeout (408), too many requests (429) or a server error (5xx).
 * Anything else (400, 403, 404, 409, 422...) says the same thing when asked again.
 */
export function isTransient(code: number | undefined): boolean {
  return code === undefined || code === 408 || code === 429 || code >= 500;
}
