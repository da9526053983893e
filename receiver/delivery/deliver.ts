// One delivery, from a verified and parsed label event to exactly one recorded outcome per
// trigger it fires: a HeldJob that holds, or a refusal counted on the record of its trigger,
// target and token.
import type { Logger } from 'pino';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { countRefusal, hasCounted, tallyAnnotations } from '../../api/refusal-record.js';
import type { DeclaredProfiles, Refusal } from '../../api/refusal-rules.js';
import type { Trigger } from '../../api/triggers/triggers-file.js';
import { targetParts } from '../../api/target.js';
import { isForge } from '../../api/forges.js';
import { Annotations, isTerminal, Labels, RefusalToken, type Forge } from '../../api/vocabulary.js';
import type { ValkeyKeys } from '../../lib/valkey/keys.js';
import type { LeasePair, PairAcquire } from '../../lib/valkey/leases.js';
import type { LabelEvent } from '../forges/event.js';
import { BOUNDED_LOOK_BACK, decideBounded, started } from './concurrency.js';
import { decideOnce, onceRecordExpired, onceRecordManifest, type OnceRecordManifest } from './once.js';
import {
  BODY_DEDUP_WINDOW_MS,
  DEDUP_WINDOW_MS,
  decideHold,
  generationOf,
  heldJobManifest,
  heldJobName,
  holdCandidates,
  holdName,
  isOwnRecord,
  plan,
  RECORDED_REFUSALS,
  recordedOutcome,
  refusalRecordManifest,
  refusalRecordName,
  siblingSelector,
  tallyOf,
  type HeldJobManifest,
  type PlannedTrigger,
  type RecordedOutcome,
  type Remembered,
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
  /** One HeldJob by name, read from the apiserver itself, not a cache; undefined when there is none. */
  get(namespace: string, name: string): Promise<HeldJobObject | undefined>;
  /**
   * Sets annotations of a refusal record (the refusals it counts), or marks a pending hold
   * superseded (Annotations.supersededBy), if it is still at `resourceVersion`: 'conflict' when it changed since, 'gone' when it is not there.
   */
  annotate(
    namespace: string,
    name: string,
    resourceVersion: string | undefined,
    annotations: Record<string, string>,
  ): Promise<'written' | 'conflict' | 'gone'>;
  /**
   * HeldJobs of one trigger and target by label, read from the apiserver itself. Only when
   * their names say nothing (Deliverer.look); every other look is by name.
   */
  liveFor(namespace: string, labelSelector: string): Promise<HeldJobObject[]>;
}

/** The records of `once` triggers that fired (receiver/delivery/once.ts), on the apiserver. */
export interface OnceRecords {
  /** Creates the record; when one of that name is there, what it holds instead, its expiry and uid. */
  claim(manifest: OnceRecordManifest): Promise<
    | { readonly created: true }
    | {
        readonly created: false;
        readonly spec: Readonly<Record<string, unknown>> | undefined;
        readonly expiresAt?: string | undefined;
        readonly uid?: string | undefined;
      }
  >;
  /** Deletes an expired record, if it is still the one of `uid`; nothing when it is gone or replaced. */
  expire(namespace: string, name: string, uid: string | undefined): Promise<void>;
  /** Marks the record fired: its HeldJob was created. */
  markFired(namespace: string, name: string): Promise<void>;
}

/** A delivery's dedup markers (lib/valkey/leases.ts). */
export interface LeaseStore {
  /** Two leases in one round trip, both or neither. */
  acquirePair(keys: readonly [string, string], ttlMs: number): Promise<PairAcquire>;
  renewPair(pair: LeasePair, ttlMs: readonly [number, number]): Promise<number>;
  releasePair(pair: LeasePair): Promise<number>;
}

/** The lock of one trigger and target, as lockAndRecall took it; only its token gives it back. */
export interface HoldLock {
  readonly trigger: string;
  readonly target: string;
  readonly token: string;
}

