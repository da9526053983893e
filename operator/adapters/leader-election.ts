// Leader election through a coordination.k8s.io/v1 Lease, so that of several replicas only
// one reconciles. Expiry is judged by when this process last saw the Lease change, not by
// comparing clocks across machines (as client-go does).
import * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { statusCodeOf } from '../../lib/kube/client.js';

export interface LeaderElectionOptions {
  readonly kubeConfig: k8s.KubeConfig;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly leaseDurationMs: number;
  readonly retryPeriodMs: number;
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

export class LeaderElector {
  private readonly api: k8s.CoordinationV1Api;
  private seen: { key: string; at: number } | undefined;
  private leading = false;
  private stopped = false;
  private lastRenewOk = 0;

  constructor(private readonly o: LeaderElectionOptions) {
    this.api = o.kubeConfig.makeApiClient(k8s.CoordinationV1Api);
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** Resolves once this process leads; then keeps renewing, and calls onLost if it cannot. */
  async run(onLost: () => void): Promise<void> {
    for (;;) {
      if (this.stopped) return new Promise(() => undefined);
      if (await this.tryOnce()) break;
      await new Promise((r) => setTimeout(r, this.o.retryPeriodMs));
    }
    this.leading = true;
    this.lastRenewOk = this.o.now();
    this.o.log.info({ lease: `${this.o.namespace}/${this.o.name}`, identity: this.o.identity }, 'Became leader');
    const renew = async () => {
      if (this.stopped) return;
      const ok = await this.tryOnce().catch(() => false);
      if (ok) this.lastRenewOk = this.o.now();
      // Could not renew for a whole lease: someone else may lead now. Stop at once.
      if (!ok && this.o.now() - this.lastRenewOk >= this.o.leaseDurationMs) {
        this.leading = false;
        this.o.log.error({ lease: `${this.o.namespace}/${this.o.name}` }, 'Lost leadership');
        onLost();
        return;
      }
      setTimeout(() => void renew(), this.o.retryPeriodMs).unref();
    };
    setTimeout(() => void renew(), this.o.retryPeriodMs).unref();
  }

  /** Gives the Lease up so a follower takes over at once (on a clean shutdown). */
  async release(): Promise<void> {
    this.stopped = true;
    if (!this.leading) return;
    try {
      const lease = await this.api.readNamespacedLease({ name: this.o.name, namespace: this.o.namespace });
      if (lease.spec?.holderIdentity !== this.o.identity) return;
      lease.spec = { ...lease.spec, holderIdentity: undefined, leaseDurationSeconds: 1 };
      await this.api.replaceNamespacedLease({ name: this.o.name, namespace: this.o.namespace, body: lease });
    } catch {
      // It expires by itself.
    }
  }

  private async tryOnce(): Promise<boolean> {
    const now = this.o.now();
    let lease: k8s.V1Lease | undefined;
    try {
      lease = await this.api.readNamespacedLease({ name: this.o.name, namespace: this.o.namespace });
    } catch (err) {
      if (statusCodeOf(err) !== 404) throw err;
    }
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
          return false;
        case 'create':
          await this.api.createNamespacedLease({
            namespace: this.o.namespace,
            body: { metadata: { name: this.o.name, namespace: this.o.namespace }, spec: spec(0) },
          });
          return true;
        case 'take':
        case 'renew': {
          const body = lease as k8s.V1Lease;
          body.spec = step.kind === 'take' ? spec(step.transitions) : { ...body.spec, renewTime: new k8s.V1MicroTime(now) };
          await this.api.replaceNamespacedLease({ name: this.o.name, namespace: this.o.namespace, body });
          return true;
        }
      }
    } catch (err) {
      // Another replica wrote first: it leads.
      if (statusCodeOf(err) === 409) return false;
      throw err;
    }
  }
}
