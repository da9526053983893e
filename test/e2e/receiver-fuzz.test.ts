// The short form of `make fuzz` (bench/fuzz-receiver.ts): 500 generated hostile deliveries,
// then 50 slow unsigned 1 MiB uploads with signed deliveries among them, then 300 connections
// stalling in their headers with signed deliveries among them, at a real receiver process
// against the real apiserver and Valkey.
import { describe, expect, test } from '@jest/globals';
import {
  describeFuzz,
  describeHeaderStalls,
  describeSlow,
  RECEIVER_ALLOCATOR_ENV,
  RECEIVER_NODE_OPTIONS,
  runFuzz,
  runHeaderStalls,
  runSlowSenders,
} from '../../bench/fuzz.js';
import { GITHUB_SECRET, GITLAB_TOKEN } from '../support/forge.js';
import { trigger, withReceiver } from '../support/receiver-scenario.js';
import { Timeouts } from '../support/timeouts.js';

const LABEL = 'fuzz:deploy';
const RSS_LIMIT_MIB = 150;
const RSS_GROWTH_LIMIT_MIB = 30;

describe('receiver: fuzz, short form', () => {
  test.concurrent(
    '500 hostile deliveries, 50 slow senders and 300 header stalls: no crash, only 2xx, 4xx or a cap 503, nothing unsigned made, memory bounded',
    () =>
      withReceiver(
        'rcv-fuzz',
        { triggers: [trigger({ name: 'gh', labels: [LABEL] }), trigger({ name: 'gl', labels: [LABEL], kind: 'gitlab' })] },
        async (s) => {
          const pid = s.receiver.pid as number;
          const target = { port: Number(new URL(s.url).port), githubSecret: GITHUB_SECRET, gitlabToken: GITLAB_TOKEN, label: LABEL };

          const fuzz = await runFuzz(target, { deliveries: 500, concurrency: 16, seed: 7, pid });
          process.stdout.write(`${describeFuzz(fuzz)}\n`);
          expect(fuzz.violations).toEqual([]);
          expect(fuzz.deliveries).toBe(500);
          expect(fuzz.handled).toBeGreaterThan(0);
          // Every HeldJob is one a signed label delivery asked for, and no more.
          expect(await s.kube.listHeldJobs(s.namespace)).toHaveLength(fuzz.handled);
          expect(fuzz.rss.peakMiB).toBeLessThan(RSS_LIMIT_MIB);
          // Flat: 500 deliveries leave no trace in memory worth the name.
          expect(fuzz.rss.endMiB - fuzz.rss.startMiB).toBeLessThan(RSS_GROWTH_LIMIT_MIB);

          const slow = await runSlowSenders(target, { slow: 50, signed: 20, seed: 8, pid });
          process.stdout.write(`${describeSlow(slow)}\n`);
          expect(slow.slowByStatus).toEqual({ 401: 50 });
          expect(slow.signedAnswered).toBe(20);
          expect(slow.rss.peakMiB).toBeLessThan(RSS_LIMIT_MIB);

          // More connections stalling in their headers than the cap of 256: real deliveries still get in.
          const stalls = await runHeaderStalls(target, { stallers: 300, signed: 20, seed: 9, pid });
          process.stdout.write(`${describeHeaderStalls(stalls)}\n`);
          expect(stalls.signedAnswered).toBe(20);
          expect(stalls.closedForRoom).toBeGreaterThan(0);
          expect(stalls.rss.peakMiB).toBeLessThan(RSS_LIMIT_MIB);

          expect(s.receiver.exitedAt).toBeUndefined();
          expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
        },
        // Run as the chart runs it; short timeouts, so the slow senders that look signed are cut
        // off within the test.
        {
          WAITGATE_RECEIVER_HEADERS_TIMEOUT_MS: '2000',
          WAITGATE_RECEIVER_REQUEST_TIMEOUT_MS: '3000',
          WAITGATE_LOG_LEVEL: 'info',
          NODE_OPTIONS: RECEIVER_NODE_OPTIONS,
          ...RECEIVER_ALLOCATOR_ENV,
        },
      ),
    Timeouts.testMs,
  );
});
