// lib/valkey/connection.ts against a real Valkey behind a proxy that goes mute: a command gets
// an answer or an error within the command timeout, never a wait without end.
import { describe, expect, test } from '@jest/globals';
import type { Redis } from 'ioredis';
import { connectValkey } from '../../lib/valkey/connection.js';
import { requireEnv } from '../support/env.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { eventually } from '../support/wait.js';

const COMMAND_TIMEOUT_MS = 300;
/** Far longer than the timeout: a command still pending then was never going to end. */
const GAVE_UP_MS = 5_000;

async function settle(p: Promise<unknown>): Promise<{ outcome: 'resolved' | 'rejected' | 'pending'; err?: unknown; ms: number }> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<{ outcome: 'pending'; ms: number }>((resolve) => {
    timer = setTimeout(() => resolve({ outcome: 'pending', ms: Date.now() - started }), GAVE_UP_MS);
  });
  const r = await Promise.race([
    p.then(
      () => ({ outcome: 'resolved' as const, ms: Date.now() - started }),
      (err: unknown) => ({ outcome: 'rejected' as const, err, ms: Date.now() - started }),
    ),
    gaveUp,
  ]);
  clearTimeout(timer);
  return r;
}

describe('Valkey command timeout', () => {
  test('a server that stops answering: the command fails after the command timeout', async () => {
    const proxy = new TcpProxy('127.0.0.1', Number(new URL(requireEnv('VALKEY_URL')).port));
    const port = await proxy.start();
    let redis: Redis | undefined;
    try {
      redis = connectValkey(`redis://127.0.0.1:${port}`, { commandTimeoutMs: COMMAND_TIMEOUT_MS });
      redis.on('error', () => undefined);
      const r0 = redis;
      await eventually('the connection to be ready', () => (r0.status === 'ready' ? true : undefined));
      expect(await redis.ping()).toBe('PONG');

      proxy.stall();
      const r = await settle(redis.get('waitgate-test:never-answered'));
      expect(r.outcome).toBe('rejected');
      expect((r.err as Error).message).toMatch(/timed out/i);
      // After the timeout, not at once: a timer may fire a few ms early on the clock read here
      // (seen 294 ms of 300 under load in make test).
      expect(r.ms).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS - 25);
      expect(r.ms).toBeLessThan(COMMAND_TIMEOUT_MS + 2_000);
    } finally {
      redis?.disconnect();
      await proxy.cut();
    }
  });
});
