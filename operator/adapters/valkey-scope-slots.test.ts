import { describe, expect, test } from '@jest/globals';
import { ValkeyKeys } from '../../lib/valkey/keys.js';
import { FakeSlots, ManualClock, T0 } from '../../test/support/fakes.js';
import { SCOPE_RENEW_EVERY_MS } from '../controller/scope-renewal.js';
import { SCOPE_LEASE_TTL_MS, ValkeyScopeSlots } from './valkey-scope-slots.js';

const keys = new ValkeyKeys('wg');
const CONCURRENCY = 3;
const SCOPE_LIMIT = 2;
const [ALL, WEB] = keys.scopeSlots('acme/web');
const [, API] = keys.scopeSlots('acme/api');
const LATER = T0 + 10 * SCOPE_LEASE_TTL_MS;

function scopeSlots() {
  const clock = new ManualClock();
  const leases = new FakeSlots(clock.now);
  return { scope: new ValkeyScopeSlots(leases, keys, CONCURRENCY, SCOPE_LIMIT), leases, clock };
}

test('renewals run well inside a lease', () => {
  expect(SCOPE_RENEW_EVERY_MS * 3).toBeLessThanOrEqual(SCOPE_LEASE_TTL_MS);
});

describe('ValkeyScopeSlots.acquire', () => {
  test.each<[string, (leases: FakeSlots) => void, 'acquired' | 'full' | 'unavailable']>([
    ['room everywhere', () => {}, 'acquired'],
    ['its scope has one place left', (l) => l.hold(WEB, 'web-1', LATER), 'acquired'],
    ['its scope is full', (l) => ['web-1', 'web-2'].forEach((t) => l.hold(WEB, t, LATER)), 'full'],
    ['another scope is full: not this one', (l) => ['api-1', 'api-2'].forEach((t) => l.hold(API, t, LATER)), 'acquired'],
    ['the fleet is full', (l) => ['a', 'b', 'c'].forEach((t) => l.hold(ALL, t, LATER)), 'full'],
    ['its scope is full of lapsed leases', (l) => ['web-1', 'web-2'].forEach((t) => l.hold(WEB, t, T0)), 'acquired'],
    [
      'the holder already holds its place (a restart): renewed, even when full',
      (l) => ['job', 'web-2'].forEach((t) => [ALL, WEB].forEach((k) => l.hold(k, t, T0 + 1))),
      'acquired',
    ],
    ['Valkey throws', (l) => (l.failing.acquire = new Error('ECONNREFUSED')), 'unavailable'],
  ])('%s', async (_name, arrange, expected) => {
    const { scope, leases } = scopeSlots();
    arrange(leases);

    await expect(scope.acquire('acme/web', 'job')).resolves.toBe(expected);

    // Both keys at once, the fleet's and the scope's, with their own limits, for one lease.
    expect(leases.callsOf('acquire')).toEqual([
      { op: 'acquire', keys: [ALL, WEB], limits: [CONCURRENCY, SCOPE_LIMIT], token: 'job', ttlMs: SCOPE_LEASE_TTL_MS },
    ]);
    const held = [leases.expiryOf(ALL, 'job'), leases.expiryOf(WEB, 'job')];
    expect(held).toEqual(expected === 'acquired' ? [T0 + SCOPE_LEASE_TTL_MS, T0 + SCOPE_LEASE_TTL_MS] : [undefined, undefined]);
  });
});

describe('ValkeyScopeSlots.release', () => {
  test('gives the place back in both keys, and leaves the others', async () => {
    const { scope, leases } = scopeSlots();
    await scope.acquire('acme/web', 'job');
    await scope.acquire('acme/web', 'other');

    await scope.release('acme/web', 'job');

    expect(leases.callsOf('release')).toEqual([{ op: 'release', keys: [ALL, WEB], token: 'job' }]);
    expect(leases.holders(ALL)).toEqual(['other']);
    expect(leases.holders(WEB)).toEqual(['other']);
  });

  test('Valkey failing: the caller hears of it', async () => {
    const { scope, leases } = scopeSlots();
    const err = new Error('ECONNRESET');
    leases.failing.release = err;
    await expect(scope.release('acme/web', 'job')).rejects.toBe(err);
  });
});

