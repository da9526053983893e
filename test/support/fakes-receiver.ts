// In-memory fakes of the receiver's ports (receiver/delivery/deliver.ts: TriggerView,
// HeldJobRecords, LeaseStore, HoldHistory) and builders for what flows through them, for unit tests of
// the Deliverer. Each fake keeps what was asked of it, so a test can say what happened.
import type { Logger } from 'pino';
import type { HeldJobObject, HeldJobStatus } from '../../api/heldjob-schema.js';
import { refusedStatus, type DeclaredProfiles, type Refusal } from '../../api/refusal-rules.js';
import type { Trigger } from '../../api/triggers/triggers-file.js';
import { Labels } from '../../api/vocabulary.js';
import { shortHash } from '../../lib/hash.js';
import type { ValkeyKeys } from '../../lib/valkey/keys.js';
import type { HeldJobRecords, HoldHistory, HoldLock, LeaseStore, OnceRecords, TriggerView } from '../../receiver/delivery/deliver.js';
import type { LeasePair, PairAcquire } from '../../lib/valkey/leases.js';
import type { OnceRecordManifest } from '../../receiver/delivery/once.js';
import type { LabelEvent } from '../../receiver/forges/event.js';
import type { HeldJobManifest, Remembered } from '../../receiver/delivery/plan.js';

// --- builders ---------------------------------------------------------------------------------

/**
 * A GitHub label event: `deploy` added to acme/web#7, delivery d-1. Each delivery id has a
 * body of its own (its hash `body-of-<id>`) unless the test gives one.
 */
export function labelEvent(over: Partial<LabelEvent> = {}): LabelEvent {
  const deliveryId = over.deliveryId ?? 'd-1';
  return {
    forge: 'github',
    deliveryId,
    bodyHash: `body-of-${deliveryId}`,
    target: 'acme/web#7',
    kind: 'issue',
    addedLabels: ['deploy'],
    ...over,
  };
}

/** A label trigger `deploy` on the label `deploy`, for GitHub, with the given conditions. */
export function labelTrigger(
  over: { name?: string; labels?: string[]; kind?: string; waitFor?: Trigger['run']['waitFor']; pinRevision?: boolean } = {},
): Trigger {
  return {
    name: over.name ?? 'deploy',
    on: { type: 'label', any: over.labels ?? ['deploy'] },
    run: {
      kind: over.kind ?? 'github',
      flow: 'deploy',
      job: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'deploy', image: 'busybox' }] } } },
      ...(over.waitFor ? { waitFor: over.waitFor } : {}),
      ...(over.pinRevision === undefined ? {} : { pinRevision: over.pinRevision }),
    },
  };
}

export const profilesDeclaring = (...names: string[]): DeclaredProfiles => ({ state: 'ok', names: new Set(names) });
export const UNREADABLE_PROFILES: DeclaredProfiles = { state: 'unreadable' };

/**
 * A HeldJob already on the apiserver for one trigger and target, labelled as the receiver
 * labels them, with the given status (none: just created).
 */
export function siblingHeldJob(
  name: string,
  over: { trigger?: string; target?: string; status?: HeldJobStatus; annotations?: Record<string, string> } = {},
): HeldJobObject {
  return {
    metadata: {
      name,
      namespace: 'jobs',
      uid: `uid-${name}`,
      labels: {
        [Labels.triggerHash]: shortHash(over.trigger ?? 'deploy'),
        [Labels.targetHash]: shortHash(over.target ?? 'acme/web#7'),
        [Labels.forge]: 'github',
      },
      ...(over.annotations ? { annotations: over.annotations } : {}),
    },
    ...(over.status ? { status: over.status } : {}),
  };
}

// --- fakes -----------------------------------------------------------------------------------

export class FakeTriggerView implements TriggerView {
  constructor(
    /** undefined: no valid triggers file is loaded. */
    public loaded: readonly Trigger[] | undefined,
    public declared: DeclaredProfiles = { state: 'ok', names: new Set() },
  ) {}

  triggers(): readonly Trigger[] | undefined {
    return this.loaded;
  }

  profiles(): DeclaredProfiles {
    return this.declared;
  }
}

export interface MarkedRefused {
  readonly namespace: string;
  readonly name: string;
  readonly refusal: Refusal;
  readonly now: number;
}

export interface Annotated {
  readonly name: string;
  readonly resourceVersion: string | undefined;
  readonly annotations: Record<string, string>;
}

/**
 * HeldJobs in memory. What is created becomes live for later deliveries (with no status yet,
 * as on the apiserver until the operator writes one); a refusal status written lands on the
 * object. Every write gives the object a new resourceVersion, and an annotate sent from an
 * older one meets a conflict, as on the apiserver. `failCreate` / `failMarkRefused` make
 * those calls reject with the given error, and `failCreateOf` the creates of the manifests it
 * picks. `beforeCreate` runs while a create is in flight, before the apiserver has it: what it
 * does happens first, as when a create stalls; `beforeAnnotate` the same for an annotate.
 */
