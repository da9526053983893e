// The per-cluster ACL user docs/valkey.md gives, run as written there against the real Valkey:
// the operator's and the receiver's Valkey code works as that user, and what a leaked
// credential would try first (wiping the fleet's state, reading its config, other keys) is refused.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { ValkeyKeys } from '../../lib/valkey/keys.js';
import { Leases } from '../../lib/valkey/leases.js';
import { Slots } from '../../lib/valkey/slots.js';
import { ValkeyMarkers } from '../../operator/adapters/valkey-markers.js';
import { ValkeyHoldHistory } from '../../receiver/adapters/valkey-hold-history.js';
import { requireEnv, ROOT } from '../support/env.js';
import { withValkey } from '../support/valkey.js';

/** The one `ACL SETUSER` line of docs/valkey.md, for user cluster-a and prefix waitgate. */
function documentedAcl(): string {
  const lines = readFileSync(join(ROOT, 'docs', 'valkey.md'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('ACL SETUSER cluster-a '));
  if (lines.length !== 1) throw new Error(`docs/valkey.md has ${lines.length} ACL SETUSER cluster-a lines, not one`);
  return lines[0]!;
}

const user = `acl-test-${randomBytes(4).toString('hex')}`;
const password = randomBytes(24).toString('hex');
let admin: Redis;
let supportsAcl = true;

beforeAll(async () => {
  admin = new Redis(requireEnv('VALKEY_URL'), { lazyConnect: true, maxRetriesPerRequest: 1 });
  await admin.connect();
  try {
    await admin.call('ACL', 'WHOAMI');
  } catch {
    supportsAcl = false;
  }
});

afterAll(async () => {
  if (supportsAcl) await admin.call('ACL', 'DELUSER', user).catch(() => undefined);
  await admin.quit();
});

/** Creates the documented user for this key prefix and connects as it. */
async function connectAs(prefix: string): Promise<Redis> {
  const words = documentedAcl()
    .split(/\s+/)
    .map((w) =>
      w === 'cluster-a' ? user : w === '>CHANGE-ME-32-random-characters' ? `>${password}` : w === '~waitgate:*' ? `~${prefix}:*` : w,
    );
  expect(words).toContain(`~${prefix}:*`);
  expect(words).toContain(`>${password}`);
  await admin.call(words[0]!, ...words.slice(1));
  const u = new URL(requireEnv('VALKEY_URL'));
  u.username = user;
  u.password = password;
  const redis = new Redis(u.toString(), { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  return redis;
}

describe('the per-cluster ACL user of docs/valkey.md', () => {
  test('drives the hold history, the markers, the leases and the slots, and nothing else', () =>
    withValkey('acl-user', async (v) => {
      if (!supportsAcl) throw new Error('this Valkey has no ACL (valkey-server 9 does: make test starts it)');
      const prefix = v.prefix.replace(/:$/, '');
      const redis = await connectAs(prefix);
      try {
        const keys = new ValkeyKeys(prefix);
        // The receiver's hold history and the operator's marker.
        const history = new ValkeyHoldHistory(redis, keys);
        const taken = await history.lockAndRecall('deploy', 'acme/web#7', 15_000);
        expect(taken).toBeDefined();
        await history.handedOut('deploy', 'acme/web#7', 1);
        expect(await history.unlock(taken!.lock, 1)).toBe(true);
        await new ValkeyMarkers(redis, keys).leave('deploy', 'acme/web#7', 'web-7-deploy-1');
        expect(await history.recall('deploy', 'acme/web#7')).toEqual({ launched: 'web-7-deploy-1', generation: 1 });
        // Leases (leader election of the dedup, the scope's lease) and the slots.
        const leases = new Leases(redis);
        const lease = await leases.acquire(`${prefix}:lease-a`, 10_000);
        expect(lease).toBeDefined();
        expect(await leases.renew(lease!, 10_000)).toBe(true);
        const pair = await leases.acquirePair([`${prefix}:pair-a`, `${prefix}:pair-b`], 10_000);
        expect(pair).toBeDefined();
        expect(await leases.release(lease!)).toBe(true);
        const slots = new Slots(redis);
        const [all, scope] = keys.scopeSlots('github:acme/web');
        expect(await slots.acquire([all, scope], [4, 1], 'holder-1', 10_000)).toEqual({ acquired: true });
        expect(await slots.renew([all, scope], 'holder-1', 10_000)).toBe(true);
        expect(await slots.holders(scope)).toBe(1);
        await slots.release([all, scope], 'holder-1');
        // A check slot within its namespace's fair share: the fleet's, the namespace's and the active set.
        const check = { fleetKey: keys.checkSlots(), namespaceKey: keys.checkSlotsOf('team-a'), activeKey: keys.checkActive(), limit: 2 };
        expect(await slots.acquireShare(check, 'check-1', 10_000, 20_000)).toEqual({ acquired: true });
        expect(await slots.handOnShare({ namespaceKey: check.namespaceKey, token: 'check-1' }, check, 'check-2', 10_000, 20_000)).toEqual({
          acquired: true,
        });
        await slots.release([check.fleetKey, check.namespaceKey], 'check-2');
        await slots.openEpoch(keys.scopeEpoch());

        // What a leaked credential would try.
        for (const attempt of [
          () => redis.flushall(),
          () => redis.flushdb(),
          () => redis.config('GET', '*'),
          () => redis.keys('*'),
          () => redis.call('SCRIPT', 'FLUSH'),
          () => redis.call('ACL', 'LIST'),
          () => redis.call('MODULE', 'LIST'),
          () => redis.get('another-fleet:finished:x'),
          () => redis.set(`not-${prefix}:finished:x`, 'web-7-deploy-1'),
          // A script may touch only the keys the user may.
          () => redis.eval("return redis.call('SET', KEYS[1], 'x')", 1, 'another-fleet:hold-lock:x'),
        ]) {
          await expect(attempt()).rejects.toThrow(/NOPERM|no permissions/i);
        }
        // DEBUG and SHUTDOWN meet other settings before the ACL when tried, so the ACL's own
        // answer is asked for: ACL DRYRUN says what the user would be told.
        for (const command of [['DEBUG', 'SLEEP', '0'], ['SHUTDOWN'], ['CONFIG', 'SET', 'dir', '/tmp']]) {
          expect(String(await admin.call('ACL', 'DRYRUN', user, ...command))).toMatch(/no permissions/i);
        }
      } finally {
        await redis.quit();
      }
    }));
});
