// What Valkey keeps of the holds of one trigger and target: the launch marker the operator
// leaves (operator/adapters/valkey-markers.ts) and the highest hold generation handed out.
// Both may be lost; the receiver checks either against the live HeldJobs before it acts.
import type { Redis } from 'ioredis';
import type { ValkeyKeys } from '../../lib/valkey/keys.js';
import type { HoldHistory } from '../delivery/deliver.js';
import type { Remembered } from '../delivery/plan.js';

/**
 * How long the highest generation is kept after the last one handed out: longer than a hold
 * can wait for an instant (30 days at most), so it outlives the holds it counted.
 */
export const GENERATION_MEMORY_MS = 31 * 86_400_000;

/** The one member of the generation's sorted set; its score is the generation. */
const MEMBER = 'generation';

export class ValkeyHoldHistory implements HoldHistory {
  constructor(
    private readonly redis: Redis,
    private readonly keys: ValkeyKeys,
    private readonly generationTtlMs: number = GENERATION_MEMORY_MS,
  ) {}

  async recall(trigger: string, target: string): Promise<Remembered> {
    const [launched, generation] = await Promise.all([
      this.redis.get(this.keys.finishedMarker(trigger, target)),
      this.redis.zscore(this.keys.holdGeneration(trigger, target), MEMBER),
    ]);
    // No key: nothing is remembered (a 0 is remembered as such: looked, and no hold found).
    const n = generation === null ? NaN : Number(generation);
    return { launched: launched ?? undefined, generation: Number.isSafeInteger(n) && n >= 0 ? n : undefined };
  }

  async handedOut(trigger: string, target: string, generation: number): Promise<void> {
    const key = this.keys.holdGeneration(trigger, target);
    // ZADD GT only ever raises the score: a late write of an older generation cannot lower it.
    const replies = await this.redis.multi().zadd(key, 'GT', generation, MEMBER).pexpire(key, this.generationTtlMs).exec();
    const failed = replies?.find(([err]) => err !== null)?.[0];
    if (failed) throw failed;
  }
}
