// One profile check, as the gate runs it: take a fleet-wide check slot, run the script,
// give the slot back. Denied or Valkey down: nothing is spawned and nothing is counted.
// Each namespace takes slots within its fair share of the fleet's (lib/valkey/slots.ts
// acquireShare), and checks queued in this operator go round-robin by namespace, so one
// namespace's many holds cannot starve another's few.
// Overload is not silent: checks queued behind this operator's own slots are counted, every
// check's lateness (first asked for to started) is measured, and the log says
// wait_capacity_exceeded when holds keep being denied by the fleet or a queued check waits past
// a quarter of its cadence.
import type { Logger } from 'pino';
import type { Profile } from '../../api/profiles.js';
import { verdictOf, type CheckVerdict } from '../../api/check-verdict.js';
import type { CheckAnswer } from './exec-check.js';
import type { CheckResult } from '../decide/record-check.js';
import type { CheckRun } from '../decide/actions.js';
import type { CheckGate } from '../controller/ports.js';
import { slotDeniedDelayMs } from '../../api/cadence.js';
import type { SharedPlace, SharePlace } from '../../lib/valkey/slots.js';
import { splitKey } from '../controller/object-key.js';
import { FairQueue } from './fair-queue.js';

/**
 * Fleet-wide leases on check slots, each within its namespace's fair share (lib/valkey/slots.ts):
 * times are the server's, never ours.
 */
export interface SlotLeases {
  /** A place in the fleet's semaphore and its namespace's, within the namespace's share; asking makes the namespace active. */
  acquireShare(place: SharePlace, token: string, ttlMs: number, activeMs: number): Promise<{ acquired: boolean }>;
  /** Gives `from`'s place back and takes one for `to` in `place` (as acquireShare), in one round trip. */
  handOnShare(from: SharedPlace, place: SharePlace, to: string, ttlMs: number, activeMs: number): Promise<{ acquired: boolean }>;
  /** Gives the place back in the fleet's semaphore and its namespace's (`keys`). */
  release(keys: readonly string[], token: string): Promise<void>;
}

/** The Valkey keys of the check slots (lib/valkey/keys.ts): the fleet's semaphore, each namespace's, the active set. */
export interface CheckSlotKeys {
  readonly fleet: string;
  readonly active: string;
  ofNamespace(namespace: string): string;
}

export interface CheckRunner {
  /** Runs the check for the HeldJob `key`; `signal` aborts it (SIGTERM then SIGKILL, or the Pod deleted). */
  run(profile: Profile, target: string, signal: AbortSignal, key: string): Promise<CheckAnswer>;
}

export interface CheckGateMetrics {
  checked(profile: string, verdict: CheckVerdict, seconds: number): void;
  slotDenied(): void;
  capacityExceeded(): void;
  /** A check found every place taken by this operator's own checks and queued here (once a check). */
  queued(): void;
  /** A check started, this long after it was first asked for (0 when a place was free at once). */
  started(latenessSeconds: number): void;
}

export interface CheckGateOptions {
  readonly slots: SlotLeases;
  readonly runner: CheckRunner;
  readonly metrics: CheckGateMetrics;
  readonly log: Logger;
  /** Only for rate-limiting the capacity alarm: the leases run on Valkey's clock. */
  readonly now: () => number;
  readonly slotKeys: CheckSlotKeys;
  /** Checks running at once across the fleet. */
  readonly slotLimit: number;
  readonly workerName: string;
  /**
   * The uid of the HeldJob `key` (namespace/name) as the cache has it, or undefined when it is
   * gone. Part of the slot's token, so HeldJobs of one name in two clusters (or one deleted and
   * made again) never share a place.
   */
  readonly uidOf: (key: string) => string | undefined;
  /** How long a slot lease lives if its holder dies mid-check. */
  readonly leaseTtlMs: number;
  /** For the wait_capacity_exceeded line: the three knobs (concurrency undefined: no fleet-wide Job cap). */
  readonly knobs: { readonly checkSlots: number; readonly intervalMs: number; readonly concurrency: number | undefined };
  /**
   * The checks the HeldJob `key` has run (the cache's status.checks), for its cadence: a queued
   * check waiting past a quarter of it is overload. Unknown: the first cadence.
   */
  readonly checksOf?: (key: string) => number | undefined;
  /**
   * A HeldJob that found every slot taken by this process's own checks may go now: one of them
   * ended. The wiring puts it back on the work queue (its denial's later wake stays as a fallback).
   */
  readonly onPlaceFreed?: (key: string) => void;
}

