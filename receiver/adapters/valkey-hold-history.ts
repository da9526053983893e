// What Valkey keeps of the holds of one trigger and target: the launch marker the operator
// leaves (operator/adapters/valkey-markers.ts) and the highest hold generation handed out,
// and the lock deliveries of them take turns through. Marker and generation may be lost; the
// receiver checks either against the live HeldJobs before it acts.
//
// The lock, the marker and the generation have keys of their own (lib/valkey/keys.ts) with no
// hash tag in common, and one script touches all three: on a Valkey cluster they would need
// one. waitgate connects to one Valkey server (lib/valkey/connection.ts), not to a cluster.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ValkeyKeys } from '../../lib/valkey/keys.js';
import { markerHonoured } from '../../api/supersede-window.js';
import { luaScript } from '../../lib/valkey/lua-script.js';
import type { HoldHistory, HoldLock } from '../delivery/deliver.js';
import type { Remembered } from '../delivery/plan.js';

/**
 * How long the highest generation is kept after the last one handed out: longer than a hold
 * can wait for an instant (30 days at most), so it outlives the holds it counted.
 */
export const GENERATION_MEMORY_MS = 31 * 86_400_000;

/** The one member of the generation's sorted set; its score is the generation. */
const MEMBER = 'generation';

/** What lockHold-3.lua answers: taken, with the marker, its PTTL and the generation; or refused. */
type LockHoldReply = [taken: 1, marker: string | null, markerTtlMs: number, generation: string | null, takenOver: 0 | 1] | [taken: 0];
/** What recallHold-2.lua answers. */
type RecallReply = [marker: string | null, markerTtlMs: number, generation: string | null];

/**
 * What was found in Valkey that no waitgate process writes (a Valkey shared by several clusters
 * may have other writers): a lock with no expiry or a foreign value, taken over; a marker that
 * is no object name or outlives its window, ignored. Told so that the receiver can say it loudly.
 */
export type PlantedKey = { readonly kind: 'lock' | 'marker'; readonly trigger: string; readonly target: string };

interface HoldCommands {
  lockHold(lockKey: string, markerKey: string, generationKey: string, token: string, ttlMs: number, member: string): Promise<LockHoldReply>;
  unlockHold(lockKey: string, generationKey: string, token: string, member: string, generation: string, memoryMs: number): Promise<number>;
  recallHold(markerKey: string, generationKey: string, member: string): Promise<RecallReply>;
}

export class ValkeyHoldHistory implements HoldHistory {
  private readonly redis: Redis & HoldCommands;

  constructor(
    redis: Redis,
    private readonly keys: ValkeyKeys,
    private readonly generationTtlMs: number = GENERATION_MEMORY_MS,
    private readonly onPlanted: (found: PlantedKey) => void = () => undefined,
  ) {
    redis.defineCommand('lockHold', { numberOfKeys: 3, lua: luaScript('lockHold-3.lua') });
    redis.defineCommand('unlockHold', { numberOfKeys: 2, lua: luaScript('unlockHold-2.lua') });
    redis.defineCommand('recallHold', { numberOfKeys: 2, lua: luaScript('recallHold-2.lua') });
    this.redis = redis as Redis & HoldCommands;
  }

  async lockAndRecall(trigger: string, target: string, ttlMs: number): Promise<{ lock: HoldLock; remembered: Remembered } | undefined> {
    const token = randomBytes(12).toString('hex');
    const reply = await this.redis.lockHold(
      this.keys.holdLock(trigger, target),
      this.keys.finishedMarker(trigger, target),
      this.keys.holdGeneration(trigger, target),
      token,
      ttlMs,
      MEMBER,
    );
    if (reply[0] !== 1) return undefined;
    const [, marker, markerTtlMs, generation, takenOver] = reply;
    if (takenOver === 1) this.onPlanted({ kind: 'lock', trigger, target });
    return { lock: { trigger, target, token }, remembered: this.rememberedOf(trigger, target, marker, markerTtlMs, generation) };
  }

  async unlock(lock: HoldLock, generation?: number): Promise<boolean> {
    if (generation !== undefined && !(Number.isSafeInteger(generation) && generation >= 0)) {
      throw new Error(`ValkeyHoldHistory: a generation is a whole number from 0, got ${generation}`);
    }
    const released = await this.redis.unlockHold(
      this.keys.holdLock(lock.trigger, lock.target),
      this.keys.holdGeneration(lock.trigger, lock.target),
      lock.token,
      MEMBER,
      generation === undefined ? '' : String(generation),
      this.generationTtlMs,
    );
    return released === 1;
  }

  async recall(trigger: string, target: string): Promise<Remembered> {
    const [marker, markerTtlMs, generation] = await this.redis.recallHold(
      this.keys.finishedMarker(trigger, target),
      this.keys.holdGeneration(trigger, target),
      MEMBER,
    );
    return this.rememberedOf(trigger, target, marker, markerTtlMs, generation);
  }

  async handedOut(trigger: string, target: string, generation: number): Promise<void> {
    const key = this.keys.holdGeneration(trigger, target);
    // ZADD GT only ever raises the score: a late write of an older generation cannot lower it.
    const replies = await this.redis.multi().zadd(key, 'GT', generation, MEMBER).pexpire(key, this.generationTtlMs).exec();
    const failed = replies?.find(([err]) => err !== null)?.[0];
    if (failed) throw failed;
  }

  private rememberedOf(trigger: string, target: string, marker: string | null, markerTtlMs: number, generation: string | null): Remembered {
    const honoured = markerHonoured(marker, markerTtlMs);
    if (!honoured && marker !== null) this.onPlanted({ kind: 'marker', trigger, target });
    // No key: nothing is remembered (a 0 is remembered as such: looked, and no hold found).
    const n = generation === null ? NaN : Number(generation);
    return { launched: honoured ? marker : undefined, generation: Number.isSafeInteger(n) && n >= 0 ? n : undefined };
  }
}
