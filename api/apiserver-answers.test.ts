import { describe, expect, test } from '@jest/globals';
import { isTransient } from './apiserver-answers.js';

describe('isTransient', () => {
  test.each<[string, number | undefined, boolean]>([
    ['no answer at all', undefined, true],
    ['bad request', 400, false],
    ['unauthorized', 401, false],
    ['forbidden (RBAC, a quota, an admission webhook)', 403, false],
    ['not found', 404, false],
    ['request timeout', 408, true],
    ['conflict', 409, false],
    ['gone (an expired watch or list continuation)', 410, false],
    ['invalid', 422, false],
    ['too many requests', 429, true],
    ['internal error', 500, true],
    ['bad gateway', 502, true],
    ['service unavailable', 503, true],
    ['gateway timeout', 504, true],
  ])('%s (%s): %s', (_what, code, transient) => {
    expect(isTransient(code)).toBe(transient);
  });
});