/** The answer as the gate records it: the verdict, and the exit code or why there is none. */
export function resultOf(profile: string, a: CheckAnswer): CheckResult {
  const verdict = verdictOf(a);
  if (a.timedOut) return { profile, verdict, exitCode: undefined, detail: 'timed out' };
  if (a.spawnError) return { profile, verdict, exitCode: undefined, detail: a.spawnDetail ?? `could not start (${a.spawnError})` };
  if (a.exitCode === null) return { profile, verdict, exitCode: undefined, detail: `killed by ${a.signal ?? 'a signal'}` };
  return { profile, verdict, exitCode: a.exitCode };
}

/** A check slot outlives its check's timeout and kill grace by this much before it lapses. */
export const CHECK_LEASE_MARGIN_MS = 30_000;

/**
 * How long a namespace stays active (counted in the fair shares) after asking for a check slot
 * for the HeldJob that has run `checksDone` checks: past when a denied hold asks again (twice
 * the delay of a denial, jitter and all), so a denied namespace stays active until its holds
 * ask again; never shorter than a slot's lease.
 */
export const checkActiveMs = (checksDone: number, intervalMs: number, leaseTtlMs: number): number =>
  Math.max(leaseTtlMs, Math.ceil((slotDeniedDelayMs(checksDone, intervalMs) * 11) / 5));

/** The namespace of a HeldJob's key (namespace/name). */
const namespaceOf = (key: string): string => splitKey(key).namespace;

/** How long a check slot lives if its holder dies mid-check. */
export const checkLeaseTtlMs = (timeoutMs: number, killGraceMs: number): number => timeoutMs + killGraceMs + CHECK_LEASE_MARGIN_MS;

const DENIALS_BEFORE_ALARM = 3;
/** Why capacity was found short: the fleet's slots denied by Valkey, or this operator's own queued behind. */
const Shortage = { Fleet: 'fleet', OwnSlots: 'own-slots' } as const;
type Shortage = (typeof Shortage)[keyof typeof Shortage];

/** A check put off (queued here, denied, or Valkey away): since when, and what was said of it. */
interface PutOff {
  readonly since: number;
  /** Counted queued behind this operator's own checks. */
  queued: boolean;
  /** Counted late past a quarter of its cadence (wait_capacity_exceeded). */
  late: boolean;
}
/** A place handed to a waiting HeldJob (SlottedCheckGate.handed). */
interface Handed {
  readonly at: number;
  forNextPass: boolean;
  /**
   * The token its place is held under in Valkey, taken for it in the script that gave the
   * finished check's place back: its pass runs the check without asking. Undefined: the place
   * is only this process's count; its pass asks Valkey as any other.
   */
  token?: string;
}

/** How long a place handed to a waiting HeldJob is kept for it. */
export const HAND_ON_MS = 2_000;
const ALARM_EVERY_MS = 60_000;

