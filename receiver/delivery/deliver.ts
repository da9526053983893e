// One delivery, from a verified and parsed label event to exactly one recorded outcome per
// trigger it fires: a HeldJob that holds, or a HeldJob that records a refusal.
import type { Logger } from 'pino';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import type { DeclaredProfiles, Refusal } from '../../api/refusal-rules.js';
import type { Trigger } from '../../api/triggers/triggers-file.js';
import { RefusalToken } from '../../api/vocabulary.js';
import type { ValkeyKeys } from '../../lib/valkey/keys.js';
import type { LabelEvent } from '../forges/event.js';
import {
  DEDUP_WINDOW_MS,
  heldJobManifest,
  plan,
  siblingSelector,
  supersededBy,
  type HeldJobManifest,
  type PlannedTrigger,
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
  /** Writes phase Refused with the token, as of `now` (best effort: the operator converges too). */
  markRefused(namespace: string, name: string, refusal: Refusal, now: number): Promise<void>;
  /** HeldJobs of one trigger and target, read from the apiserver itself, not a cache. */
  liveFor(namespace: string, labelSelector: string): Promise<HeldJobObject[]>;
}

export interface LeaseStore {
  acquire(key: string, ttlMs: number): Promise<{ key: string; token: string } | undefined>;
  renew(lease: { key: string; token: string }, ttlMs: number): Promise<boolean>;
  release(lease: { key: string; token: string }): Promise<boolean>;
}

/** Something the receiver needs is down; the forge should deliver again later (503). */
export class UnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UnavailableError';
  }
}

export type TriggerOutcome =
  | { readonly trigger: string; readonly outcome: 'held'; readonly heldJob: string }
  | { readonly trigger: string; readonly outcome: 'refused'; readonly token: RefusalToken; readonly heldJob: string };

export type DeliveryResult =
  | { readonly outcome: 'ignored' }
  | { readonly outcome: 'duplicate' }
  | { readonly outcome: 'handled'; readonly results: readonly TriggerOutcome[] };

export interface DelivererDeps {
  readonly view: TriggerView;
  readonly records: HeldJobRecords;
  readonly leases: LeaseStore;
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
    try {
      const results: TriggerOutcome[] = [];
      for (const p of planned) results.push(await this.one(event, p));
      // Settled: identical redeliveries are dropped for the dedup window.
      await this.valkey(() => leases.renew(inflight, DEDUP_WINDOW_MS)).catch((err: unknown) => {
        this.deps.log.warn({ err }, 'Failed to settle delivery dedup marker');
      });
      return { outcome: 'handled', results };
    } catch (err) {
      // Not handled: let the forge's redelivery through.
      await leases.release(inflight).catch(() => undefined);
      throw err;
    }
  }

  private async one(event: LabelEvent, planned: PlannedTrigger): Promise<TriggerOutcome> {
    const { trigger, verdict } = planned;
    if (verdict.kind === 'refuse') return this.refuse(event, planned, verdict.token, verdict.message);
    const waits = (trigger.run.waitFor ?? []).length > 0;
    if (!waits) return this.hold(event, planned);

    // Deliveries of one trigger for one target are serialised, then checked against the
    // live HeldJobs, so racing deliveries make one hold and a stale marker refuses nothing.
    const lock = await this.lock(this.deps.keys.holdLock(trigger.name, event.target));
    try {
      const live = await this.deps.records.liveFor(this.deps.namespace, siblingSelector(trigger.name, event.target));
      const by = supersededBy(live, this.deps.now());
      if (by) {
        const refusal = {
          kind: 'refuse' as const,
          token: RefusalToken.Superseded,
          message: `HeldJob ${by} already holds ${trigger.name} for this target`,
        };
        return await this.refuse(event, { trigger, verdict: refusal }, refusal.token, refusal.message);
      }
      return await this.hold(event, planned);
    } finally {
      await this.deps.leases.release(lock).catch(() => undefined);
    }
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

  private async hold(event: LabelEvent, planned: PlannedTrigger): Promise<TriggerOutcome> {
    const manifest = heldJobManifest(event, planned, this.deps.namespace);
    await this.deps.records.create(manifest);
    return { trigger: planned.trigger.name, outcome: 'held', heldJob: manifest.metadata.name };
  }

  private async refuse(event: LabelEvent, planned: PlannedTrigger, token: RefusalToken, message: string): Promise<TriggerOutcome> {
    const manifest = heldJobManifest(event, planned, this.deps.namespace);
    await this.deps.records.create(manifest);
    await this.deps.records
      .markRefused(this.deps.namespace, manifest.metadata.name, { token, message }, this.deps.now())
      .catch((err: unknown) => {
        this.deps.log.warn({ err, heldjob: manifest.metadata.name }, 'Failed to write refusal status; the operator will');
      });
    return { trigger: planned.trigger.name, outcome: 'refused', token, heldJob: manifest.metadata.name };
  }

  private async valkey<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      throw new UnavailableError('Valkey is unavailable', { cause: err });
    }
  }
}
