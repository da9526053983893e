import { describe, expect, jest, test } from '@jest/globals';
import { Phase } from '../../api/vocabulary.js';
import type { CachedHold } from '../controller/scope-places.js';
import { ValkeyKeys } from '../../lib/valkey/keys.js';
import { FakeSlots, ManualClock, T0 } from '../../test/support/fakes.js';
import { SCOPE_RENEW_EVERY_MS } from '../controller/scope-renewal.js';
import {
  RUNNING_PLACE_TTL_MS,
  SCOPE_LEASE_TTL_MS,
  LEADERS_ON_AN_INDEX,
  MARKS_BEFORE_SOLE,
  ValkeyScopeSlots,
  type RunningHolder,
  type ScopeSlotsOptions,
} from './valkey-scope-slots.js';

const keys = new ValkeyKeys('wg');
const CONCURRENCY = 3;
const SCOPE_LIMIT = 2;
const [ALL, WEB] = keys.scopeSlots('acme/web');
const [, API] = keys.scopeSlots('acme/api');
const EPOCH = keys.scopeEpoch();
const INDEX = keys.scopeRunning('waitgate', '');
const LATER = T0 + 10 * SCOPE_LEASE_TTL_MS;

/** `running`: the Jobs the operator keeps running (its informer's cache); change it at will. */
function scopeSlots(running: RunningHolder[] = [], options: ScopeSlotsOptions = {}) {
  const clock = new ManualClock();
  const leases = new FakeSlots(clock.now);
  return { scope: new ValkeyScopeSlots(leases, keys, CONCURRENCY, SCOPE_LIMIT, () => running, options), leases, clock, running };
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

    await scope.release('acme/web', 'job', true);

    expect(leases.callsOf('releaseHeld')).toEqual([{ op: 'releaseHeld', keys: [ALL, WEB], index: INDEX, token: 'job', ended: true }]);
    expect(leases.holders(ALL)).toEqual(['other']);
    expect(leases.holders(WEB)).toEqual(['other']);
  });

  // The chaos short form of 2026-12-04 (CI): a new leader's first launch registered the running
  // Jobs from its cache, which still had a hold as Running whose end (its Job deleted) this very
  // leader had just given back; its place came back, past the limit, next to the hold that took it.
  test.each<[string, boolean, { kept: string[]; web: string[] }]>([
    ['the hold ended: a keeper that still reads it as running takes nothing back', true, { kept: [], web: ['next'] }],
    ['given back only for now (a launch to try again): kept again when it runs', false, { kept: ['job'], web: ['job', 'next'] }],
  ])('%s', async (_name, ended, expected) => {
    const { scope, leases } = scopeSlots();
    await scope.acquire('acme/web', 'job');
    await scope.hold('acme/web', 'job');
    await scope.release('acme/web', 'job', ended);
    await expect(scope.acquire('acme/web', 'next')).resolves.toBe('acquired');

    const kept = await scope.keep([{ scopeKey: 'acme/web', holder: 'job' }]);

    expect(kept.map((p) => p.holder)).toEqual(expected.kept);
    expect(leases.holders(WEB).sort()).toEqual(expected.web);
    expect([...leases.noted(INDEX).keys()]).toEqual(expected.kept);
  });

  test('Valkey failing: the caller hears of it', async () => {
    const { scope, leases } = scopeSlots();
    const err = new Error('ECONNRESET');
    leases.failing.releaseHeld = err;
    await expect(scope.release('acme/web', 'job', true)).rejects.toBe(err);
  });
});