/**
 * What Valkey keeps of the holds of one trigger and target, and the lock their deliveries take
 * turns through. All of it may be lost.
 */
export interface HoldHistory {
  /**
   * Takes the lock for `ttlMs` and reads what is remembered (as recall), in one round trip;
   * undefined, and nothing read, while another delivery holds the lock.
   */
  lockAndRecall(trigger: string, target: string, ttlMs: number): Promise<{ lock: HoldLock; remembered: Remembered } | undefined>;
  /**
   * Gives the lock back if it is still this one's, and remembers the generation handed out
   * under it, if any (as handedOut, whether or not the lock was still its own), in one round
   * trip; whether the lock was given back.
   */
  unlock(lock: HoldLock, generation?: number): Promise<boolean>;
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
export type TriggerOutcome = (RecordedOutcome | OnceSpent | Unconfirmed) & { readonly trigger: string; readonly recordedEarlier?: true };

/**
 * receiver.confirmLabels: none of the labels this delivery says were added (of those the
 * trigger fires on) is on the target when its forge is asked. Nothing was created.
 */
export interface Unconfirmed {
  readonly outcome: 'unconfirmed';
}

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
  /** How long an OnceRecord spends its trigger for its target (once.ts, ONCE_RECORD_TTL_MS by default). */
  readonly onceTtlMs?: number;
  /** Reads a default branch's head, for a trigger that pins the revision of an issue; absent: none can be read. */
  readonly revisions?: RevisionReader;
  /** Which labels an update that sends them all added; absent: every label counts as added. */
  readonly seenLabels?: SeenLabels;
  /** receiver.confirmLabels: asks the forge for the target's labels before anything is held; absent: believes the payload. */
  readonly labels?: LabelReader;
}

/**
 * The labels last seen on a pull request whose forge sends them all at every update
 * (LabelEvent.labelsAreWholeSet): which of them an update added (all, when none were seen), and
 * remembering them once the delivery is handled.
 */
export interface SeenLabels {
  added(forge: Forge, target: string, labels: readonly string[]): Promise<string[]>;
  remember(forge: Forge, target: string, labels: readonly string[]): Promise<void>;
}

/** The forges' APIs, read only: the labels on an issue or pull request now (receiver/forges/revisions.ts). */
export interface LabelReader {
  currentLabels(forge: Forge, target: string): Promise<readonly string[]>;
}

/** The forges' APIs, read only (receiver/forges/revisions.ts). */
export interface RevisionReader {
  /** The commit at the head of the repository's default branch now; throws when it cannot be read. */
  defaultBranchHead(forge: Forge, repository: string): Promise<string>;
}

const INFLIGHT_MS = 60_000;
const LOCK_TTL_MS = 15_000;
/** Looks at the live HeldJobs again at most this often when the generation it chose was taken. */
const HOLD_ATTEMPTS = 3;
/** Counts a refusal again at most this often when its record changed under the count. */
const COUNT_ATTEMPTS = 8;
/**
 * Holds looked at by name upwards from the generation Valkey remembers, at most. Further
 * behind than this (its writes failing), the receiver lists them by label instead.
 */
