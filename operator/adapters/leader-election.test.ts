import { describe, expect, test } from '@jest/globals';
import { leaseStep } from './leader-election.js';

const D = 10_000;
describe('leaseStep', () => {
  test.each([
    ['no Lease yet: create it', undefined, 0, 0, { kind: 'create' }],
    ['mine: renew', { holder: 'me', renewTime: 't', transitions: 3 }, 0, 5_000, { kind: 'renew' }],
    ['another holder, seen changing recently: wait', { holder: 'other', renewTime: 't', transitions: 3 }, 1_000, 5_000, { kind: 'wait' }],
    [
      'another holder, unchanged for a whole lease: take it',
      { holder: 'other', renewTime: 't', transitions: 3 },
      1_000,
      11_000,
      { kind: 'take', transitions: 4 },
    ],
    [
      'released (no holder): take it at once',
      { holder: undefined, renewTime: 't', transitions: 3 },
      1_000,
      1_000,
      { kind: 'take', transitions: 4 },
    ],
  ])('%s', (_n, lease, seenAt, now, expected) => {
    expect(leaseStep('me', lease, seenAt, now, D)).toEqual(expected);
  });
});