describe('ValkeyScopeSlots.hold and keep: a running Job keeps its own place, not a lease', () => {
  test('nothing running: no call at all', async () => {
    const { scope, leases } = scopeSlots();
    await expect(scope.keep([])).resolves.toEqual([]);
    expect(leases.callsOf('holdMany')).toEqual([{ op: 'holdMany', entries: [], index: INDEX, ttlMs: RUNNING_PLACE_TTL_MS }]);
  });

  test('hold: the launch recorded, its place outlives any lease, and is noted in the index', async () => {
    const { scope, leases, clock } = scopeSlots();
    await scope.acquire('acme/web', 'job');
    await scope.hold('acme/web', 'job');

    expect(leases.expiryOf(WEB, 'job')).toBe(T0 + RUNNING_PLACE_TTL_MS);
    expect(leases.noted(INDEX)).toEqual(new Map([['job', 'acme/web']]));
    // Many leases later (an operator cut off from Valkey all that time), the place is still taken.
    clock.advance(100 * SCOPE_LEASE_TTL_MS);
    await expect(scope.acquire('acme/web', 'next')).resolves.toBe('acquired');
    await expect(scope.acquire('acme/web', 'third')).resolves.toBe('full');
    expect(leases.holders(WEB).sort()).toEqual(['job', 'next']);
  });

  test('every place live: all kept in one call, none lost', async () => {
    const { scope, leases, clock } = scopeSlots();
    await scope.acquire('acme/web', 'job-1');
    await scope.acquire('acme/api', 'job-2');
    clock.advance(SCOPE_RENEW_EVERY_MS);

    const kept = await scope.keep([
      { scopeKey: 'acme/web', holder: 'job-1' },
      { scopeKey: 'acme/api', holder: 'job-2' },
    ]);

    expect(kept).toEqual([
      { scopeKey: 'acme/web', holder: 'job-1', kept: true, holders: { all: 2, scope: 1 } },
      { scopeKey: 'acme/api', holder: 'job-2', kept: true, holders: { all: 2, scope: 1 } },
    ]);
    // (The first launch registered the running Jobs: none then.)
    expect(leases.callsOf('holdMany').slice(1)).toEqual([
      {
        op: 'holdMany',
        entries: [
          { keys: [ALL, WEB], token: 'job-1', note: 'acme/web' },
          { keys: [ALL, API], token: 'job-2', note: 'acme/api' },
        ],
        index: INDEX,
        ttlMs: RUNNING_PLACE_TTL_MS,
      },
    ]);
  });

  test.each<[string, (leases: FakeSlots) => void, { all: number; scope: number }]>([
    ['a lapsed place is taken back', () => {}, { all: 2, scope: 2 }],
    // The Job runs regardless: its place is taken back past the limit, and the scope is over it.
    [
      'a lapsed place whose room someone else took is taken back over the limit',
      (l) => ['x', 'y'].forEach((t) => l.hold(WEB, t, LATER)),
      { all: 2, scope: 4 },
    ],
  ])('%s, and said to be lost', async (_name, arrange, holders) => {
    const onKept = jest.fn();
    const { scope, leases, clock } = scopeSlots([], { onKept });
    await scope.acquire('acme/web', 'job-1');
    clock.advance(SCOPE_LEASE_TTL_MS); // job-1's lease lapses now: its launch was never recorded
    await scope.acquire('acme/web', 'job-2');
    arrange(leases);

    const kept = await scope.keep([
      { scopeKey: 'acme/web', holder: 'job-1' },
      { scopeKey: 'acme/web', holder: 'job-2' },
    ]);

    expect(kept[0]).toEqual({ scopeKey: 'acme/web', holder: 'job-1', kept: false, holders });
    expect(kept[1]?.kept).toBe(true);
    expect(leases.holders(WEB)).toContain('job-1');
    expect(onKept).toHaveBeenCalledWith(kept, true);
  });

  test('a single hold is reported as not complete: it says nothing of the other running Jobs', async () => {
    const onKept = jest.fn();
    const { scope } = scopeSlots([], { onKept });
    await scope.hold('acme/web', 'job');
    expect(onKept).toHaveBeenCalledWith([{ scopeKey: 'acme/web', holder: 'job', kept: false, holders: { all: 1, scope: 1 } }], false);
  });

  test('Valkey failing: the caller hears of it', async () => {
    const { scope, leases } = scopeSlots();
    const err = new Error('ECONNRESET');
    leases.failing.holdMany = err;
    await expect(scope.keep([{ scopeKey: 'acme/web', holder: 'job-1' }])).rejects.toBe(err);
    await expect(scope.hold('acme/web', 'job-1')).rejects.toBe(err);
  });
});