export class SlottedCheckGate implements CheckGate {
  /** The HeldJobs whose check is under way, from asking for the slot to giving it back. */
  private readonly running = new Map<string, AbortController>();
  /** Denials in a row, per HeldJob; forgotten on a slot taken, or when the HeldJob goes. */
  private readonly denials = new Map<string, number>();
  /**
   * HeldJobs that found every slot taken by this process's own checks, round-robin by
   * namespace and first come first within one: they are handed on as places free, rather than
   * asking Valkey for a place this process knows is not there and waiting out a denial's delay.
   */
  private readonly waiting = new FairQueue(namespaceOf);
  /**
   * Waiting HeldJobs handed a place and not yet back to take it: when they were handed it, and
   * whether the pass that found every place taken was still under way then (the place is for
   * the pass after it, which the wiring queued; the end of that earlier pass must not give it
   * on). A place is kept for one only HAND_ON_MS: one that never comes (its pass decided
   * something else, or skipped a stale version) lets the next one have it.
   */
  private readonly handed = new Map<string, Handed>();
  /** HeldJobs whose pass has asked for a check and not ended yet (run ... passEnded). */
  private readonly inPass = new Set<string>();
  /** HeldJobs whose check was put off and has not started: since when (its lateness so far). */
  private readonly putOff = new Map<string, PutOff>();
  private handOnTimer: NodeJS.Timeout | undefined;
  private lastAlarm = -Infinity;

  constructor(private readonly o: CheckGateOptions) {}

  /**
   * The HeldJob `key` is going (deleted, or being deleted): stop its check, and forget it. Its
   * check is stopped also while the slot is still being asked for: then it never starts.
   */
  cancel(key: string): void {
    this.running.get(key)?.abort();
    this.denials.delete(key);
    this.waiting.delete(key);
    this.forget(key, this.handed.get(key));
    this.handed.delete(key);
    this.putOff.delete(key);
    this.forgetIdleNamespaces();
  }

  /**
   * A pass over `key` ended: if it was handed a place and did not come for it (its pass decided
   * something else, or skipped a version it had written over), the place goes to the next. A
   * place handed while this very pass was under way (it had found every place taken) is not
   * one it could have come for: it is kept for the next pass. Given on here, it would go round
   * for ever among HeldJobs whose passes are all under way, each pass's end taking its place
   * from the pass after it (the operator that took over during a Valkey partition, 2026-12-04,
   * spun so with its event loop never free).
   */
  passEnded(key: string): void {
    // A pass that asked for no check: the hold is not due one any more (paused, ended, edited),
    // so the lateness of the one put off ends here, unmeasured.
    if (!this.inPass.delete(key)) this.putOff.delete(key);
    const handed = this.handed.get(key);
    if (handed === undefined) return;
    if (handed.forNextPass) {
      handed.forNextPass = false;
      return;
    }
    this.handed.delete(key);
    void this.passOn(handed.token === undefined ? undefined : { key, token: handed.token });
  }

  /** How many HeldJobs the gate keeps anything for (a check under way, a denial count). */
  get heldJobsTracked(): number {
    return new Set([...this.running.keys(), ...this.denials.keys(), ...this.waiting.keys(), ...this.handed.keys(), ...this.putOff.keys()])
      .size;
  }

  /** How many namespaces the gate keeps anything for (its turn in the waiting queue's round-robin). */
  get namespacesTracked(): number {
    return this.waiting.groupsTracked;
  }

  /** Checks queued behind this operator's own check slots, not started yet (handed a place or not). */
  get queuedChecks(): number {
    return this.waiting.size + this.liveHanded();
  }

