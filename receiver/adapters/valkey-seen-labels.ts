// The labels last seen on a pull request whose forge sends every label at every update (Azure
// DevOps), so that only the labels an update added fire triggers (#30, finding 4). Hashes only:
// no label, which an author typed, is kept. May be lost: a pull request Valkey has forgotten
// counts every label as added once, as before, and the bounded holds
// (receiver/delivery/concurrency.ts) keep even that from stacking.
import type { Redis } from 'ioredis';
import { shortHash } from '../../lib/hash.js';
import type { ValkeyKeys } from '../../lib/valkey/keys.js';
import type { SeenLabels } from '../delivery/deliver.js';

/** How long the labels of a pull request are remembered after its last update. */
export const SEEN_LABELS_MEMORY_MS = 31 * 86_400_000;

const hashOf = (label: string) => shortHash(`label\n${label}`);

export class ValkeySeenLabels implements SeenLabels {
  constructor(
    private readonly redis: Redis,
    private readonly keys: ValkeyKeys,
    private readonly memoryMs: number = SEEN_LABELS_MEMORY_MS,
  ) {}

  async added(forge: string, target: string, labels: readonly string[]): Promise<string[]> {
    const key = this.keys.seenLabels(forge, target);
    const [[, exists], [, members]] = (await this.redis.multi().exists(key).smembers(key).exec()) as [[null, number], [null, string[]]];
    if (exists === 0) return [...labels];
    const seen = new Set(members);
    return labels.filter((l) => !seen.has(hashOf(l)));
  }

  async remember(forge: string, target: string, labels: readonly string[]): Promise<void> {
    const key = this.keys.seenLabels(forge, target);
    // An empty set is a key too (a placeholder member), so "no labels" is remembered as such.
    const hashes = ['-', ...labels.map(hashOf)];
    await this.redis
      .multi()
      .del(key)
      .sadd(key, ...hashes)
      .pexpire(key, this.memoryMs)
      .exec();
  }
}
