// In-memory stand-ins for the ports the operator does its I/O through, for unit tests: no
// Valkey, no processes, no apiserver. Each keeps what it was asked, so a test can assert on
// the calls as well as on the answers, and each can be made to fail on demand.
import { pino, type Logger } from 'pino';
import type { CheckVerdict } from '../../api/check-verdict.js';
import type { Profile } from '../../api/profiles.js';
import type { Epoch, HoldResult, RunningBook, SharedPlace, SharePlace } from '../../lib/valkey/slots.js';
import type { PairLeases } from '../../operator/adapters/valkey-scope-slots.js';
import type { CheckAnswer } from '../../operator/checks/exec-check.js';
import type { CheckGateMetrics, CheckRunner, SlotLeases } from '../../operator/checks/slotted-check-runner.js';

/** An arbitrary fixed instant (epoch ms): nothing in a unit test reads the real clock. */
export const T0 = 1_750_000_000_000;

/** Time that moves only when told. */
export class ManualClock {
  constructor(private t: number = T0) {}
  readonly now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

export type SlotsCall =
  | {
      readonly op: 'acquire';
      readonly keys: readonly string[];
      readonly limits: readonly number[];
      readonly token: string;
      readonly ttlMs: number;
    }
  | {
      readonly op: 'acquireInEpoch';
      readonly keys: readonly string[];
      readonly limits: readonly number[];
      readonly token: string;
      readonly ttlMs: number;
      readonly epoch: Epoch;
    }
  | { readonly op: 'openEpoch'; readonly key: string }
  | {
      readonly op: 'acquireShare';
      readonly place: SharePlace;
      readonly token: string;
      readonly ttlMs: number;
      readonly activeMs: number;
    }
  | {
      readonly op: 'handOnShare';
      readonly from: SharedPlace;
      readonly place: SharePlace;
      readonly to: string;
      readonly ttlMs: number;
      readonly activeMs: number;
    }
  | { readonly op: 'release'; readonly keys: readonly string[]; readonly token: string }
  | {
      readonly op: 'handOn';
      readonly key: string;
      readonly from: string;
      readonly to: string;
      readonly limit: number;
      readonly ttlMs: number;
    }
  | {
      readonly op: 'renewMany';
      readonly entries: readonly { keys: readonly string[]; token: string }[];
      readonly ttlMs: number;
    }
  | {
      readonly op: 'holdMany';
      readonly entries: readonly { keys: readonly string[]; token: string; note: string }[];
      readonly index: string;
      readonly ttlMs: number;
    }
  | {
      readonly op: 'releaseHeld';
      readonly keys: readonly string[];
      readonly index: string;
      readonly token: string;
      readonly ended: boolean;
    }
  | { readonly op: 'heldIn'; readonly index: string };

export type FakeSlotsAcquire =
  { readonly acquired: true } | { readonly acquired: false; readonly fullKey: string; readonly holders: number };
export type FakeSlotsEpochAcquire = FakeSlotsAcquire | { readonly acquired: false; readonly epochChanged: true };

/**
 * lib/valkey/slots.ts's Slots in memory, by the same rules: a place is taken in every key or
 * in none; a token that already holds its place everywhere is renewed and counts as acquired;
 * a place lapses at its expiry (expiry <= now). Within a fair share (acquireShare), the active
 * set is kept as a semaphore is (a namespace's key -> when its activity lapses), and the share
 * is ceil(limit / active namespaces). Time is the store's own, as Valkey's is the server's:
 * `now` stands for the server's clock, never a caller's.
 */
export class FakeSlots implements SlotLeases, PairLeases {
  readonly calls: SlotsCall[] = [];
  /** While an operation has an error here, every call of it rejects with that error. */
  readonly failing: {
    acquire?: Error;
    acquireInEpoch?: Error;
    acquireShare?: Error;
    handOnShare?: Error;
    openEpoch?: Error;
    release?: Error;
    handOn?: Error;
    renewMany?: Error;
    holdMany?: Error;
    releaseHeld?: Error;
    heldIn?: Error;
  } = {};
  /** While set, every acquire (and acquireShare) waits for it before it answers: a call caught in flight. */
  acquireWaitsFor: Promise<void> | undefined;
  /** key -> token -> the instant its place lapses. */
  private readonly places = new Map<string, Map<string, number>>();
  /** index key -> token -> note (holdMany's index of running places). */
  private readonly indexes = new Map<string, Map<string, string>>();
  /** ended-set key -> token -> the instant its end mark lapses (releaseHeld with `ended`). */
  private readonly endedMarks = new Map<string, Map<string, number>>();
  /** epoch key -> the epoch open on it. */
  private readonly epochs = new Map<string, string>();
  private epochsOpened = 0;