  async run(key: string, profile: Profile, target: string): Promise<CheckRun> {
    const uid = this.o.uidOf(key);
    if (uid === undefined) return { kind: 'cancelled' };
    const token = `${this.o.workerName}/${key}/${uid}`;
    this.inPass.add(key);
    const given = this.handed.get(key);
    this.handed.delete(key);
    // A place taken for an earlier HeldJob of this name (deleted and made again) is not this one's.
    if (given?.token !== undefined && given.token !== token) this.forget(key, given);
    if (!this.running.has(key) && this.running.size + this.liveHanded() >= this.o.slotLimit) {
      // Every place is this process's own (or handed to one waiting before): no need to ask,
      // and no denial to count; but it is queued, and late if it waits long.
      this.waiting.add(key);
      const p = this.putOffNow(key);
      if (!p.queued) {
        p.queued = true;
        this.o.metrics.queued();
      }
      this.lateCheck(key, p);
      return { kind: 'denied' };
    }
    this.waiting.delete(key);
    const abort = new AbortController();
    this.running.set(key, abort);
    let acquired: boolean;
    try {
      // Handed a place already taken for it: no round trip before the check starts.
      acquired =
        given?.token === token ||
        (await this.o.slots.acquireShare(this.placeOf(key), token, this.o.leaseTtlMs, this.activeMsOf(key))).acquired;
    } catch (err) {
      this.settle(key, abort);
      this.handOn();
      if (abort.signal.aborted) return { kind: 'cancelled' };
      this.putOffNow(key);
      this.o.log.warn({ err, heldjob: key }, 'Deferred check: Valkey is unavailable');
      return { kind: 'unavailable' };
    }
    if (!acquired) {
      this.settle(key, abort);
      this.handOn();
      if (abort.signal.aborted) return { kind: 'cancelled' };
      this.putOffNow(key);
      this.o.metrics.slotDenied();
      const n = (this.denials.get(key) ?? 0) + 1;
      this.denials.set(key, n);
      if (n >= DENIALS_BEFORE_ALARM) this.alarm(Shortage.Fleet, { heldjob: key, denials: n });
      return { kind: 'denied' };
    }
    this.denials.delete(key);
    // A place it asked for: its namespace was served (one handed a place was, when handed it).
    if (given === undefined) this.waiting.served(namespaceOf(key));
    try {
      if (abort.signal.aborted) return { kind: 'cancelled' };
      this.startedNow(key);
      const answer = await this.o.runner.run(profile, target, abort.signal, key);
      if (abort.signal.aborted) return { kind: 'cancelled' };
      if (answer.refusedSecret !== undefined) {
        // A slip in configuration, not an answer: nothing counted toward the check's faults.
        this.o.log.warn(
          { heldjob: key, profile: profile.name, secret: answer.refusedSecret },
          'Refused check Pod: the profile names a Secret not labelled for checks',
        );
        return { kind: 'misconfigured', profile: profile.name, secret: answer.refusedSecret, message: answer.spawnDetail ?? '' };
      }
      const result = resultOf(profile.name, answer);
      this.o.metrics.checked(profile.name, result.verdict, answer.durationMs / 1000);
      // The profile's name and byte counts only: never the path, never the output.
      this.o.log.info(
        {
          heldjob: key,
          profile: profile.name,
          exitCode: answer.exitCode,
          signal: answer.signal,
          timedOut: answer.timedOut,
          stdoutBytes: answer.stdoutBytes,
          stderrBytes: answer.stderrBytes,
          durationMs: answer.durationMs,
        },
        'Ran check',
      );
      return { kind: 'answered', result };
    } finally {
      this.settle(key, abort);
      await this.passOn({ key, token });
    }
  }

  /**
   * A place this process holds in Valkey for the HeldJob `freed.key` under `freed.token` (a
   * check ended), or none: goes to the HeldJob next here whose check can start (the one waiting
   * longest of the namespace served least recently), in one script that gives it back and
   * takes it for that one within its namespace's share, so its pass starts the check without
   * asking and no other operator takes the place between; given back when none waits. Then the
   * other free places are handed on.
   */
  private async passOn(freed: { readonly key: string; readonly token: string } | undefined): Promise<void> {
    const next = freed === undefined ? undefined : this.nextReady();
    if (freed !== undefined && next === undefined) await this.giveBack(freed.key, freed.token);
    if (freed !== undefined && next !== undefined) {
      // Counted as handed from now on, so no check that comes meanwhile takes its place.
      const handed: Handed = { at: this.o.now(), forNextPass: this.inPass.has(next.key) };
      this.waiting.delete(next.key);
      this.waiting.served(namespaceOf(next.key));
      this.handed.set(next.key, handed);
      try {
        const from = { namespaceKey: this.o.slotKeys.ofNamespace(namespaceOf(freed.key)), token: freed.token };
        const { acquired } = await this.o.slots.handOnShare(
          from,
          this.placeOf(next.key),
          next.token,
          this.o.leaseTtlMs,
          this.activeMsOf(next.key),
        );
        if (acquired && this.handed.get(next.key) === handed) handed.token = next.token;
        // Cancelled, or its pass came, while the place was being taken: a pass that came took
        // it by asking (the same token); a cancelled one gives it back.
        else if (acquired && !this.running.has(next.key)) void this.giveBack(next.key, next.token);
      } catch (err) {
        // Its pass asks Valkey as any other; the place given back lapses by itself if it was not.
        this.o.log.warn({ err, heldjob: next.key }, 'Failed to hand check slot on; its lease expires by itself');
      }
      this.o.onPlaceFreed?.(next.key);
    }
    this.handOn();
  }

