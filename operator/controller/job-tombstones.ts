// The last state of Jobs the informer saw deleted, kept a while: a Job whose TTL removed it
// right after it finished still tells its HeldJob how it ended. A hint only: after a restart
// there is none, and a Running hold whose Job is gone ends JobMissing.
import type * as k8s from '@kubernetes/client-node';

export const TOMBSTONE_TTL_MS = 10 * 60_000;
export const TOMBSTONE_MAX = 10_000;

export class JobTombstones {
  private readonly byKey = new Map<string, { job: k8s.V1Job; at: number }>();

  constructor(
    private readonly now: () => number,
    private readonly ttlMs = TOMBSTONE_TTL_MS,
    private readonly max = TOMBSTONE_MAX,
  ) {}

  remember(job: k8s.V1Job): void {
    const key = `${job.metadata?.namespace ?? ''}/${job.metadata?.name ?? ''}`;
    this.byKey.delete(key);
    this.byKey.set(key, { job, at: this.now() });
    // Oldest first, in insertion order: drop what is over the bound or past its time.
    for (const [k, v] of this.byKey) {
      if (this.byKey.size <= this.max && this.now() - v.at < this.ttlMs) break;
      this.byKey.delete(k);
    }
  }

  /** A Job of that name created again is no longer gone. */
  forget(job: k8s.V1Job): void {
    this.byKey.delete(`${job.metadata?.namespace ?? ''}/${job.metadata?.name ?? ''}`);
  }

  get(name: string, namespace: string): k8s.V1Job | undefined {
    const entry = this.byKey.get(`${namespace}/${name}`);
    return entry && this.now() - entry.at < this.ttlMs ? entry.job : undefined;
  }
}