export class FakeHeldJobRecords implements HeldJobRecords {
  readonly created: HeldJobManifest[] = [];
  readonly marked: MarkedRefused[] = [];
  /** Label selectors listed: one per LIST call. */
  readonly selectors: string[] = [];
  /** Names read one by one: one per GET call. */
  readonly gets: string[] = [];
  readonly annotated: Annotated[] = [];
  failCreate: Error | undefined = undefined;
  failCreateOf: (manifest: HeldJobManifest) => Error | undefined = () => undefined;
  failMarkRefused: Error | undefined = undefined;
  beforeCreate: ((manifest: HeldJobManifest) => Promise<void>) | undefined = undefined;
  beforeAnnotate: ((name: string) => Promise<void>) | undefined = undefined;
  private readonly objects: HeldJobObject[];
  private versions = 0;

  constructor(existing: readonly HeldJobObject[] = []) {
    this.objects = existing.map((o) => this.versioned(o));
  }

  private versioned(o: HeldJobObject): HeldJobObject {
    return { ...o, metadata: { ...o.metadata, resourceVersion: String(++this.versions) } };
  }

  /** Puts a HeldJob there, as another writer would. */
  put(o: HeldJobObject): void {
    this.objects.push(this.versioned(o));
  }

  /** Sets annotations of a HeldJob there, as another writer would (a new resourceVersion). */
  touch(name: string, annotations: Record<string, string>): void {
    const i = this.objects.findIndex((o) => o.metadata.name === name);
    const o = this.objects[i];
    if (o)
      this.objects[i] = this.versioned({ ...o, metadata: { ...o.metadata, annotations: { ...o.metadata.annotations, ...annotations } } });
  }

  /** Deletes a HeldJob, as kubectl delete would. */
  remove(name: string): void {
    const i = this.objects.findIndex((o) => o.metadata.name === name);
    if (i >= 0) this.objects.splice(i, 1);
  }

  /** The HeldJobs there now. */
  get live(): readonly HeldJobObject[] {
    return this.objects;
  }

  async create(manifest: HeldJobManifest): Promise<'created' | 'existed'> {
    if (this.failCreate !== undefined) throw this.failCreate;
    const failure = this.failCreateOf(manifest);
    if (failure !== undefined) throw failure;
    if (this.beforeCreate) await this.beforeCreate(manifest);
    const { name, namespace, labels, annotations } = manifest.metadata;
    if (this.objects.some((o) => o.metadata.name === name && o.metadata.namespace === namespace)) return 'existed';
    this.created.push(manifest);
    this.objects.push(
      this.versioned({
        metadata: { name, namespace, uid: `uid-${name}`, labels: { ...labels }, annotations: { ...annotations } },
        spec: structuredClone(manifest.spec),
      }),
    );
    return 'created';
  }

  async markRefused(namespace: string, name: string, refusal: Refusal, now: number): Promise<void> {
    if (this.failMarkRefused !== undefined) throw this.failMarkRefused;
    this.marked.push({ namespace, name, refusal, now });
    const i = this.objects.findIndex((x) => x.metadata.name === name && x.metadata.namespace === namespace);
    const o = this.objects[i];
    if (o) this.objects[i] = this.versioned({ ...o, status: refusedStatus(o.status ?? {}, refusal, now, 1) });
  }

  async get(namespace: string, name: string): Promise<HeldJobObject | undefined> {
    this.gets.push(name);
    const o = this.objects.find((x) => x.metadata.name === name && x.metadata.namespace === namespace);
    return o ? structuredClone(o) : undefined;
  }

  async annotate(
    namespace: string,
    name: string,
    resourceVersion: string | undefined,
    annotations: Record<string, string>,
  ): Promise<'written' | 'conflict' | 'gone'> {
    if (this.beforeAnnotate) await this.beforeAnnotate(name);
    const i = this.objects.findIndex((x) => x.metadata.name === name && x.metadata.namespace === namespace);
    const o = this.objects[i];
    if (!o) return 'gone';
    if (resourceVersion !== undefined && o.metadata.resourceVersion !== resourceVersion) return 'conflict';
    this.annotated.push({ name, resourceVersion, annotations });
    this.objects[i] = this.versioned({ ...o, metadata: { ...o.metadata, annotations: { ...o.metadata.annotations, ...annotations } } });
    return 'written';
  }

  /** What the operator writes: a status on one HeldJob, as a new version of it. */
  setStatus(namespace: string, name: string, status: HeldJobObject['status']): void {
    const i = this.objects.findIndex((x) => x.metadata.name === name && x.metadata.namespace === namespace);
    const o = this.objects[i];
    if (o) this.objects[i] = this.versioned({ ...o, ...(status ? { status } : {}) });
  }

