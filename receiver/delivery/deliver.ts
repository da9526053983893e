// One delivery, from a verified and parsed label event to exactly one recorded outcome per
// trigger it fires: a HeldJob that holds, or a HeldJob that records a refusal.
import type { Logger } from 'pino';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import type { DeclaredProfiles, Refusal } from '../../api/refusal-rules.js';
import type { Trigger } from '../../api/triggers/triggers-file.js';
import { RefusalToken } from '../../api/vocabulary.js';
import type { ValkeyKeys } from '../../lib/valkey/keys.js';
import type { LabelEvent } from '../forges/event.js';
import { decideOnce, onceRecordManifest, type OnceRecordManifest } from './once.js';
import {
  BODY_DEDUP_WINDOW_MS,
  DEDUP_WINDOW_MS,
  decideHold,
  heldJobManifest,
  heldJobName,
  isOwnRecord,
  plan,
  recordedOutcome,
  siblingSelector,
  type HeldJobManifest,
  type PlannedTrigger,
  type RecordedOutcome,
  type Remembered,
  type Verdict,
} from './plan.js';

export interface TriggerView {
  /** The loaded triggers, or undefined while no valid triggers file has been read. */
  triggers(): readonly Trigger[] | undefined;
  /** The declared profile names, or that the profiles ConfigMap does not load right now. */
  profiles(): DeclaredProfiles;
}

export interface HeldJobRecords {
  /** Creates the HeldJob; 'existed' when one of that name is already there. */
  create(manifest: HeldJobManifest): Promise<'created' | 'existed'>;
  /**
   * Writes phase Refused with the token, as of `now` (best effort: the operator converges
   * too). Only ever on a refusal record this delivery has just created.
   */
  markRefused(namespace: string, name: string, refusal: Refusal, now: number): Promise<void>;
  /** HeldJobs of one trigger and target, read from the apiserver itself, not a cache. */
  liveFor(namespace: string, labelSelector: string): Promise<HeldJobObject[]>;
}

/** The records of `once` triggers that fired (receiver/delivery/once.ts), on the apiserver. */
export interface OnceRecords {
  /** Creates the record; when one of that name is there, what it holds instead. */
  claim(
    manifest: OnceRecordManifest,
  ): Promise<{ readonly created: true } | { readonly created: false; readonly data: Readonly<Record<string, string>> | undefined }>;
  /** Marks the record fired: its HeldJob was created. */
  markFired(namespace: string, name: string): Promise<void>;
}

export interface LeaseStore {
  acquire(key: string, ttlMs: number): Promise<{ key: string; token: string } | undefined>;
  renew(lease: { key: string; token: string }, ttlMs: number): Promise<boolean>;
  release(lease: { key: string; token: string }): Promise<boolean>;
}

/** What Valkey keeps of the holds of one trigger and target. All of it may be lost. */
export interface HoldHistory {
  /** The launch marker the operator left (the HeldJob it names), and the highest generation handed out. */
  recall(trigger: string, target: string): Promise<Remembered>;
  /** Remembers that this generation was handed out; never lowers what is remembered. */
  handedOut(trigger: string, target: string, generation: number): Promise<void>;
}

/** Something the receiver needs is down; the forge should deliver again later (503). */
export class UnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UnavailableError';
  }
}

/**
 * What became of one trigger. `recordedEarlier`: this delivery was handled before (its answer
 * lost, or its dedup key gone) and this is the HeldJob that handling made; nothing was written now.
 */
export type TriggerOutcome = (RecordedOutcome | OnceSpent) & { readonly trigger: string; readonly recordedEarlier?: true };

/** A `once` trigger that had already fired for this target, for the delivery `spentBy` made. Nothing was created. */
export interface OnceSpent {
  readonly outcome: 'once-spent';
  /** The HeldJob of the delivery that fired it (it may since have been deleted). */
  readonly spentBy: string;
}

export type DeliveryResult =
  | { readonly outcome: 'ignored' }
  | { readonly outcome: 'duplicate' }
  | { readonly outcome: 'handled'; readonly results: readonly TriggerOutcome[] };

export interface DelivererDeps {
  readonly view: TriggerView;
  readonly records: HeldJobRecords;
  readonly once: OnceRecords;
  readonly leases: LeaseStore;
  readonly history: HoldHistory;
  readonly namespace: string;
  /** Valkey key names, with the deployment's prefix. */
  readonly keys: ValkeyKeys;
  readonly afterMaxMs: number;
  readonly now: () => number;
  readonly log: Logger;
  /** How long a delivery waits for another delivery of the same trigger and target. */
  readonly lockWaitMs?: number;
}

