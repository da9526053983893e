import { afterEach, describe, expect, jest, test } from '@jest/globals';
import type * as k8s from '@kubernetes/client-node';
import { captureLog } from '../../test/support/fakes.js';
import {
  checkTiming,
  DEFAULT_LEADER_TIMING,
  LEASE_DURATION_MS,
  LeaderElector,
  leaseStep,
  RENEW_DEADLINE_MS,
  RETRY_PERIOD_MS,
  type LeaseApi,
} from './leader-election.js';

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

describe('leader timing', () => {
  test("client-go's defaults: 15 s lease, 10 s renew deadline, 2 s retry", () => {
    expect(DEFAULT_LEADER_TIMING).toEqual({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
    expect(() => checkTiming(DEFAULT_LEADER_TIMING)).not.toThrow();
  });

  test.each([
    ['a renew deadline as long as the lease', { leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }],
    ['a renew deadline longer than the lease', { leaseDurationMs: 3_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }],
    ['a retry period as long as the renew deadline', { leaseDurationMs: 15_000, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 }],
    ['no retry period', { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 0 }],
  ])('refuses %s', (_n, timing) => {
    expect(() => checkTiming(timing)).toThrow(/retry period < renew deadline < lease duration/);
  });
});

/** The apiserver's copy of the Lease, shared by the replicas' clients. */
class LeaseStore {
  lease: k8s.V1Lease | undefined;
  private version = 0;

  write(lease: k8s.V1Lease): void {
    this.lease = { ...lease, metadata: { ...lease.metadata, resourceVersion: String(++this.version) } };
  }

  get holder(): string | undefined {
    return this.lease?.spec?.holderIdentity ?? undefined;
  }
}

const conflict = () => Object.assign(new Error('Conflict'), { code: 409 });

/**
 * One replica's view of the apiserver: answers, fails, hangs without end (ignoring the call's
 * signal: a network that never answers), or hangs until the call's signal aborts it.
 */
class FakeLeaseApi implements LeaseApi {
  mode: 'answer' | 'fail' | 'hang' | 'hangUntilAborted' = 'answer';
  calls = 0;
  writes = 0;
  pending = 0;
  readonly abortedAt: number[] = [];

  constructor(private readonly store: LeaseStore) {}

  read(signal: AbortSignal): Promise<k8s.V1Lease | undefined> {
    return this.answer(signal, () => (this.store.lease ? structuredClone(this.store.lease) : undefined));
  }

  create(spec: k8s.V1LeaseSpec, signal: AbortSignal): Promise<void> {
    return this.answer(signal, () => {
      if (this.store.lease) throw conflict();
      this.writes++;
      this.store.write({ metadata: { name: 'waitgate' }, spec });
    });
  }

  replace(lease: k8s.V1Lease, signal: AbortSignal): Promise<void> {
    return this.answer(signal, () => {
      if (lease.metadata?.resourceVersion !== this.store.lease?.metadata?.resourceVersion) throw conflict();
      this.writes++;
      this.store.write(lease);
    });
  }

  private answer<T>(signal: AbortSignal, f: () => T): Promise<T> {
    this.calls++;
    switch (this.mode) {
      case 'answer':
        return Promise.resolve().then(f);
      case 'fail':
        return Promise.reject(Object.assign(new Error('Internal Server Error'), { code: 500 }));
      case 'hang':
        this.pending++;
        return new Promise<T>(() => undefined);
      case 'hangUntilAborted':
        this.pending++;
        return new Promise<T>((_resolve, reject) =>
          signal.addEventListener('abort', () => {
            this.abortedAt.push(Date.now());
            reject(new Error('aborted'));
          }),
        );
    }
  }
}

/** A replica: its elector, its client, and when it began leading and lost (fake-clock ms). */
function replica(store: LeaseStore, identity: string) {
  const api = new FakeLeaseApi(store);
  const { log, lines } = captureLog();
  const r = {
    api,
    lines,
    ledAt: undefined as number | undefined,
    lostAt: undefined as number | undefined,
    elector: new LeaderElector({ ...DEFAULT_LEADER_TIMING, leases: api, lease: 'ns/waitgate', identity, log, now: () => Date.now() }),
    start(): void {
      void r.elector.run(() => (r.lostAt = Date.now())).then(() => (r.ledAt = Date.now()));
    },
  };
  return r;
}

/** Moves the fake clock on, letting the promises due on the way settle. */
const advance = (ms: number) => jest.advanceTimersByTimeAsync(ms);

afterEach(() => {
  jest.useRealTimers();
});

describe('LeaderElector', () => {
  test('no Lease yet: creates it and leads at once', async () => {
    jest.useFakeTimers({ now: 0 });
    const store = new LeaseStore();
    const a = replica(store, 'a');
    a.start();
    await advance(0);
    expect(a.ledAt).toBe(0);
    expect(a.elector.isLeader).toBe(true);
    expect(store.holder).toBe('a');
    expect(store.lease?.spec?.leaseDurationSeconds).toBe(15);
    expect(a.lines.map((l) => l.msg)).toContain('Became leader');
  });

  test('every renewal that lands pushes the deadline on: a minute of them and still leading', async () => {
    jest.useFakeTimers({ now: 0 });
    const a = replica(new LeaseStore(), 'a');
    a.start();
    await advance(60_000);
    expect(a.lostAt).toBeUndefined();
    expect(a.elector.isLeader).toBe(true);
    // The create, then one renewal each retry period.
    expect(a.api.writes).toBe(1 + 60_000 / RETRY_PERIOD_MS);
  });

  test('renewals that never return: it steps down at the renew deadline, by its own timer', async () => {
    jest.useFakeTimers({ now: 0 });
    const a = replica(new LeaseStore(), 'a');
    a.start();
    await advance(0);
    a.api.mode = 'hang';
    await advance(RENEW_DEADLINE_MS - 1);
    expect(a.lostAt).toBeUndefined();
    expect(a.api.pending).toBe(1);
    await advance(1);
    expect(a.lostAt).toBe(RENEW_DEADLINE_MS);
    // The renewal it sent is still unanswered: the step-down did not wait for it.
    expect(a.api.pending).toBe(1);
    expect(a.elector.isLeader).toBe(false);
    const lost = a.lines.find((l) => l.msg === 'Lost leadership');
    expect(lost).toMatchObject({
      reason: 'renew deadline passed',
      renewDeadlineMs: RENEW_DEADLINE_MS,
      lastRenewal: new Date(0).toISOString(),
    });
    expect(RENEW_DEADLINE_MS).toBeLessThan(LEASE_DURATION_MS);
  });

  test('the deadline counts from the last renewal that landed, sent at 4 s: lost at 14 s', async () => {
    jest.useFakeTimers({ now: 0 });
    const a = replica(new LeaseStore(), 'a');
    a.start();
    await advance(RETRY_PERIOD_MS * 2);
    a.api.mode = 'hang';
    await advance(RENEW_DEADLINE_MS - 1);
    expect(a.lostAt).toBeUndefined();
    await advance(1);
    expect(a.lostAt).toBe(RETRY_PERIOD_MS * 2 + RENEW_DEADLINE_MS);
  });

  test('renewals that fail are tried again each retry period, then it steps down at the deadline', async () => {
    jest.useFakeTimers({ now: 0 });
    const a = replica(new LeaseStore(), 'a');
    a.start();
    await advance(0);
    const before = a.api.calls;
    a.api.mode = 'fail';
    await advance(RENEW_DEADLINE_MS);
    expect(a.lostAt).toBe(RENEW_DEADLINE_MS);
    // At 2, 4, 6 and 8 s.
    expect(a.api.calls - before).toBe(RENEW_DEADLINE_MS / RETRY_PERIOD_MS - 1);
    expect(a.lines.filter((l) => l.msg === 'Failed to renew the Lease')).toHaveLength(4);
  });

  test('failed renewals, then one that lands before the deadline: the deadline moves on, no step-down', async () => {
    jest.useFakeTimers({ now: 0 });
    const a = replica(new LeaseStore(), 'a');
    a.start();
    await advance(0);
    a.api.mode = 'fail';
    // The renewals at 2, 4 and 6 s fail; the one at 8 s lands.
    await advance(RENEW_DEADLINE_MS - RETRY_PERIOD_MS - 1);
    a.api.mode = 'answer';
    await advance(RETRY_PERIOD_MS * 3);
    expect(a.lostAt).toBeUndefined();
    expect(a.elector.isLeader).toBe(true);
  });

  test('each renewal call is abandoned at the renew deadline (its signal aborts then)', async () => {
    jest.useFakeTimers({ now: 0 });
    const a = replica(new LeaseStore(), 'a');
    a.start();
    await advance(0);
    a.api.mode = 'hangUntilAborted';
    await advance(RENEW_DEADLINE_MS);
    expect(a.api.abortedAt).toEqual([RENEW_DEADLINE_MS]);
    expect(a.lostAt).toBe(RENEW_DEADLINE_MS);
  });

  test('a renewal that finds another holder steps down at once', async () => {
    jest.useFakeTimers({ now: 0 });
    const store = new LeaseStore();
    const a = replica(store, 'a');
    a.start();
    await advance(0);
    store.write({ ...store.lease, spec: { ...store.lease?.spec, holderIdentity: 'b' } });
    await advance(RETRY_PERIOD_MS);
    expect(a.lostAt).toBe(RETRY_PERIOD_MS);
    expect(a.lines.find((l) => l.msg === 'Lost leadership')).toMatchObject({ reason: 'another replica holds the Lease' });
  });

  test('a follower takes the Lease only after seeing it unchanged for a whole lease duration', async () => {
    jest.useFakeTimers({ now: 0 });
    const store = new LeaseStore();
    store.write({ metadata: { name: 'waitgate' }, spec: { holderIdentity: 'gone', renewTime: new Date(0), leaseTransitions: 2 } });
    const b = replica(store, 'b');
    b.start();
    await advance(LEASE_DURATION_MS - 1);
    expect(b.ledAt).toBeUndefined();
    expect(store.holder).toBe('gone');
    // First seen at 0; looked at every 2 s; 16 s is the first look a whole lease later.
    await advance(RETRY_PERIOD_MS);
    expect(b.ledAt).toBe(16_000);
    expect(store.lease?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 3 });
  });

  test('a leader whose apiserver stalls steps down before a follower takes over', async () => {
    jest.useFakeTimers({ now: 0 });
    const store = new LeaseStore();
    const a = replica(store, 'a');
    const b = replica(store, 'b');
    a.start();
    await advance(100);
    b.start();
    await advance(5_000);
    expect([a.elector.isLeader, b.elector.isLeader]).toEqual([true, false]);
    const stalledAt = Date.now();
    a.api.mode = 'hang';
    await advance(30_000);
    expect(a.lostAt).toBeDefined();
    expect(b.ledAt).toBeDefined();
    expect(a.lostAt as number).toBeLessThan(b.ledAt as number);
    // It stopped within a renew deadline of its last renewal (at most one retry period before the stall).
    expect(a.lostAt as number).toBeLessThanOrEqual(stalledAt + RENEW_DEADLINE_MS);
    expect(store.holder).toBe('b');
  });

  test('release gives the Lease up (no holder), stops renewing and disarms the step-down', async () => {
    jest.useFakeTimers({ now: 0 });
    const store = new LeaseStore();
    const a = replica(store, 'a');
    a.start();
    await advance(RETRY_PERIOD_MS);
    const released = a.elector.release();
    await advance(0);
    expect(await released).toBe(true);
    expect(store.holder).toBeUndefined();
    expect(store.lease?.spec?.leaseDurationSeconds).toBe(1);
    const writes = a.api.writes;
    await advance(LEASE_DURATION_MS * 2);
    expect(a.api.writes).toBe(writes);
    expect(a.lostAt).toBeUndefined();
    expect(a.elector.isLeader).toBe(false);
    // A follower takes a released Lease at its next look.
    const b = replica(store, 'b');
    b.start();
    await advance(0);
    expect(b.ledAt).toBe(Date.now());
  });

  test('release by a process that does not lead writes nothing', async () => {
    jest.useFakeTimers({ now: 0 });
    const store = new LeaseStore();
    store.write({ metadata: { name: 'waitgate' }, spec: { holderIdentity: 'other', renewTime: new Date(0) } });
    const b = replica(store, 'b');
    b.start();
    await advance(RETRY_PERIOD_MS);
    expect(await b.elector.release()).toBe(false);
    expect(b.api.writes).toBe(0);
    expect(store.holder).toBe('other');
  });
});
