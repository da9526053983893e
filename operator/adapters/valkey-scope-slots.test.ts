import { describe, expect, test } from '@jest/globals';
import { ValkeyKeys } from '../../lib/valkey/keys.js';
import { FakeSlots, ManualClock, T0 } from '../../test/support/fakes.js';
import { SCOPE_RENEW_EVERY_MS } from '../controller/scope-renewal.js';
import { SCOPE_LEASE_TTL_MS, ValkeyScopeSlots, type RunningHolder } from './valkey-scope-slots.js';

const keys = new ValkeyKeys('wg');
const CONCURRENCY = 3;
const SCOPE_LIMIT = 2;
const [ALL, WEB] = keys.scopeSlots('acme/web');
const [, API] = keys.scopeSlots('acme/api');
const EPOCH = keys.scopeEpoch();
const LATER = T0 + 10 * SCOPE_LEASE_TTL_MS;

/** `running`: the Jobs the operator keeps running (its informer's cache); change it at will. */
function scopeSlots(running: RunningHolder[] = []) {
  const clock = new ManualClock();
  const leases = new FakeSlots(clock.now);
  return { scope: new ValkeyScopeSlots(leases, keys, CONCURRENCY, SCOPE_LIMIT, () => running), leases, clock, running };
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
    ['Valkey throws', (l) => (l.failing.acquireInEpoch = new Error('ECONNREFUSED')), 'unavailable'],
  ])('%s', async (_name, arrange, expected) => {
    const { scope, leases } = scopeSlots();
    arrange(leases);

    await expect(scope.acquire('acme/web', 'job')).resolves.toBe(expected);

    // Both keys at once, the fleet's and the scope's, with their own limits, for one lease, in
    // the epoch this operator has registered its running Jobs in (opened by its first launch).
    expect(leases.callsOf('acquireInEpoch').at(-1)).toEqual({
      op: 'acquireInEpoch',
      keys: [ALL, WEB],
      limits: [CONCURRENCY, SCOPE_LIMIT],
      token: 'job',
      ttlMs: SCOPE_LEASE_TTL_MS,
      epoch: { key: EPOCH, id: expected === 'unavailable' ? '' : 'epoch-1' },
    });
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
    expect(leases.callsOf('acquire')).toEqual([]);
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
    const retakes = leases.callsOf('acquire');
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

describe('ValkeyScopeSlots: after Valkey loses its data, the running Jobs come back first', () => {
  /** Two Jobs launched and running in acme/web, whose limit is 2: the scope is full. */
  async function fullScope() {
    const slots = scopeSlots();
    for (const holder of ['run-1', 'run-2']) {
      await expect(slots.scope.acquire('acme/web', holder)).resolves.toBe('acquired');
      slots.running.push({ scopeKey: 'acme/web', holder });
    }
    await expect(slots.scope.acquire('acme/web', 'new')).resolves.toBe('full');
    return slots;
  }

  test('the first launch of a process opens the epoch and registers the running Jobs before it asks', async () => {
    const { scope, leases } = scopeSlots([{ scopeKey: 'acme/api', holder: 'running' }]);
    leases.hold(ALL, 'running', LATER);
    leases.hold(API, 'running', LATER);

    await expect(scope.acquire('acme/web', 'job')).resolves.toBe('acquired');

    expect(leases.calls.map((c) => (c.op === 'acquireInEpoch' ? `${c.op} ${c.token} in '${c.epoch.id}'` : c.op))).toEqual([
      "acquireInEpoch job in ''",
      'openEpoch',
      'renewMany',
      "acquireInEpoch job in 'epoch-1'",
    ]);
    expect(leases.callsOf('renewMany')[0]?.entries).toEqual([{ keys: [ALL, API], token: 'running' }]);
    // Then, in the same epoch, one call a launch.
    await expect(scope.acquire('acme/web', 'job-2')).resolves.toBe('acquired');
    expect(leases.calls.slice(4).map((c) => c.op)).toEqual(['acquireInEpoch']);
  });

  test('a full scope, then every key lost: a new launch finds the running Jobs back first, and stays out', async () => {
    const { scope, leases } = await fullScope();

    leases.loseEverything();

    await expect(scope.acquire('acme/web', 'new')).resolves.toBe('full');
    expect(leases.holders(WEB).sort()).toEqual(['run-1', 'run-2']);
    expect(leases.holders(ALL).sort()).toEqual(['run-1', 'run-2']);
    expect(leases.epochOf(EPOCH)).toBe('epoch-2');
    // A running Job that ends gives its place to the next one, as ever.
    await scope.release('acme/web', 'run-1');
    await expect(scope.acquire('acme/web', 'new')).resolves.toBe('acquired');
    expect(leases.holders(WEB).sort()).toEqual(['new', 'run-2']);
  });

  test('launches racing after the loss: the Jobs are registered once, and the limit holds', async () => {
    const { scope, leases } = await fullScope();
    const before = leases.calls.length;
    leases.loseEverything();

    const results = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((h) => scope.acquire('acme/web', `new-${h}`)));

    expect(results).toEqual(['full', 'full', 'full', 'full', 'full']);
    const after = leases.calls.slice(before);
    expect(after.filter((c) => c.op === 'openEpoch')).toHaveLength(1);
    expect(after.filter((c) => c.op === 'renewMany')).toHaveLength(1);
    expect(leases.holders(WEB).sort()).toEqual(['run-1', 'run-2']);
  });

  test('a scope with room: after the loss the new Job waits for the running ones, then fits beside them', async () => {
    const { scope, leases, running } = scopeSlots();
    await scope.acquire('acme/web', 'run-1');
    running.push({ scopeKey: 'acme/web', holder: 'run-1' });
    leases.loseEverything();

    await expect(scope.acquire('acme/web', 'new')).resolves.toBe('acquired');

    expect(leases.holders(WEB).sort()).toEqual(['new', 'run-1']);
    const order = leases.calls.map((c) => (c.op === 'acquire' || c.op === 'acquireInEpoch' ? `${c.op} ${c.token}` : c.op));
    expect(order.slice(-4)).toEqual(['openEpoch', 'renewMany', 'acquire run-1', 'acquireInEpoch new']);
  });

  test('registering fails (Valkey down): unavailable, nothing taken, and the next launch registers again', async () => {
    const { scope, leases } = await fullScope();
    leases.loseEverything();
    leases.failing.openEpoch = new Error('ECONNREFUSED');

    await expect(scope.acquire('acme/web', 'new')).resolves.toBe('unavailable');
    expect(leases.holders(WEB)).toEqual([]);

    delete leases.failing.openEpoch;
    await expect(scope.acquire('acme/web', 'new')).resolves.toBe('full');
    expect(leases.holders(WEB).sort()).toEqual(['run-1', 'run-2']);
  });

  test('lost again while registering: unavailable, and the new Job has no place', async () => {
    const { scope, leases } = await fullScope();
    leases.loseEverything();
    const renewMany = leases.renewMany.bind(leases);
    leases.renewMany = async (entries, ttlMs) => {
      const lost = await renewMany(entries, ttlMs);
      leases.loseEverything();
      return lost;
    };

    await expect(scope.acquire('acme/web', 'new')).resolves.toBe('unavailable');
    // The running Jobs were re-taken after the second loss; the new one was not let in.
    expect(leases.holders(WEB).sort()).toEqual(['run-1', 'run-2']);
  });

  test('the renewal on its timer re-takes lost places but opens no epoch: only a launch needs one', async () => {
    const { scope, leases, running } = await fullScope();
    leases.loseEverything();
    const before = leases.calls.length;

    await expect(scope.renew(running)).resolves.toBe(2);

    expect(leases.calls.slice(before).map((c) => c.op)).toEqual(['renewMany', 'acquire', 'acquire']);
    expect(leases.holders(WEB).sort()).toEqual(['run-1', 'run-2']);
    // The epoch is still to be opened: the next launch registers (renews) first, then is refused.
    await expect(scope.acquire('acme/web', 'new')).resolves.toBe('full');
  });
});
