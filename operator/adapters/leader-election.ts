// Leader election through a coordination.k8s.io/v1 Lease, so that of several replicas only
// one reconciles. Expiry is judged by when this process last saw the Lease change, not by
// comparing clocks across machines (as client-go does).
//
// Two replicas never lead at once because of two numbers. A follower takes the Lease only once
// it has seen it unchanged for a whole lease duration. The leader steps down once it has gone a
// renew deadline, shorter than the lease, without a renewal it knows landed; the deadline is
// counted from the moment that renewal was sent, which is no later than the moment any follower
// saw it. The step-down is a timer of its own (the watchdog), so it happens whatever the network
// does: a renewal that never returns cannot postpone it.
import * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { abortWith, statusCodeOf } from '../../lib/kube/client.js';
import { OPERATOR_VERSION_ANNOTATION } from '../../api/vocabulary.js';
import { VERSION } from '../../lib/version.js';

/** A follower takes over a Lease it has seen unchanged for this long (client-go's default). */
export const LEASE_DURATION_MS = 15_000;
/** The leader steps down when it has not renewed for this long (client-go's default); below the lease. */
export const RENEW_DEADLINE_MS = 10_000;
/** How often the leader renews and a follower looks (client-go's default). */
export const RETRY_PERIOD_MS = 2_000;

export interface LeaderTiming {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

export const DEFAULT_LEADER_TIMING: LeaderTiming = {
  leaseDurationMs: LEASE_DURATION_MS,
  renewDeadlineMs: RENEW_DEADLINE_MS,
  retryPeriodMs: RETRY_PERIOD_MS,
};

/** Throws unless retry period < renew deadline < lease duration: otherwise two could lead at once. */
export function checkTiming(t: LeaderTiming): void {
  if (!(t.retryPeriodMs > 0 && t.retryPeriodMs < t.renewDeadlineMs && t.renewDeadlineMs < t.leaseDurationMs)) {
    throw new Error(
      `leader election needs 0 < retry period < renew deadline < lease duration; got ${t.retryPeriodMs} ms, ${t.renewDeadlineMs} ms, ${t.leaseDurationMs} ms`,
    );
  }
}

/** The Lease as the apiserver keeps it. Each call gives up when its signal aborts. */
export interface LeaseApi {
  /** The Lease, or undefined when there is none. */
  read(signal: AbortSignal): Promise<k8s.V1Lease | undefined>;
  /** Fails with 409 when another replica created it first. */
  create(spec: k8s.V1LeaseSpec, signal: AbortSignal): Promise<void>;
  /** Fails with 409 when the Lease changed since it was read. */
  replace(lease: k8s.V1Lease, signal: AbortSignal): Promise<void>;
}

/** The Lease through the apiserver. */
export class KubeLeases implements LeaseApi {
  private readonly api: k8s.CoordinationV1Api;

  constructor(
    kubeConfig: k8s.KubeConfig,
    private readonly namespace: string,
    private readonly name: string,
  ) {
    this.api = kubeConfig.makeApiClient(k8s.CoordinationV1Api);
  }

  async read(signal: AbortSignal): Promise<k8s.V1Lease | undefined> {
    try {
      return await this.api.readNamespacedLease({ name: this.name, namespace: this.namespace }, abortWith(signal));
    } catch (err) {
      if (statusCodeOf(err) === 404) return undefined;
      throw err;
    }
  }

  async create(spec: k8s.V1LeaseSpec, signal: AbortSignal): Promise<void> {
    await this.api.createNamespacedLease(
      {
        namespace: this.namespace,
        body: { metadata: { name: this.name, namespace: this.namespace, annotations: { [OPERATOR_VERSION_ANNOTATION]: VERSION } }, spec },
      },
      abortWith(signal),
    );
  }

