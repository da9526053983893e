// The labels last seen on an Azure DevOps pull request, against the real Valkey-compatible
// server (#30, finding 4): an update that adds no label adds nothing; no label text is stored.
import { describe, expect, test } from '@jest/globals';
import { ValkeyKeys } from '../../lib/valkey/keys.js';
import { SEEN_LABELS_MEMORY_MS, ValkeySeenLabels } from '../../receiver/adapters/valkey-seen-labels.js';
import { withValkey } from '../support/valkey.js';

const keysOf = (prefix: string) => new ValkeyKeys(prefix.replace(/:$/, ''));
const PR = 'Fabrikam/web!12';

describe('ValkeySeenLabels', () => {
  test('nothing seen: every label is added; then only the new ones, and none at an update that adds none', () =>
    withValkey('seen-labels', async (v) => {
      const keys = keysOf(v.prefix);
      const seen = new ValkeySeenLabels(v.redis, keys);
      expect(await seen.added('azure', PR, ['deploy', 'bug'])).toEqual(['deploy', 'bug']);
      await seen.remember('azure', PR, ['deploy', 'bug']);
      // A push or a vote: the same labels.
      expect(await seen.added('azure', PR, ['bug', 'deploy'])).toEqual([]);
      expect(await seen.added('azure', PR, ['deploy', 'bug', 'release'])).toEqual(['release']);
      // A label taken off and put back is added again.
      await seen.remember('azure', PR, ['bug']);
      expect(await seen.added('azure', PR, ['bug', 'deploy'])).toEqual(['deploy']);
      // No labels at all is remembered as such: the next label is new, nothing before it is.
      await seen.remember('azure', PR, []);
      expect(await seen.added('azure', PR, [])).toEqual([]);
      expect(await seen.added('azure', PR, ['deploy'])).toEqual(['deploy']);
      // Another pull request, another forge: nothing seen.
      expect(await seen.added('azure', 'Fabrikam/web!13', ['bug'])).toEqual(['bug']);
      expect(await seen.added('github', PR, ['bug'])).toEqual(['bug']);
      // Hashes only, and an expiry.
      const key = keys.seenLabels('azure', PR);
      expect((await v.redis.smembers(key)).join(' ')).not.toMatch(/bug|deploy/);
      const ttl = await v.redis.pttl(key);
      expect(ttl).toBeGreaterThan(SEEN_LABELS_MEMORY_MS - 60_000);
      expect(ttl).toBeLessThanOrEqual(SEEN_LABELS_MEMORY_MS);
    }));
});
