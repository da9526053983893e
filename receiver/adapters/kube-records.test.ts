import { describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { UnavailableError } from '../delivery/deliver.js';
import { withRetries } from './kube-records.js';

/** An operation that fails with `code` (undefined: no answer) on every call, counting the calls. */
function failing(code: number | undefined): { op: () => Promise<never>; calls: () => number } {
  let n = 0;
  return {
    op: () => {
      n++;
      return Promise.reject(code === undefined ? new Error('connect ECONNREFUSED') : new k8s.ApiException(code, 'failed', {}, {}));
    },
    calls: () => n,
  };
}

describe('withRetries', () => {
  test.each<[string, number | undefined, 'retried' | 'thrown']>([
    ['no answer', undefined, 'retried'],
    ['a request timeout', 408, 'retried'],
    ['too many requests', 429, 'retried'],
    ['a server error', 503, 'retried'],
    ['forbidden', 403, 'thrown'],
    ['a conflict', 409, 'thrown'],
    ['invalid', 422, 'thrown'],
  ])('%s (%s): %s', async (_what, code, outcome) => {
    const f = failing(code);
    const done = withRetries(f.op, [0, 0]);
    if (outcome === 'retried') {
      // Tried once, then once per delay, then given up as unavailable.
      await expect(done).rejects.toBeInstanceOf(UnavailableError);
      expect(f.calls()).toBe(3);
    } else {
      await expect(done).rejects.toBeInstanceOf(code === undefined ? Error : k8s.ApiException);
      expect(f.calls()).toBe(1);
    }
  });

  test('returns what a later try answers', async () => {
    let n = 0;
    const op = () => (++n < 2 ? Promise.reject(new k8s.ApiException(408, 'timeout', {}, {})) : Promise.resolve('ok'));
    await expect(withRetries(op, [0])).resolves.toBe('ok');
    expect(n).toBe(2);
  });
});
