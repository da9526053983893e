// The receiver on its way out and on every address: on SIGTERM /readyz fails first, a
// delivery already arriving is still answered and held, new connections are refused once the
// drain's grace is over, and the process exits 0; with no host configured it listens on IPv6
// and IPv4 alike.
import { describe, expect, test } from '@jest/globals';
import { connect } from 'node:net';
import { head } from '../../bench/raw-http.js';
import { githubLabeled } from '../support/forge.js';
import { trigger, withReceiver } from '../support/receiver-scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const LABEL = 'waitgate:deploy';
const portOf = (url: string) => Number(new URL(url).port);
/**
 * The drain's grace. Everything asserted "inside the grace" must fit in it on two loaded cores:
 * the signal handled and /readyz failing (waited for up to READY_FAILS_MS), one connection
 * accepted, the rest of the body sent. At 2 s against a 1.5 s poll and a 1 s sleep it did not.
 */
const DRAIN_MS = 8_000;
const READY_FAILS_MS = 4_000;

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

describe('receiver: draining on SIGTERM', () => {
  test.concurrent(
    'readiness fails first; a delivery still arriving is answered 202 and held; then new connections are refused and it exits 0',
    () =>
      withReceiver(
        'drain',
        { triggers: [trigger({ labels: [LABEL] })] },
        async (s) => {
          const port = portOf(s.url);
          const d = githubLabeled({ label: LABEL, number: 41 });
          // A delivery whose body arrives in two halves, one on each side of the SIGTERM.
          const socket = connect({ host: '127.0.0.1', port });
          let answer = '';
          socket.on('data', (b: Buffer) => (answer += b.toString()));
          await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
          socket.write(`${head(d.path, { ...d.headers, 'content-length': String(d.body.length) })}\r\n\r\n`);
          const half = Math.floor(d.body.length / 2);
          socket.write(d.body.subarray(0, half));

          const killedAt = Date.now();
          const stopped = s.receiver.kill('SIGTERM');
          await eventually(
            '/readyz to fail',
            async () => ((await fetch(`${s.metricsUrl}/readyz`)).status === 503 ? true : undefined),
            READY_FAILS_MS,
          );
          // Inside the grace, the listener still takes connections (the Service may still route here).
          const accepted = await accepts('127.0.0.1', port);
          expect({ accepted, insideGrace: Date.now() - killedAt < DRAIN_MS }).toEqual({ accepted: true, insideGrace: true });

          // The drain has begun (/readyz fails): the rest of the body arrives during it.
          socket.write(d.body.subarray(half));
          const status = await eventually(
            'the in-flight delivery to be answered',
            () => /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1],
            Timeouts.shortMs,
          );
          expect(status).toBe('202');
          await eventually(
            'its HeldJob',
            async () => ((await s.kube.listHeldJobs(s.namespace)).length === 1 ? true : undefined),
            Timeouts.shortMs,
          );

          // After the grace: no new connection is taken, and the process ends by itself, cleanly.
          await eventually('the listener to close', async () => ((await accepts('127.0.0.1', port)) ? undefined : true), Timeouts.shortMs);
          await stopped;
          expect(await s.receiver.exitCode()).toBe(0);
          // Its last lines may reach the log file after the exit: waited for too.
          expect(await s.receiver.logged('Draining')).toMatchObject({ signal: 'SIGTERM', drainMs: DRAIN_MS });
          expect(await s.receiver.logged('Stopped')).toMatchObject({ drained: true });
        },
        { WAITGATE_RECEIVER_DRAIN_MS: String(DRAIN_MS) },
      ),
    Timeouts.testMs,
  );
});

describe('receiver: every address', () => {
  test.concurrent(
    'with no host set it answers on IPv6 (::1) and IPv4 (127.0.0.1), webhooks and metrics alike',
    () =>
      withReceiver(
        'dual-stack',
        { triggers: [trigger({ labels: [LABEL] })] },
        async (s) => {
          expect(await s.receiver.logged('Listening')).toMatchObject({ host: '(every address)' });
          for (const base of [s.url, s.metricsUrl]) {
            const port = portOf(base);
            for (const host of ['127.0.0.1', '[::1]']) {
              const res = await fetch(`http://${host}:${String(port)}/healthz`);
              expect(`${host} ${res.status}`).toBe(`${host} 200`);
            }
          }
        },
        { WAITGATE_RECEIVER_HOST: '', WAITGATE_RECEIVER_METRICS_HOST: '' },
      ),
    Timeouts.testMs,
  );
});
