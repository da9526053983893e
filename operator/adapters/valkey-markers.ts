// The wait-superseded marker: when a hold finishes waiting, a second delivery for the same
// trigger and target is refused for 15 minutes. The receiver always confirms against the live
// HeldJobs, so a stale marker can never refuse a legitimate delivery.
import type { Redis } from 'ioredis';
import type { ValkeyKeys } from '../../lib/valkey/keys.js';
import type { Markers } from '../controller/ports.js';

export const MARKER_TTL_MS = 15 * 60_000;

export class ValkeyMarkers implements Markers {
  constructor(
    private readonly redis: Redis,
    private readonly keys: ValkeyKeys,
  ) {}

  async leave(trigger: string, target: string, heldJob: string): Promise<void> {
    await this.redis.set(this.keys.finishedMarker(trigger, target), heldJob, 'PX', MARKER_TTL_MS);
  }
}