const PROBE_LIMIT = 16;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Deliverer {
  constructor(private readonly deps: DelivererDeps) {}

  async deliver(delivered: LabelEvent): Promise<DeliveryResult> {
    const { view } = this.deps;
    const triggers = view.triggers();
    if (!triggers) throw new UnavailableError('no valid triggers file is loaded');
    const event = await this.onlyAdded(delivered);
    const result = await this.handle(event, triggers);
    // Once handled, what the pull request carries now is what its next update is told against.
    // Not before: a delivery answered 503 comes again, and must find its labels still new.
    if (delivered.labelsAreWholeSet && this.deps.seenLabels) {
      await this.deps.seenLabels.remember(delivered.forge, delivered.target, delivered.addedLabels).catch((err: unknown) => {
        this.deps.log.warn({ err }, 'Failed to remember the labels of a pull request');
      });
    }
    return result;
  }

  /** The event with only the labels it added, when its forge sent them all (LabelEvent.labelsAreWholeSet). */
  private async onlyAdded(event: LabelEvent): Promise<LabelEvent> {
    const seen = this.deps.seenLabels;
    if (!event.labelsAreWholeSet || !seen) return event;
    const added = await this.valkey(() => seen.added(event.forge, event.target, event.addedLabels));
    return { ...event, addedLabels: added };
  }

  private async handle(event: LabelEvent, triggers: readonly Trigger[]): Promise<DeliveryResult> {
    const { view, leases, keys } = this.deps;
    const planned = plan(event, triggers, view.profiles(), this.deps.now(), this.deps.afterMaxMs);
    if (planned.length === 0) return { outcome: 'ignored' };

    // The delivery's id and its signed body, claimed together in one round trip: the same body
    // under a new delivery id is a replay, or a forge's copy, and is dropped like a redelivery.
    const claim = await this.valkey(() =>
      leases.acquirePair(
        [keys.deliveryDedup(event.forge, event.deliveryId), keys.deliveryBodyDedup(event.forge, event.bodyHash)],
        INFLIGHT_MS,
      ),
    );
    if (!('taken' in claim)) return { outcome: 'duplicate' };
    const pair = claim.taken;
    try {
      const results: TriggerOutcome[] = [];
      const onTarget = await this.labelsOnTarget(event);
      for (const p of planned) {
        const confirmed = onTarget === undefined || p.trigger.on.any.some((l) => event.addedLabels.includes(l) && onTarget.has(l));
        results.push(confirmed ? await this.one(event, p) : { trigger: p.trigger.name, outcome: 'unconfirmed' });
      }
      // Settled, in one round trip: identical redeliveries are dropped for the dedup window, the
      // same body for a day.
      await this.valkey(() => leases.renewPair(pair, [DEDUP_WINDOW_MS, BODY_DEDUP_WINDOW_MS])).catch((err: unknown) => {
        this.deps.log.warn({ err }, 'Failed to settle delivery dedup marker');
      });
      return { outcome: 'handled', results };
    } catch (err) {
      // Not handled: let the forge's redelivery through.
      await leases.releasePair(pair).catch(() => undefined);
      throw err;
    }
  }

  /**
   * The labels on the target now, as its forge answers (receiver.confirmLabels), or undefined
   * when they are not asked for. A forge that cannot be asked defers the delivery (503).
   */
  private async labelsOnTarget(event: LabelEvent): Promise<ReadonlySet<string> | undefined> {
    const reader = this.deps.labels;
    if (!reader) return undefined;
    try {
      return new Set(await reader.currentLabels(event.forge, event.target));
    } catch (err) {
      throw new UnavailableError(`the labels of this target could not be confirmed with ${event.forge}`, { cause: err });
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
    const manifest = onceRecordManifest(event, trigger.name, namespace, heldJobName(event, trigger), this.deps.now(), this.deps.onceTtlMs);
    let claim = await this.deps.once.claim(manifest);
    if (!claim.created && onceRecordExpired(claim.expiresAt, this.deps.now())) {
      // Past its lifetime (#30): it spends nothing any more; gone, the trigger may fire once again.
      log.info({ record: manifest.metadata.name, expiresAt: claim.expiresAt }, 'Deleted expired once record');
      await this.deps.once.expire(namespace, manifest.metadata.name, claim.uid);
      claim = await this.deps.once.claim(manifest);
    }
    if (!claim.created) {
      const decision = decideOnce(claim.spec, event);
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
    const { trigger } = planned;
    const { history, log } = this.deps;
    // A once trigger fires at most once per target: its hold is named by the delivery. Every
    // other trigger without conditions is bounded like one with them (receiver/delivery/concurrency.ts).
    if (trigger.on.once === true && (trigger.run.waitFor ?? []).length === 0) return this.record(event, trigger);
    // Deliveries of one trigger for one target take turns, which keeps them from racing for
    // the same hold, or for the same count on a refusal record; the lock is not what keeps two
    // holds apart (it may run out mid-create), the hold's name is, and a count is written only
    // onto the version of the record it was counted from. What Valkey remembers comes with the
    // lock, and the generation of a hold made goes back with it: two round trips in all.
    const { lock, remembered } = await this.lock(trigger.name, event.target);
    let admitted: Admitted;
    try {
      admitted = await this.admit(event, planned, remembered);
    } catch (err) {
      await history.unlock(lock).catch(() => undefined);
      throw err;
    }
    const { generation } = admitted;
    await this.valkey(() => history.unlock(lock, generation)).catch((err: unknown) => {
      // The hold stands; the next delivery finds it by its name or by its labels.
      if (generation !== undefined) log.warn({ err }, 'Failed to remember hold generation');
    });
    return admitted.outcome;
  }

  /**
   * A trigger with conditions: its hold, its own earlier record, or a refusal (one at the door,
   * or wait-superseded) counted on its record. `remembered` is what Valkey remembered as the
   * lock was taken; a look after the first reads it again. A hold made comes back with its
   * generation, for Valkey to remember as the lock is given back.
   */
  private async admit(event: LabelEvent, planned: PlannedTrigger, remembered: Remembered): Promise<Admitted> {
    const { trigger, verdict } = planned;
    const { namespace, records, log } = this.deps;
    let tried: string | undefined;
    for (let attempt = 1; attempt <= HOLD_ATTEMPTS; attempt++) {
      const bounded = (trigger.run.waitFor ?? []).length === 0;
      const looked = await this.look(event, trigger.name, verdict.kind === 'hold', attempt === 1 ? remembered : undefined, bounded);
      const { live } = looked;
      if (verdict.kind === 'refuse') {
        // Refused at the door, unless an earlier handling of this delivery recorded something else.
        const own = live.find((r) => isOwnRecord(r, event));
        return {
          outcome: own
            ? earlier(trigger.name, recordedOutcome(own))
            : await this.refuse(event, trigger.name, { token: verdict.token, message: verdict.message }, live),
        };
      }
      const decision = bounded
        ? decideBounded(event, trigger.name, live, looked.remembered)
        : decideHold(event, trigger.name, live, looked.remembered, this.deps.now());
      switch (decision.kind) {
        case 'recorded':
          // What an earlier handling left unmarked (it stopped between the create and the marks).
          if (decision.recorded.outcome === 'held' && decision.supersedes && decision.supersedes.length > 0) {
            await this.supersede(event, trigger.name, decision.supersedes, decision.recorded.heldJob, live);
          }
          // The hold this handling just tried to create is there: its create landed, the answer was lost.
          return {
            outcome:
              decision.recorded.heldJob === tried
                ? { ...decision.recorded, trigger: trigger.name }
                : earlier(trigger.name, decision.recorded),
          };
        case 'superseded':
          return {
            outcome: await this.refuse(event, trigger.name, { token: RefusalToken.Superseded, message: decision.message }, live),
          };
        case 'hold': {
          const manifest = heldJobManifest(event, trigger, namespace, decision.generation, await this.revisionFor(event, trigger));
          tried = manifest.metadata.name;
          if ((await records.create(manifest)) === 'existed') {
            // Another delivery created that hold first (or this one did, its answer lost): look again.
            log.debug({ heldjob: manifest.metadata.name, attempt }, 'Found hold generation taken');
            continue;
          }
          if (decision.supersedes && decision.supersedes.length > 0) {
            await this.supersede(event, trigger.name, decision.supersedes, manifest.metadata.name, live);
          }
          return { outcome: { trigger: trigger.name, outcome: 'held', heldJob: manifest.metadata.name }, generation: decision.generation };
        }
      }
    }
    throw new UnavailableError(`the holds of trigger ${trigger.name} for this target changed under every look`);
  }

  /**
   * The HeldJobs of this trigger and target in the delivery's way, read from the apiserver
   * itself, each by its name: the holds from the generation Valkey remembers upwards, and the
   * refusal records. Nothing is listed, so a target's thousandth delivery costs what its first
   * did. A hold found there is this namespace's latest: it was made only once nothing older
   * stood in its way, and nothing older can stand in the way again.
   *
   * A delivery that may hold lists the HeldJobs of the trigger and target by label instead
   * when the names say nothing: Valkey remembers no generation (never a hold, or its memory
   * gone), or remembers one whose hold is not here (deleted at its time to live or by hand, or
   * handed out by another install sharing the Valkey prefix), or the holds go on past the
   * probe's limit. A live hold must not be missed. Valkey then remembers the highest generation
   * found, so the next delivery reads by name again. A delivery refused at the door never lists.
   *
   * `known` is what Valkey remembered as the lock was taken (the first look); without it,
   * Valkey is read again.
   */
  private async look(
    event: LabelEvent,
    trigger: string,
    mayHold: boolean,
    known?: Remembered,
    /**
     * A trigger without conditions: the holds before the remembered one may still run beside
     * it, or wait for the operator to end them as superseded (BOUNDED_LOOK_BACK of them).
     */
    bounded = false,
  ): Promise<{ remembered: Remembered; live: HeldJobObject[] }> {
    const { history, log } = this.deps;
    // Valkey first, then the apiserver: the live set is never older than the marker it checks.
    const remembered = known ?? (await this.valkey(() => history.recall(trigger, event.target)));
    const from = remembered.generation;
    const [holds, refusals] = await Promise.all([
      from === undefined ? Promise.resolve(undefined) : this.holdsFrom(event.target, trigger, from, bounded ? BOUNDED_LOOK_BACK : 0),
      this.refusalRecords(event, trigger),
    ]);
    const unknown = from === undefined || holds === undefined || (holds.length === 0 && from >= 1);
    if (!unknown) {
      const found = Math.max(0, ...holds.map(generationOf));
      if (found > from) {
        // Valkey is behind (a write of it failed): catch it up, so the next look starts there.
        await this.valkey(() => history.handedOut(trigger, event.target, found)).catch(() => undefined);
      }
      return { remembered, live: [...holds, ...refusals] };
    }
    if (!mayHold) return { remembered, live: [...(holds ?? []), ...refusals] };
    const live = await this.deps.records.liveFor(this.deps.namespace, siblingSelector(trigger, event.target));
    const found = Math.max(0, ...live.map(generationOf));
    await this.valkey(() => history.handedOut(trigger, event.target, found)).catch((err: unknown) => {
      log.warn({ err }, 'Failed to remember hold generation');
    });
    return { remembered, live };
  }

  /**
   * The holds of the generation Valkey remembers and upwards, read by name while there is one
   * more; undefined when they go on past the probe's limit.
   */
  private async holdsFrom(target: string, trigger: string, from: number, back: number): Promise<HeldJobObject[] | undefined> {
    const { records, namespace } = this.deps;
    // The `back` generations below, each read by name: one deleted leaves a gap, never a stop.
    const below = Array.from({ length: Math.min(back, Math.max(0, from - 1)) }, (_x, i) => from - 1 - i);
    const older = await Promise.all(below.map((g) => records.get(namespace, holdName(target, trigger, g))));
    const found: HeldJobObject[] = older.filter((h): h is HeldJobObject => h !== undefined).reverse();
    let generations = holdCandidates(from);
    while (generations.length > 0) {
      const got = await Promise.all(generations.map((g) => records.get(namespace, holdName(target, trigger, g))));
      for (const hj of got) if (hj) found.push(hj);
      const top = generations[generations.length - 1] as number;
      if (got[got.length - 1] === undefined) return found;
      if (top - from >= PROBE_LIMIT) return undefined;
      generations = [top + 1];
    }
    return found;
  }

  /** The refusal records of this trigger and target, one GET per token the receiver records. */
  private async refusalRecords(event: LabelEvent, trigger: string): Promise<HeldJobObject[]> {
    const { records, namespace } = this.deps;
    const got = await Promise.all(
      RECORDED_REFUSALS.map((token) => records.get(namespace, refusalRecordName(event.target, trigger, token))),
    );
    return got.filter((r): r is HeldJobObject => r !== undefined);
  }

  /**
   * Counts this delivery's refusal on the record of its trigger, target and token (`live` has
   * it when it is there), creating the record at its first refusal; the create alone writes the
   * Refused status. A count is written only onto the version it was counted from, so two
   * receivers counting at once both count. A delivery the record has counted already (an
   * earlier handling of it) is reported as such, and nothing is written.
   */
  private async refuse(event: LabelEvent, trigger: string, refusal: Refusal, live: readonly HeldJobObject[]): Promise<TriggerOutcome> {
    const { namespace, records, log } = this.deps;
    const name = refusalRecordName(event.target, trigger, refusal.token);
    const refused: TriggerOutcome = { trigger, outcome: 'refused', token: refusal.token, heldJob: name };
    let record = live.find((r) => r.metadata.name === name);
    // Whether this handling has sent a write of its own: its count found on the record then is its own.
    let wrote = false;
    for (let attempt = 1; attempt <= COUNT_ATTEMPTS; attempt++) {
      if (!record) {
        wrote = true;
        const manifest = refusalRecordManifest(event, trigger, refusal, namespace, this.deps.now());
        if ((await records.create(manifest)) === 'created') {
          await records.markRefused(namespace, name, refusal, this.deps.now()).catch((err: unknown) => {
            log.warn({ err, heldjob: name }, 'Failed to write refusal status; the operator will');
          });
          return refused;
        }
        // Another delivery created it first: count on it.
        record = await records.get(namespace, name);
        if (!record) continue;
      }
      if (record.metadata.annotations?.[Annotations.refusal] !== refusal.token) {
        // A HeldJob under the record's name that is not the record (made by hand): never count onto it.
        log.warn({ heldjob: name }, 'Found a HeldJob that is not a refusal record under its name; counted nothing on it');
        return refused;
      }
      const tally = tallyOf(record);
      if (hasCounted(tally, event.forge, event.deliveryId)) return wrote ? refused : earlier(trigger, recordedOutcome(record));
      wrote = true;
      const annotations = {
        ...tallyAnnotations(countRefusal(tally, event.forge, event.deliveryId, this.deps.now())),
        [Annotations.refusalMessage]: refusal.message,
      };
      switch (await records.annotate(namespace, name, record.metadata.resourceVersion, annotations)) {
        case 'written':
          return refused;
        case 'conflict':
          log.debug({ heldjob: name, attempt }, 'Found refusal record changed under the count');
          record = await records.get(namespace, name);
          break;
        case 'gone':
          // Deleted at its time to live meanwhile: this refusal starts a new record.
          record = undefined;
          break;
      }
    }
    throw new UnavailableError(`the refusal record ${name} changed under every count`);
  }

  /**
   * The newest pending wins (receiver/delivery/concurrency.ts): each pending hold that `by`
   * replaces is marked superseded by `by`, for the operator to end, and its delivery is counted
   * on the wait-superseded record. Counted only once marked: a hold that changed meanwhile is
   * read again, and one that has started is left alone and not counted (its Job runs). A
   * handling that stops between the two leaves the hold to end with its own Refused status and
   * Event; its next handling counts it if it is still there (a count knows its deliveries).
   */
  private async supersede(
    event: LabelEvent,
    trigger: string,
    pending: readonly HeldJobObject[],
    by: string,
    live: readonly HeldJobObject[],
  ): Promise<void> {
    const { namespace, records, log } = this.deps;
    const refusal = { token: RefusalToken.Superseded, message: `superseded by HeldJob ${by}, made by a newer delivery` };
    for (const hold of pending) {
      let current: HeldJobObject | undefined = hold;
      let marked = false;
      for (let attempt = 1; current !== undefined && attempt <= COUNT_ATTEMPTS; attempt++) {
        if (current.metadata.annotations?.[Annotations.supersededBy] === by) {
          marked = true;
          break;
        }
        if (started(current) || isTerminal(current.status?.phase) || current.metadata.annotations?.[Annotations.supersededBy] !== undefined)
          break;
        const name = current.metadata.name;
        const written = await records.annotate(namespace, name, current.metadata.resourceVersion, { [Annotations.supersededBy]: by });
        if (written === 'written') {
          log.info({ heldjob: name, by }, 'Marked pending hold superseded');
          marked = true;
        }
        if (written !== 'conflict') break;
        current = await records.get(namespace, name);
      }
      const delivery = hold.metadata.annotations?.[Annotations.delivery];
      const forge = hold.metadata.labels?.[Labels.forge];
      if (marked && delivery !== undefined && isForge(forge)) {
        await this.refuse({ ...event, forge, deliveryId: delivery }, trigger, refusal, live);
      }
    }
  }

  /**
   * The revision a hold of a trigger that pins it records: the head of a pull or merge request
   * as the payload gave it, else the head of the default branch read from the forge now. A hold
   * that should be pinned is never made unpinned: when the head cannot be read, the delivery is
   * answered 503 and nothing is created, as when the apiserver is down; it holds when it comes again.
   */
  private async revisionFor(event: LabelEvent, trigger: Trigger): Promise<string | undefined> {
    if (trigger.run.pinRevision !== true) return undefined;
    if (event.revision) return event.revision;
    const repository = targetParts(event.target)?.repository;
    if (!this.deps.revisions || repository === undefined) {
      throw new UnavailableError(`trigger ${trigger.name} pins the revision, and no ${event.forge} API token is configured to read it`);
    }
    try {
      return await this.deps.revisions.defaultBranchHead(event.forge, repository);
    } catch (err) {
      throw new UnavailableError(`trigger ${trigger.name} pins the revision, which could not be read from ${event.forge}`, { cause: err });
    }
  }

  /**
   * Creates the hold of a trigger without conditions, named by the delivery. When the name is
   * taken, an earlier handling of this delivery made it.
   */
  private async record(event: LabelEvent, trigger: Trigger): Promise<TriggerOutcome> {
    const { namespace, records } = this.deps;
    const manifest = heldJobManifest(event, trigger, namespace, undefined, await this.revisionFor(event, trigger));
    const name = manifest.metadata.name;
    const intended: TriggerOutcome = { trigger: trigger.name, outcome: 'held', heldJob: name };
    if ((await records.create(manifest)) === 'existed') {
      const own = await records.get(namespace, name);
      return own ? earlier(trigger.name, recordedOutcome(own)) : { ...intended, recordedEarlier: true };
    }
    return intended;
  }

  /** The lock of a trigger and target, with what Valkey remembered as it was taken; waits its turn. */
  private async lock(trigger: string, target: string): Promise<{ lock: HoldLock; remembered: Remembered }> {
    const deadline = this.deps.now() + (this.deps.lockWaitMs ?? 10_000);
    for (;;) {
      const taken = await this.valkey(() => this.deps.history.lockAndRecall(trigger, target, LOCK_TTL_MS));
      if (taken) return taken;
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

/** What admit came to, and the generation of the hold it made, if it made one. */
interface Admitted {
  readonly outcome: TriggerOutcome;
  readonly generation?: number;
}

function earlier(trigger: string, recorded: RecordedOutcome): TriggerOutcome {
  return { ...recorded, trigger, recordedEarlier: true };
}