  /**
   * The next waiting HeldJob still in the cache (the one waiting longest of the namespace
   * served least recently), with the token its place is taken under; the gone ones forgotten.
   */
  private nextReady(): { key: string; token: string } | undefined {
    for (let key = this.waiting.peek(); key !== undefined; key = this.waiting.peek()) {
      const uid = this.o.uidOf(key);
      if (uid !== undefined) return { key, token: `${this.o.workerName}/${key}/${uid}` };
      this.waiting.delete(key);
    }
    return undefined;
  }

  /** Where the HeldJob `key`'s check slot is taken: the fleet's semaphore, and its namespace's share of it. */
  private placeOf(key: string): SharePlace {
    const { fleet, active } = this.o.slotKeys;
    return { fleetKey: fleet, namespaceKey: this.o.slotKeys.ofNamespace(namespaceOf(key)), activeKey: active, limit: this.o.slotLimit };
  }

  /** How long asking for `key`'s check slot keeps its namespace active (checkActiveMs). */
  private activeMsOf(key: string): number {
    return checkActiveMs(this.o.checksOf?.(key) ?? 0, this.o.knobs.intervalMs, this.o.leaseTtlMs);
  }

  /** A handed place not come for: its Valkey place, if one was taken for it, is given back. */
  private forget(key: string, handed: Handed | undefined): void {
    if (handed?.token !== undefined) void this.giveBack(key, handed.token);
  }

  /** Gives back the place the HeldJob `key` holds under `token`, in the fleet's semaphore and its namespace's. */
  private async giveBack(key: string, token: string): Promise<void> {
    await this.o.slots.release([this.o.slotKeys.fleet, this.o.slotKeys.ofNamespace(namespaceOf(key))], token).catch((err: unknown) => {
      this.o.log.warn({ err }, 'Failed to release check slot; its lease expires by itself');
    });
  }

  /**
   * The namespaces that neither wait here nor hold a place here (a check running, or a place
   * handed) lose their turn in the queue's round-robin: nothing is kept for a namespace that goes.
   */
  private forgetIdleNamespaces(): void {
    this.waiting.keepServedOnly(new Set([...this.running.keys(), ...this.handed.keys()].map(namespaceOf)));
  }

  /** The check of `key` is put off: since the first time, for its lateness. */
  private putOffNow(key: string): PutOff {
    let p = this.putOff.get(key);
    if (p === undefined) {
      p = { since: this.o.now(), queued: false, late: false };
      this.putOff.set(key, p);
    }
    return p;
  }

  /** The check of `key` starts now: its lateness measured (0 if it was never put off). */
  private startedNow(key: string): void {
    const p = this.putOff.get(key);
    this.putOff.delete(key);
    if (p?.queued) this.lateCheck(key, p);
    this.o.metrics.started(p === undefined ? 0 : Math.max(0, this.o.now() - p.since) / 1000);
  }

