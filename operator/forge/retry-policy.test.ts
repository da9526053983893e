import { describe, expect, test } from '@jest/globals';
import { isRetryable, retryDelayMs, waitAskedMs, type ForgeFailure, type RetryPolicy } from './retry-policy.js';

const NOW = Date.parse('2026-09-01T08:00:00Z');
const policy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 30_000 };
const http = (status: number, headers: Record<string, string> = {}): ForgeFailure => ({ kind: 'http', status, headers });

describe('retryDelayMs', () => {
  test.each<[string, ForgeFailure, number, number | undefined]>([
    ['5xx backs off from the base', http(502), 1, 1000],
    ['5xx doubles', http(500), 3, 4000],
    ['no answer is retried', { kind: 'network', message: 'ECONNREFUSED' }, 2, 2000],
    ['the attempts are bounded', http(503), 4, undefined],
    ['429 honours Retry-After in seconds', http(429, { 'Retry-After': '7' }), 1, 7000],
    ['429 without a hint backs off', http(429), 2, 2000],
    [
      'a spent GitHub rate limit waits for its reset',
      http(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 12) }),
      1,
      12_000,
    ],
    ['a secondary rate limit with Retry-After', http(403, { 'retry-after': '3' }), 1, 3000],
    ['a long wait is capped', http(429, { 'retry-after': '3600' }), 1, 30_000],
    ['a GitLab rate limit reset', http(429, { 'RateLimit-Remaining': '0', 'RateLimit-Reset': String(NOW / 1000 + 5) }), 1, 5000],
    ['a 403 that is a permission ends at once', http(403, { 'x-ratelimit-remaining': '4999' }), 1, undefined],
    ['404 ends at once', http(404), 1, undefined],
    ['401 ends at once', http(401), 1, undefined],
    ['422 ends at once', http(422), 1, undefined],
  ])('%s', (_, failure, attempt, expected) => {
    expect(retryDelayMs(failure, attempt, policy, NOW)).toBe(expected);
  });

  test('an HTTP-date Retry-After', () => {
    expect(waitAskedMs({ 'retry-after': new Date(NOW + 9000).toUTCString() }, NOW)).toBe(9000);
  });

  test('403 alone is not retryable', () => {
    expect(isRetryable(http(403))).toBe(false);
  });
});