describe('ValkeyScopeSlots.renew', () => {
  test('nothing running: no call at all', async () => {
    const { scope, leases } = scopeSlots();
    await expect(scope.renew([])).resolves.toBe(0);
    expect(leases.calls).toEqual([]);
  });

  test('every lease live: all extended in one call, none lost', async () => {
    const { scope, leases, clock } = scopeSlots();
    await scope.acquire('acme/web', 'job-1');
    await scope.acquire('acme/api', 'job-2');
    clock.advance(SCOPE_RENEW_EVERY_MS);

    await expect(
      scope.renew([
        { scopeKey: 'acme/web', holder: 'job-1' },
        { scopeKey: 'acme/api', holder: 'job-2' },
      ]),
    ).resolves.toBe(0);

    const now = T0 + SCOPE_RENEW_EVERY_MS;
    expect(leases.callsOf('renewMany')).toEqual([
      {
        op: 'renewMany',
        entries: [
          { keys: [ALL, WEB], token: 'job-1' },
          { keys: [ALL, API], token: 'job-2' },
        ],
        ttlMs: SCOPE_LEASE_TTL_MS,
      },
    ]);
    expect([leases.expiryOf(ALL, 'job-1'), leases.expiryOf(WEB, 'job-1'), leases.expiryOf(API, 'job-2')]).toEqual([
      now + SCOPE_LEASE_TTL_MS,
      now + SCOPE_LEASE_TTL_MS,
      now + SCOPE_LEASE_TTL_MS,
    ]);
    expect(leases.callsOf('acquire')).toHaveLength(2);
  });

  test.each<[string, (leases: FakeSlots) => void, string[]]>([
    ['a lapsed lease is taken again', () => {}, ['job-1', 'job-2']],
    // The Job runs regardless: a place it cannot get back is not an error.
    [
      'a lapsed lease whose place someone else took stays lost',
      (l) => ['x', 'y'].forEach((t) => l.hold(WEB, t, LATER)),
      ['job-2', 'x', 'y'],
    ],
    ['a lapsed lease with Valkey refusing the re-take stays lost', (l) => (l.failing.acquire = new Error('ECONNREFUSED')), ['job-2']],
  ])('%s; the count of lapsed leases is returned', async (_name, arrange, webHoldersAfter) => {
    const { scope, leases, clock } = scopeSlots();
    await scope.acquire('acme/web', 'job-1');
    clock.advance(SCOPE_LEASE_TTL_MS); // job-1's lease lapses now
    await scope.acquire('acme/web', 'job-2');
    arrange(leases);

    await expect(
      scope.renew([
        { scopeKey: 'acme/web', holder: 'job-1' },
        { scopeKey: 'acme/web', holder: 'job-2' },
      ]),
    ).resolves.toBe(1);

    expect(leases.holders(WEB).sort()).toEqual(webHoldersAfter);
    const retakes = leases.callsOf('acquire').slice(2);
    expect(retakes).toEqual([
      {
        op: 'acquire',
        keys: [ALL, WEB],
        limits: [CONCURRENCY, SCOPE_LIMIT],
        token: 'job-1',
        ttlMs: SCOPE_LEASE_TTL_MS,
      },
    ]);
  });

  test('Valkey failing: the caller hears of it, and nothing is re-taken', async () => {
    const { scope, leases } = scopeSlots();
    const err = new Error('ECONNRESET');
    leases.failing.renewMany = err;
    await expect(scope.renew([{ scopeKey: 'acme/web', holder: 'job-1' }])).rejects.toBe(err);
    expect(leases.callsOf('acquire')).toEqual([]);
  });
});