  async replace(lease: k8s.V1Lease, signal: AbortSignal): Promise<void> {
    // The holder says which version it runs (waitgate version reads it).
    const metadata = { ...lease.metadata, annotations: { ...lease.metadata?.annotations, [OPERATOR_VERSION_ANNOTATION]: VERSION } };
    await this.api.replaceNamespacedLease({ name: this.name, namespace: this.namespace, body: { ...lease, metadata } }, abortWith(signal));
  }
}

export interface LeaderElectionOptions extends LeaderTiming {
  readonly leases: LeaseApi;
  /** namespace/name of the Lease, for the logs. */
  readonly lease: string;
  readonly identity: string;
  readonly log: Logger;
  readonly now: () => number;
}

/** What one look at the Lease decides. Pure. */
export type LeaseStep =
  | { readonly kind: 'create' }
  | { readonly kind: 'take'; readonly transitions: number }
  | { readonly kind: 'renew' }
  | { readonly kind: 'wait' };

export interface SeenLease {
  readonly holder: string | undefined;
  readonly renewTime: string | undefined;
  readonly transitions: number;
}

/** Decides from the Lease as seen, when this process last saw it change, and now. */
export function leaseStep(
  me: string,
  lease: SeenLease | undefined,
  lastChangeSeenAt: number,
  now: number,
  leaseDurationMs: number,
): LeaseStep {
  if (!lease) return { kind: 'create' };
  if (lease.holder === me) return { kind: 'renew' };
  if (!lease.holder || now - lastChangeSeenAt >= leaseDurationMs) return { kind: 'take', transitions: lease.transitions + 1 };
  return { kind: 'wait' };
}

/** How one attempt at the Lease ended: this process holds it, another does, or no answer in time. */
type Attempt = 'held' | 'heldByAnother' | 'failed';

export class LeaderElector {
  private seen: { key: string; at: number } | undefined;
  private leading = false;
  private stopped = false;
  /** When the last renewal known to have landed was sent. */
  private renewedAt = 0;
  private renewTimer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private onLost: () => void = () => undefined;

  constructor(private readonly o: LeaderElectionOptions) {
    checkTiming(o);
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** Resolves once this process leads; then keeps renewing, and calls onLost the moment it may no longer lead. */
  async run(onLost: () => void): Promise<void> {
    this.onLost = onLost;
    for (;;) {
      if (this.stopped) return new Promise(() => undefined);
      const startedAt = this.o.now();
      if ((await this.attempt(this.o.renewDeadlineMs)) === 'held') {
        if (this.stopped) return new Promise(() => undefined);
        this.lead(startedAt);
        return;
      }
      await new Promise((r) => setTimeout(r, this.o.retryPeriodMs));
    }
  }

  /**
   * Gives the Lease up so a follower takes over at once (on a clean shutdown, once no reconcile
   * is running). Says whether it did; the watchdog still bounds it.
   */
  async release(): Promise<boolean> {
    this.stopped = true;
    clearTimeout(this.renewTimer);
    if (!this.leading) return false;
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), Math.max(0, this.deadline() - this.o.now()));
    try {
      const lease = await this.o.leases.read(ac.signal);
      if (!lease || lease.spec?.holderIdentity !== this.o.identity) return false;
      const now = this.o.now();
      lease.spec = { ...lease.spec, holderIdentity: undefined, leaseDurationSeconds: 1, renewTime: new k8s.V1MicroTime(now) };
      await this.o.leases.replace(lease, ac.signal);
    } catch (err) {
      this.o.log.warn({ err, lease: this.o.lease }, 'Failed to release the Lease; it expires by itself');
      return false;
    } finally {
      clearTimeout(timer);
    }
    this.leading = false;
    clearTimeout(this.watchdog);
    this.o.log.info({ lease: this.o.lease }, 'Released the Lease');
    return true;
  }

  private deadline(): number {
    return this.renewedAt + this.o.renewDeadlineMs;
  }

  private lead(renewedAt: number): void {
    this.leading = true;
    this.renewedAt = renewedAt;
    this.armWatchdog();
    this.o.log.info({ lease: this.o.lease, identity: this.o.identity }, 'Became leader');
    this.scheduleRenew();
  }

