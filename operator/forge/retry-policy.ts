// When to try a forge call again, and when to stop: pure, from what the forge answered. 5xx,
// no answer at all, and rate limits (429, or 403 saying the limit is spent) are tried again
// with backoff, honouring Retry-After and the rate-limit reset; anything else ends at once.
// Nothing is tried forever: at most `maxAttempts` calls, no wait longer than `maxDelayMs`.

export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/** Eight calls over about four minutes: a forge restarting or a short outage is ridden out. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 8, baseDelayMs: 2_000, maxDelayMs: 120_000 };

/** What a failed call came to, as far as retrying goes. Never a response body. */
export type ForgeFailure =
  | { readonly kind: 'http'; readonly status: number; readonly headers: Readonly<Record<string, string | undefined>> }
  /** No answer: refused connection, reset, timeout. */
  | { readonly kind: 'network'; readonly message: string };

/** A call the forge answered with an error status. Adapters throw it; the reporter reads it. */
export class ForgeHttpError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Readonly<Record<string, string | undefined>>,
    what: string,
  ) {
    super(`${what}: HTTP ${status}`);
    this.name = 'ForgeHttpError';
  }
}

const header = (h: Readonly<Record<string, string | undefined>>, name: string): string | undefined => {
  for (const [k, v] of Object.entries(h)) if (k.toLowerCase() === name) return v;
  return undefined;
};

/**
 * How long the forge asks to be left alone: Retry-After (seconds or an HTTP date), else the
 * rate-limit reset (GitHub's x-ratelimit-reset, GitLab's ratelimit-reset: epoch seconds) when
 * the remaining count is 0. Undefined when it does not say.
 */
export function waitAskedMs(headers: Readonly<Record<string, string | undefined>>, now: number): number | undefined {
  const retryAfter = header(headers, 'retry-after')?.trim();
  if (retryAfter) {
    if (/^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000;
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  const remaining = header(headers, 'x-ratelimit-remaining') ?? header(headers, 'ratelimit-remaining');
  const reset = header(headers, 'x-ratelimit-reset') ?? header(headers, 'ratelimit-reset');
  if (remaining?.trim() === '0' && reset && /^\d+$/.test(reset.trim())) return Math.max(0, Number(reset.trim()) * 1000 - now);
  return undefined;
}

/** A 403 that is a rate limit (spent primary limit, or a secondary limit with Retry-After), not a permission. */
function isRateLimited403(headers: Readonly<Record<string, string | undefined>>): boolean {
  const remaining = header(headers, 'x-ratelimit-remaining') ?? header(headers, 'ratelimit-remaining');
  return remaining?.trim() === '0' || header(headers, 'retry-after') !== undefined;
}

/** Whether a failure is worth another call at all. */
export function isRetryable(f: ForgeFailure): boolean {
  if (f.kind === 'network') return true;
  return f.status >= 500 || f.status === 429 || (f.status === 403 && isRateLimited403(f.headers));
}

/**
 * The wait before the next call after the `attempt`-th (1-based) failed with `f`, or undefined
 * to give up: not retryable, or the attempts are spent.
 */
export function retryDelayMs(f: ForgeFailure, attempt: number, policy: RetryPolicy, now: number): number | undefined {
  if (!isRetryable(f) || attempt >= policy.maxAttempts) return undefined;
  const backoff = policy.baseDelayMs * 2 ** (attempt - 1);
  const asked = f.kind === 'http' ? waitAskedMs(f.headers, now) : undefined;
  return Math.min(policy.maxDelayMs, asked ?? backoff);
}

/** A short description for logs and status: the status code or the connection error. */
export function describeFailure(f: ForgeFailure): string {
  return f.kind === 'http' ? `HTTP ${f.status}` : f.message.slice(0, 200);
}