  /** `now`: the server's clock, T0 unless given. */
  constructor(readonly now: () => number = () => T0) {}

  async acquire(keys: readonly string[], limits: readonly number[], token: string, ttlMs: number): Promise<FakeSlotsAcquire> {
    this.calls.push({ op: 'acquire', keys: [...keys], limits: [...limits], token, ttlMs });
    await (this.acquireWaitsFor ?? Promise.resolve());
    if (this.failing.acquire) throw this.failing.acquire;
    return this.take(keys, limits, token, ttlMs);
  }

  async acquireInEpoch(
    keys: readonly string[],
    limits: readonly number[],
    token: string,
    ttlMs: number,
    epoch: Epoch,
  ): Promise<FakeSlotsEpochAcquire> {
    this.calls.push({ op: 'acquireInEpoch', keys: [...keys], limits: [...limits], token, ttlMs, epoch: { ...epoch } });
    await (this.acquireWaitsFor ?? Promise.resolve());
    if (this.failing.acquireInEpoch) throw this.failing.acquireInEpoch;
    if (this.epochs.get(epoch.key) !== epoch.id) return { acquired: false, epochChanged: true };
    return this.take(keys, limits, token, ttlMs);
  }

  async acquireShare(place: SharePlace, token: string, ttlMs: number, activeMs: number): Promise<FakeSlotsAcquire> {
    this.calls.push({ op: 'acquireShare', place: { ...place }, token, ttlMs, activeMs });
    await (this.acquireWaitsFor ?? Promise.resolve());
    if (this.failing.acquireShare) throw this.failing.acquireShare;
    return this.takeShare(place, token, ttlMs, activeMs);
  }

  async handOnShare(from: SharedPlace, place: SharePlace, to: string, ttlMs: number, activeMs: number): Promise<FakeSlotsAcquire> {
    this.calls.push({ op: 'handOnShare', from: { ...from }, place: { ...place }, to, ttlMs, activeMs });
    await Promise.resolve();
    if (this.failing.handOnShare) throw this.failing.handOnShare;
    this.of(place.fleetKey).delete(from.token);
    this.of(from.namespaceKey).delete(from.token);
    return this.takeShare(place, to, ttlMs, activeMs);
  }

  async openEpoch(key: string): Promise<string> {
    this.calls.push({ op: 'openEpoch', key });
    await Promise.resolve();
    if (this.failing.openEpoch) throw this.failing.openEpoch;
    let epoch = this.epochs.get(key);
    if (epoch === undefined) this.epochs.set(key, (epoch = `epoch-${++this.epochsOpened}`));
    return epoch;
  }

  /** What Valkey does on a restart without persistence, or FLUSHALL: every place and epoch gone. */
  loseEverything(): void {
    this.places.clear();
    this.epochs.clear();
    this.indexes.clear();
    this.endedMarks.clear();
  }

  async holdMany(
    entries: readonly { keys: readonly string[]; token: string; note: string }[],
    book: RunningBook,
    ttlMs: number,
  ): Promise<HoldResult[]> {
    const { index } = book;
    this.calls.push({ op: 'holdMany', entries: entries.map((e) => ({ keys: [...e.keys], token: e.token, note: e.note })), index, ttlMs });
    await Promise.resolve();
    if (this.failing.holdMany) throw this.failing.holdMany;
    const nowMs = this.now();
    return entries.map(({ keys, token, note }) => {
      keys.forEach((k) => this.sweep(k, nowMs));
      const holders = () => [this.of(keys[0] as string).size, this.of(keys[1] as string).size] as const;
      if ((this.endedMarks.get(book.ended)?.get(token) ?? -Infinity) > nowMs) return { token, kept: true, ended: true, holders: holders() };
      const kept = keys.every((k) => this.of(k).has(token));
      for (const key of keys) this.of(key).set(token, nowMs + ttlMs);
      this.indexOf(index).set(token, note);
      return { token, kept, ended: false, holders: holders() };
    });
  }