  /** Steps down at the renew deadline unless a renewal lands first; no network call can delay it. */
  private armWatchdog(): void {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => this.stepDown('renew deadline passed'), Math.max(0, this.deadline() - this.o.now()));
    this.watchdog.unref?.();
  }

  private scheduleRenew(): void {
    this.renewTimer = setTimeout(() => void this.renewOnce(), this.o.retryPeriodMs);
    this.renewTimer.unref?.();
  }

  private async renewOnce(): Promise<void> {
    if (!this.leading || this.stopped) return;
    const startedAt = this.o.now();
    const outcome = await this.attempt(this.deadline() - startedAt);
    if (!this.leading || this.stopped) return;
    if (outcome === 'held') {
      this.renewedAt = startedAt;
      this.armWatchdog();
    } else if (outcome === 'heldByAnother') {
      return this.stepDown('another replica holds the Lease');
    } else if (this.o.now() >= this.deadline()) {
      return this.stepDown('renew deadline passed');
    }
    this.scheduleRenew();
  }

  private stepDown(reason: string): void {
    if (!this.leading) return;
    this.leading = false;
    clearTimeout(this.watchdog);
    clearTimeout(this.renewTimer);
    this.o.log.error(
      { lease: this.o.lease, reason, lastRenewal: new Date(this.renewedAt).toISOString(), renewDeadlineMs: this.o.renewDeadlineMs },
      'Lost leadership',
    );
    this.onLost();
  }

  /** One look at the Lease, and the write it calls for, abandoned after `timeoutMs`. */
  private async attempt(timeoutMs: number): Promise<Attempt> {
    if (timeoutMs <= 0) return 'failed';
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), timeoutMs);
    try {
      return await this.tryOnce(ac.signal);
    } catch (err) {
      if (this.leading) this.o.log.warn({ err, lease: this.o.lease }, 'Failed to renew the Lease');
      else this.o.log.debug({ err, lease: this.o.lease }, 'Failed to read or take the Lease');
      return 'failed';
    } finally {
      clearTimeout(timer);
    }
  }

  private async tryOnce(signal: AbortSignal): Promise<Attempt> {
    const now = this.o.now();
    const lease = await this.o.leases.read(signal);
    const seen: SeenLease | undefined = lease
      ? {
          holder: lease.spec?.holderIdentity ?? undefined,
          renewTime: lease.spec?.renewTime ? new Date(lease.spec.renewTime).toISOString() : undefined,
          transitions: lease.spec?.leaseTransitions ?? 0,
        }
      : undefined;
    const key = `${seen?.holder}/${seen?.renewTime}`;
    if (!this.seen || this.seen.key !== key) this.seen = { key, at: now };
    const step = leaseStep(this.o.identity, seen, this.seen.at, now, this.o.leaseDurationMs);
    const spec = (transitions: number): k8s.V1LeaseSpec => ({
      holderIdentity: this.o.identity,
      leaseDurationSeconds: Math.ceil(this.o.leaseDurationMs / 1000),
      acquireTime: new k8s.V1MicroTime(now),
      renewTime: new k8s.V1MicroTime(now),
      leaseTransitions: transitions,
    });
    try {
      switch (step.kind) {
        case 'wait':
          return 'heldByAnother';
        case 'create':
          await this.o.leases.create(spec(0), signal);
          return 'held';
        case 'take':
        case 'renew': {
          const body = lease as k8s.V1Lease;
          body.spec = step.kind === 'take' ? spec(step.transitions) : { ...body.spec, renewTime: new k8s.V1MicroTime(now) };
          await this.o.leases.replace(body, signal);
          return 'held';
        }
      }
    } catch (err) {
      // Another replica wrote first. Who holds the Lease now, the next look says.
      if (statusCodeOf(err) === 409) return 'failed';
      throw err;
    }
  }
}