  async liveFor(namespace: string, labelSelector: string): Promise<HeldJobObject[]> {
    this.selectors.push(labelSelector);
    const wanted = labelSelector.split(',').map((kv) => kv.split('=') as [string, string]);
    return this.objects.filter((o) => o.metadata.namespace === namespace && wanted.every(([k, v]) => o.metadata.labels?.[k] === v));
  }
}

/**
 * Once records in memory, as OnceRecords by name. `failMarkFired` makes markFired reject;
 * `beforeClaim` runs while a claim is in flight, before the apiserver has it.
 */
export class FakeOnceRecords implements OnceRecords {
  readonly records = new Map<string, Record<string, unknown>>();
  readonly claims: OnceRecordManifest[] = [];
  failMarkFired: Error | undefined = undefined;
  beforeClaim: ((manifest: OnceRecordManifest) => Promise<void>) | undefined = undefined;

  /** The expiry of each record (its waitgate.dev/expires-at), by namespace/name. */
  readonly expiries = new Map<string, string>();
  readonly expired: string[] = [];

  async claim(
    manifest: OnceRecordManifest,
  ): Promise<{ created: true } | { created: false; spec: Record<string, unknown> | undefined; expiresAt?: string; uid?: string }> {
    this.claims.push(manifest);
    if (this.beforeClaim) await this.beforeClaim(manifest);
    const key = `${manifest.metadata.namespace}/${manifest.metadata.name}`;
    const there = this.records.get(key);
    const expiresAt = this.expiries.get(key);
    if (there) return { created: false, spec: { ...there }, ...(expiresAt ? { expiresAt } : {}), uid: `uid-${key}` };
    this.records.set(key, { ...manifest.spec });
    const own = manifest.metadata.annotations['waitgate.dev/expires-at'];
    if (own) this.expiries.set(key, own);
    return { created: true };
  }

  async expire(namespace: string, name: string, uid: string | undefined): Promise<void> {
    const key = `${namespace}/${name}`;
    if (uid !== `uid-${key}`) return;
    this.expired.push(key);
    this.records.delete(key);
    this.expiries.delete(key);
  }

  async markFired(namespace: string, name: string): Promise<void> {
    if (this.failMarkFired !== undefined) throw this.failMarkFired;
    const r = this.records.get(`${namespace}/${name}`);
    if (r) r['state'] = 'fired';
  }
}

/** The HeldJob a trigger's outcome names, if it names one. */
export function heldJobOf(outcome: object | undefined): string | undefined {
  return outcome && 'heldJob' in outcome && typeof outcome.heldJob === 'string' ? outcome.heldJob : undefined;
}

/**
 * Token leases in memory, on the test's clock: the delivery dedup markers, and the hold locks
 * FakeHoldHistory takes here (each a lease, as in Valkey). `down` makes every call reject, as
 * an unreachable Valkey does; `failAcquire` only the acquires of the keys it picks.
 */
export class FakeLeaseStore implements LeaseStore {
  /** Every key asked for, in order, whether or not it was granted. */
  readonly asked: string[] = [];
  readonly released: string[] = [];
  down = false;
  failAcquire: (key: string) => boolean = () => false;
  private readonly held = new Map<string, { token: string; expiresAt: number }>();
  private tokens = 0;

  constructor(private readonly now: () => number) {}

  /** Someone else holds `key` (another receiver replica, an earlier delivery). */
  takenElsewhere(key: string, ttlMs = 60_000): void {
    this.held.set(key, { token: 'elsewhere', expiresAt: this.now() + ttlMs });
  }

  /** Whoever holds `key` gives it back, as another receiver replica would. */
  releaseElsewhere(key: string): void {
    this.held.delete(key);
  }

  /** The remaining time of `key`'s lease, or undefined when nobody holds it. */
  ttlOf(key: string): number | undefined {
    const l = this.held.get(key);
    return l && l.expiresAt > this.now() ? l.expiresAt - this.now() : undefined;
  }

  async acquire(key: string, ttlMs: number): Promise<{ key: string; token: string } | undefined> {
    this.asked.push(key);
    if (this.down || this.failAcquire(key)) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    if (this.ttlOf(key) !== undefined) return undefined;
    const token = `t${++this.tokens}`;
    this.held.set(key, { token, expiresAt: this.now() + ttlMs });
    return { key, token };
  }

  async renew(lease: { key: string; token: string }, ttlMs: number): Promise<boolean> {
    if (this.down) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    const l = this.held.get(lease.key);
    if (!l || l.token !== lease.token) return false;
    l.expiresAt = this.now() + ttlMs;
    return true;
  }

