// The wait-superseded marker: when a hold finishes waiting, a second delivery for the same
// trigger and target is refused for the supersede window (api/supersede-window.ts), and the
// marker lives that long. The receiver always confirms against the live HeldJobs, so a stale
// marker can never refuse a legitimate delivery.
import type { Redis } from 'ioredis';
import { SUPERSEDE_WINDOW_MS } from '../../api/supersede-window.js';
import type { ValkeyKeys } from '../../lib/valkey/keys.js';
import type { Markers } from '../controller/ports.js';

export class ValkeyMarkers implements Markers {
  constructor(
    private readonly redis: Redis,
    private readonly keys: ValkeyKeys,
  ) {}

  async leave(trigger: string, target: string, heldJob: string): Promise<void> {
    await this.redis.set(this.keys.finishedMarker(trigger, target), heldJob, 'PX', SUPERSEDE_WINDOW_MS);
  }
}