  async releaseHeld(keys: readonly string[], book: RunningBook, token: string, ended?: { readonly keepMs: number }): Promise<void> {
    const { index } = book;
    this.calls.push({ op: 'releaseHeld', keys: [...keys], index, token, ended: ended !== undefined });
    await Promise.resolve();
    if (this.failing.releaseHeld) throw this.failing.releaseHeld;
    this.indexOf(index).delete(token);
    for (const key of keys) this.of(key).delete(token);
    if (ended) {
      let marks = this.endedMarks.get(book.ended);
      if (!marks) this.endedMarks.set(book.ended, (marks = new Map<string, number>()));
      marks.set(token, this.now() + ended.keepMs);
    }
  }

  async heldIn(index: string): Promise<Map<string, string>> {
    this.calls.push({ op: 'heldIn', index });
    await Promise.resolve();
    if (this.failing.heldIn) throw this.failing.heldIn;
    return new Map(this.indexOf(index));
  }

  /** The index of running places `index`, as holdMany and releaseHeld left it. */
  noted(index: string): Map<string, string> {
    return new Map(this.indexOf(index));
  }

  private indexOf(index: string): Map<string, string> {
    let m = this.indexes.get(index);
    if (!m) this.indexes.set(index, (m = new Map<string, string>()));
    return m;
  }

  /** The epoch open on `key`, if any. */
  epochOf(key: string): string | undefined {
    return this.epochs.get(key);
  }

  async handOn(key: string, from: string, to: string, limit: number, ttlMs: number): Promise<FakeSlotsAcquire> {
    this.calls.push({ op: 'handOn', key, from, to, limit, ttlMs });
    await Promise.resolve();
    if (this.failing.handOn) throw this.failing.handOn;
    this.of(key).delete(from);
    return this.take([key], [limit], to, ttlMs);
  }

  async release(keys: readonly string[], token: string): Promise<void> {
    this.calls.push({ op: 'release', keys: [...keys], token });
    await Promise.resolve();
    if (this.failing.release) throw this.failing.release;
    for (const key of keys) this.of(key).delete(token);
  }

  async renewMany(entries: readonly { keys: readonly string[]; token: string }[], ttlMs: number): Promise<string[]> {
    this.calls.push({ op: 'renewMany', entries: entries.map((e) => ({ keys: [...e.keys], token: e.token })), ttlMs });
    await Promise.resolve();
    if (this.failing.renewMany) throw this.failing.renewMany;
    const nowMs = this.now();
    const lost = new Set<string>();
    for (const { keys, token } of entries) {
      for (const key of keys) {
        const expiry = this.of(key).get(token);
        if (expiry !== undefined && expiry > nowMs) this.of(key).set(token, nowMs + ttlMs);
        else lost.add(token);
      }
    }
    return [...lost];
  }

  /** Puts a place in place directly (another holder, say), without a call being recorded. */
  hold(key: string, token: string, expiresAt: number): void {
    this.of(key).set(token, expiresAt);
  }

  /** The instant `token`'s place in `key` lapses, or undefined when it holds none. */
  expiryOf(key: string, token: string): number | undefined {
    return this.places.get(key)?.get(token);
  }

  /** Live places in `key`, now. */
  holders(key: string): string[] {
    const nowMs = this.now();
    return [...this.of(key)].filter(([, expiry]) => expiry > nowMs).map(([token]) => token);
  }

  /** The calls of one operation, in order. */
  callsOf<Op extends SlotsCall['op']>(op: Op): Extract<SlotsCall, { op: Op }>[] {
    return this.calls.filter((c): c is Extract<SlotsCall, { op: Op }> => c.op === op);
  }