const INFLIGHT_MS = 60_000;
const LOCK_TTL_MS = 15_000;
/** Looks at the live HeldJobs again at most this often when the generation it chose was taken. */
const HOLD_ATTEMPTS = 3;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Deliverer {
  constructor(private readonly deps: DelivererDeps) {}

  async deliver(event: LabelEvent): Promise<DeliveryResult> {
    const { view, leases, keys } = this.deps;
    const triggers = view.triggers();
    if (!triggers) throw new UnavailableError('no valid triggers file is loaded');
    const planned = plan(event, triggers, view.profiles(), this.deps.now(), this.deps.afterMaxMs);
    if (planned.length === 0) return { outcome: 'ignored' };

    const inflight = await this.valkey(() => leases.acquire(keys.deliveryDedup(event.forge, event.deliveryId), INFLIGHT_MS));
    if (!inflight) return { outcome: 'duplicate' };
    let body: { key: string; token: string } | undefined;
    try {
      // The same signed body under a new delivery id is a replay, or a forge's copy: dropped.
      body = await this.valkey(() => leases.acquire(keys.deliveryBodyDedup(event.forge, event.bodyHash), INFLIGHT_MS));
      if (!body) {
        await leases.release(inflight).catch(() => undefined);
        return { outcome: 'duplicate' };
      }
      const results: TriggerOutcome[] = [];
      for (const p of planned) results.push(await this.one(event, p));
      // Settled: identical redeliveries are dropped for the dedup window, the same body for a day.
      const settled = body;
      await this.valkey(() => Promise.all([leases.renew(inflight, DEDUP_WINDOW_MS), leases.renew(settled, BODY_DEDUP_WINDOW_MS)])).catch(
        (err: unknown) => {
          this.deps.log.warn({ err }, 'Failed to settle delivery dedup marker');
        },
      );
      return { outcome: 'handled', results };
    } catch (err) {
      // Not handled: let the forge's redelivery through.
      await leases.release(inflight).catch(() => undefined);
      if (body) await leases.release(body).catch(() => undefined);
      throw err;
    }
  }

  private async one(event: LabelEvent, planned: PlannedTrigger): Promise<TriggerOutcome> {
    return planned.trigger.on.once === true ? this.once(event, planned) : this.fire(event, planned);
  }

  /**
   * A `once` trigger: its record first, then its HeldJob. The record is claimed before the
   * HeldJob is created, so of two deliveries only one goes on; the one that claimed it goes
   * on again if handled again (its create failed, or its answer was lost), and once its
   * HeldJob is created the record says so, so nothing ever creates it twice. A once trigger
   * has no waits (waitfor-with-once), so its HeldJob is named by the delivery.
   */
  private async once(event: LabelEvent, planned: PlannedTrigger): Promise<TriggerOutcome> {
    const { trigger } = planned;
    const { namespace, log } = this.deps;
    const manifest = onceRecordManifest(event, trigger.name, namespace, heldJobName(event, trigger));
    const claim = await this.deps.once.claim(manifest);
    if (!claim.created) {
      const decision = decideOnce(claim.data, event);
      switch (decision.kind) {
        case 'spent':
          return { trigger: trigger.name, outcome: 'once-spent', spentBy: decision.by };
        case 'fired':
          return { trigger: trigger.name, outcome: 'held', heldJob: decision.heldJob, recordedEarlier: true };
        case 'fire':
          break;
      }
    }
    const outcome = await this.fire(event, planned);
    await this.deps.once.markFired(namespace, manifest.metadata.name).catch((err: unknown) => {
      log.warn({ err, record: manifest.metadata.name }, 'Failed to mark once record fired');
    });
    return outcome;
  }

  private async fire(event: LabelEvent, planned: PlannedTrigger): Promise<TriggerOutcome> {
    const { trigger, verdict } = planned;
    if ((trigger.run.waitFor ?? []).length === 0) return this.record(event, planned);
    if (verdict.kind === 'refuse') {
      // Refused at the door, unless an earlier handling of this delivery recorded something else.
      const own = (await this.siblings(event, planned)).find((r) => isOwnRecord(r, event));
      return own ? earlier(trigger.name, recordedOutcome(own)) : this.record(event, planned);
    }
    // Deliveries of one trigger for one target take turns, which keeps them from racing for
    // the same hold; the lock is not what keeps two holds apart (it may run out mid-create),
    // the hold's name is.
    const lock = await this.lock(this.deps.keys.holdLock(trigger.name, event.target));
    try {
      return await this.admit(event, planned);
    } finally {
      await this.deps.leases.release(lock).catch(() => undefined);
    }
  }

  /** A trigger with conditions that no rule refuses: its hold, its own earlier record, or wait-superseded. */
  private async admit(event: LabelEvent, planned: PlannedTrigger): Promise<TriggerOutcome> {
    const { trigger } = planned;
    const { history, namespace, records, log } = this.deps;
    let tried: string | undefined;
    for (let attempt = 1; attempt <= HOLD_ATTEMPTS; attempt++) {
      // Valkey first, then the apiserver: the live set is never older than the marker it checks.
      const remembered = await this.valkey(() => history.recall(trigger.name, event.target));
      const live = await this.siblings(event, planned);
      const decision = decideHold(event, trigger.name, live, remembered, this.deps.now());
      switch (decision.kind) {
        case 'recorded':
          // The hold this handling just tried to create is there: its create landed, the answer was lost.
          return decision.recorded.heldJob === tried
            ? { ...decision.recorded, trigger: trigger.name }
            : earlier(trigger.name, decision.recorded);
        case 'superseded': {
          const verdict: Verdict = { kind: 'refuse', token: RefusalToken.Superseded, message: decision.message };
          return this.record(event, { trigger, verdict });
        }
        case 'hold': {
          const manifest = heldJobManifest(event, planned, namespace, decision.generation);
          tried = manifest.metadata.name;
          if ((await records.create(manifest)) === 'existed') {
            // Another delivery created that hold first (or this one did, its answer lost): look again.
            log.debug({ heldjob: manifest.metadata.name, attempt }, 'Found hold generation taken');
            continue;
          }
          await this.valkey(() => history.handedOut(trigger.name, event.target, decision.generation)).catch((err: unknown) => {
            log.warn({ err }, 'Failed to remember hold generation');
          });
          return { trigger: trigger.name, outcome: 'held', heldJob: manifest.metadata.name };
        }
      }
    }
    throw new UnavailableError(`the holds of trigger ${trigger.name} for this target changed under every look`);
  }

  /**
   * Creates the HeldJob named by the delivery: a hold without conditions, or a refusal record.
   * A refusal status is written only on the record just created, never on one already there.
   */
  private async record(event: LabelEvent, planned: PlannedTrigger): Promise<TriggerOutcome> {
    const { trigger, verdict } = planned;
    const { namespace, records, log } = this.deps;
    const manifest = heldJobManifest(event, planned, namespace);
    const name = manifest.metadata.name;
    const intended: TriggerOutcome =
      verdict.kind === 'refuse'
        ? { trigger: trigger.name, outcome: 'refused', token: verdict.token, heldJob: name }
        : { trigger: trigger.name, outcome: 'held', heldJob: name };
    if ((await records.create(manifest)) === 'existed') {
      // The name derives from this delivery: an earlier handling of it made this HeldJob.
      const own = (await this.siblings(event, planned)).find((r) => r.metadata.name === name);
      return own ? earlier(trigger.name, recordedOutcome(own)) : { ...intended, recordedEarlier: true };
    }
    if (verdict.kind === 'refuse') {
      await records
        .markRefused(namespace, name, { token: verdict.token, message: verdict.message }, this.deps.now())
        .catch((err: unknown) => {
          log.warn({ err, heldjob: name }, 'Failed to write refusal status; the operator will');
        });
    }
    return intended;
  }

  /** The live HeldJobs of this trigger and target, from the apiserver itself. */
  private siblings(event: LabelEvent, planned: PlannedTrigger): Promise<HeldJobObject[]> {
    return this.deps.records.liveFor(this.deps.namespace, siblingSelector(planned.trigger.name, event.target));
  }

  private async lock(key: string): Promise<{ key: string; token: string }> {
    const deadline = this.deps.now() + (this.deps.lockWaitMs ?? 10_000);
    for (;;) {
      const lease = await this.valkey(() => this.deps.leases.acquire(key, LOCK_TTL_MS));
      if (lease) return lease;
      if (this.deps.now() >= deadline) throw new UnavailableError('another delivery for this trigger and target is still being handled');
      await sleep(20 + Math.random() * 40);
    }
  }

  private async valkey<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      throw new UnavailableError('Valkey is unavailable', { cause: err });
    }
  }
}

function earlier(trigger: string, recorded: RecordedOutcome): TriggerOutcome {
  return { ...recorded, trigger, recordedEarlier: true };
}