  /**
   * A check queued behind this operator's own slots for longer than a quarter of its cadence
   * (what a denied one would wait before asking again, never under 11 s) finds the slots too
   * few for the holds: wait_capacity_exceeded, counted once a check.
   */
  private lateCheck(key: string, p: PutOff): void {
    if (p.late) return;
    const waitedMs = this.o.now() - p.since;
    const quarterMs = slotDeniedDelayMs(this.o.checksOf?.(key) ?? 0, this.o.knobs.intervalMs);
    if (waitedMs <= quarterMs) return;
    p.late = true;
    this.alarm(Shortage.OwnSlots, { heldjob: key, waitedMs, quarterMs, queued: this.waiting.size });
  }

  /** This run of `key` is over: forget its abort controller (only its own). */
  private settle(key: string, abort: AbortController): void {
    if (this.running.get(key) === abort) this.running.delete(key);
    this.forgetIdleNamespaces();
  }

  /** Handed places still kept for the HeldJob they were handed to; the lapsed ones forgotten. */
  private liveHanded(): number {
    const now = this.o.now();
    for (const [key, handed] of this.handed) {
      if (now - handed.at <= HAND_ON_MS) continue;
      this.handed.delete(key);
      this.forget(key, handed);
    }
    return this.handed.size;
  }

  /**
   * Places of this process's are free: the HeldJobs next in the queue (round-robin by
   * namespace, first come first within one) may go, one a place.
   */
  private handOn(): void {
    while (this.waiting.size > 0 && this.running.size + this.liveHanded() < this.o.slotLimit) {
      const next = this.waiting.peek() as string;
      this.waiting.delete(next);
      this.waiting.served(namespaceOf(next));
      this.handed.set(next, { at: this.o.now(), forNextPass: this.inPass.has(next) });
      this.o.onPlaceFreed?.(next);
    }
    // A place handed to one that never comes goes to the next when it lapses.
    if (this.handed.size > 0 && this.waiting.size > 0 && this.handOnTimer === undefined) {
      this.handOnTimer = setTimeout(() => {
        this.handOnTimer = undefined;
        this.handOn();
      }, HAND_ON_MS + 1);
      this.handOnTimer.unref?.();
    }
  }

  private alarm(shortage: Shortage, detail: Record<string, unknown>): void {
    this.o.metrics.capacityExceeded();
    const now = this.o.now();
    if (now - this.lastAlarm < ALARM_EVERY_MS) return;
    this.lastAlarm = now;
    const { checkSlots, intervalMs, concurrency } = this.o.knobs;
    const what =
      shortage === Shortage.Fleet
        ? "held jobs keep finding every check slot of the fleet taken (other operators' checks hold them)"
        : `checks wait past a quarter of their cadence for one of this operator's ${this.o.slotLimit} check slot(s)`;
    const more =
      concurrency === undefined
        ? 'raise WAITGATE_WAIT_CHECK_SLOTS or lengthen WAITGATE_WAIT_INTERVAL_MS (WAITGATE_CONCURRENCY is unset and holds no slot back)'
        : this.o.slotLimit < checkSlots
          ? `raise WAITGATE_CONCURRENCY (the slots are kept below its ${concurrency}) with WAITGATE_WAIT_CHECK_SLOTS, or lengthen WAITGATE_WAIT_INTERVAL_MS`
          : 'raise WAITGATE_WAIT_CHECK_SLOTS (kept below WAITGATE_CONCURRENCY), lengthen WAITGATE_WAIT_INTERVAL_MS, or raise WAITGATE_CONCURRENCY';
    this.o.log.warn(
      {
        event: 'wait_capacity_exceeded',
        shortage,
        ...detail,
        checkSlots,
        intervalMs,
        concurrency: concurrency ?? 'none',
        knobs: ['WAITGATE_WAIT_CHECK_SLOTS', 'WAITGATE_WAIT_INTERVAL_MS', 'WAITGATE_CONCURRENCY'],
      },
      `wait_capacity_exceeded: ${what}; ${more}`,
    );
  }
}
