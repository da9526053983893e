// The wait-superseded marker: when a hold finishes waiting, a second delivery for the same
// trigger and target is refused for 15 minutes. The receiver always confirms against the live
// HeldJobs, so a stale marker can never refuse a legitimate delivery.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Markers } from '../controller/reconciler.js';

export const MARKER_TTL_MS = 15 * 60_000;
const h = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);

export function markerKey(prefix: string, trigger: string, target: string): string {
  return `${prefix}:finished:${h(trigger)}:${h(target)}`;
}

export class ValkeyMarkers implements Markers {
  constructor(private readonly redis: Redis, private readonly prefix: string) {}

  async leave(trigger: string, target: string, heldJob: string): Promise<void> {
    await this.redis.set(markerKey(this.prefix, trigger, target), heldJob, 'PX', MARKER_TTL_MS);
  }
}