describe('ValkeyScopeSlots.reclaim: places whose hold ended or is gone go back, by the cache, not by time', () => {
  test('gives back exactly the noted places the cache shows ended or lacks', async () => {
    const { scope, leases } = scopeSlots();
    for (const h of ['running', 'ended', 'deleted', 'launching']) {
      await scope.acquire('acme/web', h);
      await scope.hold('acme/web', h);
    }
    const phases: Record<string, Phase> = { running: Phase.Running, ended: Phase.Succeeded, launching: Phase.Held };

    const { released: gone, sole } = await scope.reclaim((h) => (h in phases ? { found: true, phase: phases[h] } : { found: false }));

    expect(sole).toBe(true);
    expect(gone).toEqual([
      { scopeKey: 'acme/web', holder: 'ended' },
      { scopeKey: 'acme/web', holder: 'deleted' },
    ]);
    expect(leases.holders(WEB).sort()).toEqual(['launching', 'running']);
    expect([...leases.noted(INDEX).keys()].sort()).toEqual(['launching', 'running']);
  });

  test("another deployment's index is not read: its places are not this leader's to judge", async () => {
    const mine = scopeSlots();
    const theirs = new ValkeyScopeSlots(mine.leases, keys, CONCURRENCY, SCOPE_LIMIT, () => [], {
      deployment: { worker: 'other-cluster', watchNamespace: '' },
    });
    await theirs.hold('acme/web', 'their-job');

    await expect(mine.scope.reclaim(() => ({ found: false }))).resolves.toEqual({ released: [], sole: true });
    expect(mine.leases.holders(WEB)).toEqual(['their-job']);
  });

  test('two deployments on one index (one worker name): while both lead, each gives back only what its cache shows ended', async () => {
    const clock = new ManualClock();
    const leases = new FakeSlots(clock.now);
    const leaders = {
      here: async (key: string, token: string, ttlMs: number) => {
        await leases.acquire([key], [LEADERS_ON_AN_INDEX], token, ttlMs);
        return leases.holders(key).length;
      },
    };
    const deployment = { worker: 'waitgate', watchNamespace: '' };
    const east = new ValkeyScopeSlots(leases, keys, CONCURRENCY, 5, () => [], { deployment, presence: { leaders, token: 'east' } });
    const west = new ValkeyScopeSlots(leases, keys, CONCURRENCY, 5, () => [], { deployment, presence: { leaders, token: 'west' } });
    for (const h of ['east-job', 'west-job', 'west-ended']) await east.hold('acme/web', h);
    const eastCache = (h: string): CachedHold => (h === 'east-job' ? { found: true, phase: Phase.Running } : { found: false });
    const westCache = (h: string): CachedHold =>
      h === 'west-job'
        ? { found: true, phase: Phase.Running }
        : h === 'west-ended'
          ? { found: true, phase: Phase.Succeeded }
          : { found: false };

    // East leads alone: for a lease time of sweeps it does not count itself alone (another
    // leader may not have marked itself yet), so it gives back only what its cache shows ended.
    for (let i = 1; i < MARKS_BEFORE_SOLE; i++) {
      await expect(east.reclaim(eastCache)).resolves.toEqual({ released: [], sole: false });
    }
    // Both lead: each finds the other present, and neither gives back the other's places.
    for (let i = 0; i < MARKS_BEFORE_SOLE; i++) {
      await expect(west.reclaim(westCache)).resolves.toMatchObject({ sole: false });
      await expect(east.reclaim(eastCache)).resolves.toEqual({ released: [], sole: false });
    }
    expect(leases.holders(WEB).sort()).toEqual(['east-job', 'west-job']);
    // West stops leading: once its mark lapses, east is alone again.
    clock.advance(SCOPE_LEASE_TTL_MS / 2);
    await expect(east.reclaim(eastCache)).resolves.toMatchObject({ sole: false });
    clock.advance(SCOPE_LEASE_TTL_MS / 2);
    await expect(east.reclaim(eastCache)).resolves.toMatchObject({ sole: true });
  });

  test('release takes the place off the index too', async () => {
    const { scope, leases } = scopeSlots();
    await scope.hold('acme/web', 'job');
    await scope.release('acme/web', 'job', false);
    expect(leases.noted(INDEX)).toEqual(new Map());
    expect(leases.holders(WEB)).toEqual([]);
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
      'holdMany',
      "acquireInEpoch job in 'epoch-1'",
    ]);
    expect(leases.callsOf('holdMany')[0]?.entries).toEqual([{ keys: [ALL, API], token: 'running', note: 'acme/api' }]);
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
    await scope.release('acme/web', 'run-1', true);
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
    expect(after.filter((c) => c.op === 'holdMany')).toHaveLength(1);
    expect(leases.holders(WEB).sort()).toEqual(['run-1', 'run-2']);
  });

  test('a scope with room: after the loss the new Job waits for the running ones, then fits beside them', async () => {
    const { scope, leases, running } = scopeSlots();
    await scope.acquire('acme/web', 'run-1');
    running.push({ scopeKey: 'acme/web', holder: 'run-1' });
    leases.loseEverything();

    await expect(scope.acquire('acme/web', 'new')).resolves.toBe('acquired');

    expect(leases.holders(WEB).sort()).toEqual(['new', 'run-1']);
    const order = leases.calls.map((c) => (c.op === 'acquireInEpoch' ? `${c.op} ${c.token}` : c.op));
    expect(order.slice(-3)).toEqual(['openEpoch', 'holdMany', 'acquireInEpoch new']);
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
    const holdMany = leases.holdMany.bind(leases);
    leases.holdMany = async (entries, index, ttlMs) => {
      const lost = await holdMany(entries, index, ttlMs);
      leases.loseEverything();
      return lost;
    };

    await expect(scope.acquire('acme/web', 'new')).resolves.toBe('unavailable');
    // The new one was not let in; the running Jobs' places went with the second loss, and the
    // next launch registers them again before it asks.
    expect(leases.holders(WEB)).toEqual([]);
    leases.holdMany = holdMany;
    await expect(scope.acquire('acme/web', 'new')).resolves.toBe('full');
    expect(leases.holders(WEB).sort()).toEqual(['run-1', 'run-2']);
  });

  test('the sweep on its timer takes lost places back but opens no epoch: only a launch needs one', async () => {
    const { scope, leases, running } = await fullScope();
    leases.loseEverything();
    const before = leases.calls.length;

    expect((await scope.keep(running)).map((p) => p.kept)).toEqual([false, false]);

    expect(leases.calls.slice(before).map((c) => c.op)).toEqual(['holdMany']);
    expect(leases.holders(WEB).sort()).toEqual(['run-1', 'run-2']);
    // The epoch is still to be opened: the next launch registers (renews) first, then is refused.
    await expect(scope.acquire('acme/web', 'new')).resolves.toBe('full');
  });
});