  private take(keys: readonly string[], limits: readonly number[], token: string, ttlMs: number): FakeSlotsAcquire {
    const nowMs = this.now();
    keys.forEach((k) => this.sweep(k, nowMs));
    for (const [i, key] of keys.entries()) {
      const held = this.of(key);
      const limit = limits[i] ?? 0;
      if (!held.has(token) && held.size >= limit) return { acquired: false, fullKey: key, holders: held.size };
    }
    for (const key of keys) this.of(key).set(token, nowMs + ttlMs);
    return { acquired: true };
  }

  /** As acquireShare-4.lua: the namespace made active (never for less long), then a place in both within its share. */
  private takeShare(place: SharePlace, token: string, ttlMs: number, activeMs: number): FakeSlotsAcquire {
    const nowMs = this.now();
    const active = this.of(place.activeKey);
    this.sweep(place.activeKey, nowMs);
    active.set(place.namespaceKey, Math.max(active.get(place.namespaceKey) ?? -Infinity, nowMs + activeMs));
    const share = Math.ceil(place.limit / active.size);
    return this.take([place.fleetKey, place.namespaceKey], [place.limit, share], token, ttlMs);
  }

  private of(key: string): Map<string, number> {
    let m = this.places.get(key);
    if (!m) this.places.set(key, (m = new Map<string, number>()));
    return m;
  }

  private sweep(key: string, nowMs: number): void {
    for (const [token, expiry] of this.of(key)) if (expiry <= nowMs) this.of(key).delete(token);
  }
}

/** A CheckAnswer: exit 0 after 250 ms, nothing written, unless told otherwise. */
export function checkAnswer(a: Partial<CheckAnswer> = {}): CheckAnswer {
  return { exitCode: 0, signal: null, timedOut: false, stdoutBytes: 0, stderrBytes: 0, durationMs: 250, ...a };
}

export interface CheckRunCall {
  readonly profile: Profile;
  readonly target: string;
  readonly signal: AbortSignal;
  readonly key: string;
}

/** A CheckRunner whose runs do what `behaviour` says (by default: answer exit 0). */
export class FakeCheckRunner implements CheckRunner {
  readonly calls: CheckRunCall[] = [];
  constructor(public behaviour: (call: CheckRunCall) => Promise<CheckAnswer> | CheckAnswer = () => checkAnswer()) {}

  async run(profile: Profile, target: string, signal: AbortSignal, key: string): Promise<CheckAnswer> {
    const call = { profile, target, signal, key };
    this.calls.push(call);
    return this.behaviour(call);
  }
}

/** Resolves with `answer` once `signal` is aborted, as a killed check answers. */
export function answerWhenAborted(signal: AbortSignal, answer: CheckAnswer): Promise<CheckAnswer> {
  if (signal.aborted) return Promise.resolve(answer);
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(answer), { once: true }));
}

/** A promise with its resolve in hand. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (err: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** CheckGateMetrics that count. */
export class FakeCheckGateMetrics implements CheckGateMetrics {
  readonly checks: { profile: string; verdict: CheckVerdict; seconds: number }[] = [];
  denied = 0;
  capacityAlarms = 0;

  checked(profile: string, verdict: CheckVerdict, seconds: number): void {
    this.checks.push({ profile, verdict, seconds });
  }
  slotDenied(): void {
    this.denied++;
  }
  capacityExceeded(): void {
    this.capacityAlarms++;
  }
  queuedChecks = 0;
  /** Each started check's lateness, in seconds. */
  readonly lateness: number[] = [];
  queued(): void {
    this.queuedChecks++;
  }
  started(latenessSeconds: number): void {
    this.lateness.push(latenessSeconds);
  }
}

export type LogLine = Record<string, unknown> & { level: number; msg: string };

/** A real pino logger (level debug) whose lines land, parsed, in `lines`. */
export function captureLog(): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const sink = {
    write(chunk: string): void {
      for (const line of chunk.split('\n')) if (line) lines.push(JSON.parse(line) as LogLine);
    },
  };
  return { log: pino({ level: 'debug', base: null, timestamp: false }, sink), lines };
}

/** pino's level numbers. */
export const LogLevel = { debug: 20, info: 30, warn: 40, error: 50 } as const;