  async release(lease: { key: string; token: string }): Promise<boolean> {
    if (this.down) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    const l = this.held.get(lease.key);
    if (!l || l.token !== lease.token) return false;
    this.held.delete(lease.key);
    this.released.push(lease.key);
    return true;
  }

  /** As acquireLeases-2.lua: both or neither, the first key looked at first. */
  async acquirePair(keys: readonly [string, string], ttlMs: number): Promise<PairAcquire> {
    this.asked.push(...keys);
    if (this.down || keys.some((k) => this.failAcquire(k))) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    if (this.ttlOf(keys[0]) !== undefined) return { held: 'first' };
    if (this.ttlOf(keys[1]) !== undefined) return { held: 'second' };
    const token = `t${++this.tokens}`;
    for (const key of keys) this.held.set(key, { token, expiresAt: this.now() + ttlMs });
    return { taken: { keys, token } };
  }

  async renewPair(pair: LeasePair, ttlMs: readonly [number, number]): Promise<number> {
    let n = 0;
    for (const [i, key] of pair.keys.entries()) if (await this.renew({ key, token: pair.token }, ttlMs[i] as number)) n++;
    return n;
  }

  async releasePair(pair: LeasePair): Promise<number> {
    let n = 0;
    for (const key of pair.keys) if (await this.release({ key, token: pair.token })) n++;
    return n;
  }
}

/**
 * What Valkey remembers of holds, in memory: the launch markers (as the operator leaves them)
 * and the highest generation handed out, by trigger and target (none until one is handed out,
 * 0 included). The hold locks are leases under their Valkey keys in `leases`, so a test finds
 * them there beside the dedup markers (`asked`, `released`, `takenElsewhere`), and a lock held
 * there refuses lockAndRecall, which then reads nothing, as lockHold-3.lua. `down` makes every
 * call reject, and `failUnlock` unlock only; `forget()` loses everything, as a restart does.
 * `calls` names each call, in order.
 */
export class FakeHoldHistory implements HoldHistory {
  readonly launched = new Map<string, string>();
  readonly generations = new Map<string, number>();
  readonly calls: ('lockAndRecall' | 'unlock' | 'recall' | 'handedOut')[] = [];
  /** The generation each unlock was given (undefined: none). */
  readonly unlocked: (number | undefined)[] = [];
  down = false;
  failUnlock = false;

  constructor(
    private readonly leases: FakeLeaseStore,
    private readonly keys: ValkeyKeys,
  ) {}

  async lockAndRecall(trigger: string, target: string, ttlMs: number): Promise<{ lock: HoldLock; remembered: Remembered } | undefined> {
    this.calls.push('lockAndRecall');
    if (this.down) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    const lease = await this.leases.acquire(this.keys.holdLock(trigger, target), ttlMs);
    if (!lease) return undefined;
    return { lock: { trigger, target, token: lease.token }, remembered: this.remembered(trigger, target) };
  }

  /** As unlockHold-2.lua: the lock only with its token; the generation given, either way. */
  async unlock(lock: HoldLock, generation?: number): Promise<boolean> {
    this.calls.push('unlock');
    if (this.down || this.failUnlock) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    this.unlocked.push(generation);
    const released = await this.leases.release({ key: this.keys.holdLock(lock.trigger, lock.target), token: lock.token });
    if (generation !== undefined) this.raise(lock.trigger, lock.target, generation);
    return released;
  }

  /** The operator launched `heldJob` (it left its marker). */
  leaveMarker(trigger: string, target: string, heldJob: string): void {
    this.launched.set(`${trigger}\n${target}`, heldJob);
  }

  async recall(trigger: string, target: string): Promise<Remembered> {
    this.calls.push('recall');
    if (this.down) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    return this.remembered(trigger, target);
  }

  private remembered(trigger: string, target: string): Remembered {
    const key = `${trigger}\n${target}`;
    return { launched: this.launched.get(key), generation: this.generations.get(key) };
  }

  forget(): void {
    this.launched.clear();
    this.generations.clear();
  }

  async handedOut(trigger: string, target: string, generation: number): Promise<void> {
    this.calls.push('handedOut');
    if (this.down) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
    this.raise(trigger, target, generation);
  }

  private raise(trigger: string, target: string, generation: number): void {
    const key = `${trigger}\n${target}`;
    this.generations.set(key, Math.max(this.generations.get(key) ?? 0, generation));
  }
}

/** A logger that keeps the messages it was given, by level. Only what the receiver calls. */
export function recordingLog(): { log: Logger; lines: { level: string; msg: string }[] } {
  const lines: { level: string; msg: string }[] = [];
  const at = (level: string) => (objOrMsg: unknown, msg?: string) => {
    lines.push({ level, msg: typeof objOrMsg === 'string' ? objOrMsg : (msg ?? '') });
  };
  const log = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { log: log as unknown as Logger, lines };
}
