// The receiver before authentication, against a real receiver process, the real apiserver
// and the real Valkey: what it refuses from the headers alone, how long it waits, how much it
// takes in at once, and which secrets and delivery ids it accepts.
import { describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { head, rawExchange } from '../../bench/raw-http.js';
import { deliveryUuid, GITLAB_TOKEN, githubLabeled, gitlabMergeRequestLabeled, post, signedWith, type Delivery } from '../support/forge.js';
import { trigger, withReceiver, type ReceiverScenario } from '../support/receiver-scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const LABEL = 'waitgate:deploy';
const portOf = (url: string) => Number(new URL(url).port);
const SHAPED = `sha256=${'a'.repeat(64)}`;
const MIB = 1024 * 1024;

async function metric(s: ReceiverScenario, series: string): Promise<number> {
  const text = await (await fetch(`${s.metricsUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(series));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** A delivery sent over a raw connection, with its headers changed as given (undefined drops one). */
function rawDelivery(s: ReceiverScenario, d: Delivery, over: Record<string, string | string[] | undefined> = {}) {
  const headers: Record<string, string | string[]> = { ...d.headers, 'content-length': String(d.body.length) };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) delete headers[k];
    else headers[k] = v;
  }
  return rawExchange(portOf(s.url), { head: head(d.path, headers), body: d.body, deadlineMs: Timeouts.shortMs });
}

/**
 * A connection that sends `text` and stalls there; when `until` is given, resolves only once the
 * receiver has sent that back (the head was read), else once connected.
 */
function openStalled(port: number, text: string, until?: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const c = connect({ host: '127.0.0.1', port }, () => {
      c.write(text);
      if (!until) resolve(c);
    });
    let seen = '';
    c.on('data', (d: Buffer) => {
      seen += d.toString('latin1');
      if (until && seen.includes(until)) resolve(c);
    });
    c.on('error', reject);
  });
}

describe('receiver: the door, before a byte of body', () => {
  test.concurrent(
    'a declared length over 1 MiB is answered 413 at once and closed; unsigned uploads are answered 401 before their body',
    () =>
      withReceiver('door-early', { triggers: [trigger()] }, async (s) => {
        const port = portOf(s.url);
        // 2 MB declared, nothing sent: the answer cannot wait for the body.
        const declared = await rawExchange(port, {
          head: head('/webhooks/github', { 'x-hub-signature-256': SHAPED, 'x-github-event': 'issues', 'content-length': '2000000' }),
          deadlineMs: 3000,
        });
        expect(declared).toMatchObject({ status: 413, closed: true, sentBodyBytes: 0 });
        expect(declared.answeredInMs).toBeLessThan(1000);

        // A 1 MiB upload that trickles, without a signature (GitHub) or with a wrong token
        // (GitLab): answered and closed long before a tenth of it is sent.
        const trickle = { total: MIB, chunk: 16 * 1024, everyMs: 50 };
        const unsigned = await rawExchange(port, {
          head: head('/webhooks/github', { 'x-github-event': 'issues', 'content-length': String(MIB) }),
          trickle,
          deadlineMs: 5000,
        });
        expect(unsigned).toMatchObject({ status: 401, closed: true });
        expect(unsigned.sentBodyBytes).toBeLessThan(MIB / 10);
        const wrongToken = await rawExchange(port, {
          head: head('/webhooks/gitlab', { 'x-gitlab-token': 'nope', 'x-gitlab-event': 'Issue Hook', 'content-length': String(MIB) }),
          trickle,
          deadlineMs: 5000,
        });
        expect(wrongToken).toMatchObject({ status: 401, closed: true });
        expect(wrongToken.sentBodyBytes).toBeLessThan(MIB / 10);
        expect(await s.kube.listHeldJobs(s.namespace)).toHaveLength(0);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'the signature in its exact grammar only: no trailing junk, no second header, no uppercase hex',
    () =>
      withReceiver('door-grammar', { triggers: [trigger()] }, async (s) => {
        const d = githubLabeled({ label: LABEL });
        const sig = d.headers['x-hub-signature-256'] as string;
        const refused: [string, string | string[]][] = [
          ['trailing junk', `${sig}junk`],
          ['a trailing comma and digest', `${sig},${sig.slice(7)}`],
          ['uppercase hex', `sha256=${sig.slice(7).toUpperCase()}`],
          ['the header twice', [sig, sig]],
          ['the right one, then a wrong one', [sig, SHAPED]],
        ];
        for (const [what, value] of refused) {
          expect([what, (await rawDelivery(s, d, { 'x-hub-signature-256': value })).status]).toEqual([what, 401]);
        }
        expect(await s.kube.listHeldJobs(s.namespace)).toHaveLength(0);
        expect((await rawDelivery(s, d)).status).toBe(202);
        expect(await s.kube.listHeldJobs(s.namespace)).toHaveLength(1);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    "delivery ids of the forge's shape only; a signed body replayed under a new id runs nothing",
    () =>
      withReceiver('door-ids', { triggers: [trigger(), trigger({ name: 'gl', kind: 'gitlab' })] }, async (s) => {
        const long = 'x'.repeat(8000);
        const d = githubLabeled({ label: LABEL, deliveryId: long });
        const r = await post(s.url, d);
        expect(r.status).toBe(400);
        expect(await post(s.url, githubLabeled({ label: LABEL, deliveryId: 'delivery-1' }))).toMatchObject({ status: 400 });
        const gl = gitlabMergeRequestLabeled({ label: LABEL, deliveryId: '<script>' });
        expect((await post(s.url, gl)).status).toBe(400);
        expect(await s.kube.listHeldJobs(s.namespace)).toHaveLength(0);
        expect(s.receiver.logText()).not.toContain(long);

        // Signed and handled once; the same bytes under a fresh delivery id are a duplicate.
        const first = githubLabeled({ label: LABEL, deliveryId: deliveryUuid('first') });
        expect((await post(s.url, first)).json).toMatchObject({ outcome: 'handled' });
        const replayed = { ...first, headers: { ...first.headers, 'x-github-delivery': randomUUID() } };
        expect((await post(s.url, replayed)).json).toEqual({ outcome: 'duplicate' });
        const glFirst = gitlabMergeRequestLabeled({ label: LABEL });
        expect((await post(s.url, glFirst)).json).toMatchObject({ outcome: 'handled' });
        const glReplayed = { ...glFirst, headers: { ...glFirst.headers, 'x-gitlab-event-uuid': randomUUID() } };
        expect((await post(s.url, glReplayed)).json).toEqual({ outcome: 'duplicate' });
        const made = await s.kube.listHeldJobs(s.namespace);
        expect(made).toHaveLength(2);
        expect(made.map((h) => h.metadata.annotations?.['waitgate.dev/delivery'])).toContain(deliveryUuid('first'));
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'a signed payload that cannot become a HeldJob is 400, not 500: an issue number over 10^10, a 301-character repository',
    () =>
      withReceiver('door-target', { triggers: [trigger()] }, async (s) => {
        const big = await post(s.url, githubLabeled({ label: LABEL, number: 10_000_000_001 }));
        expect(big.status).toBe(400);
        const long = await post(s.url, githubLabeled({ label: LABEL, repo: `acme/${'r'.repeat(296)}` }));
        expect(long.status).toBe(400);
        expect(long.json['error']).toMatch(/over 256/);
        expect(await s.kube.listHeldJobs(s.namespace)).toHaveLength(0);
        expect(s.receiver.logLines().filter((l) => l['level'] === 'error')).toEqual([]);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'secret rotation: any of several secrets may sign, any of several tokens may be sent',
    () =>
      withReceiver(
        'door-rotate',
        { triggers: [trigger(), trigger({ name: 'gl', kind: 'gitlab' })] },
        async (s) => {
          for (const secret of ['old-secret-rotated-1', 'new-secret-rotated-2', 'third-secret-rotated-3']) {
            expect([secret, (await post(s.url, signedWith(githubLabeled({ label: LABEL }), secret))).status]).toEqual([secret, 202]);
          }
          expect((await post(s.url, signedWith(githubLabeled({ label: LABEL }), 'retired-secret'))).status).toBe(401);
          const gl = gitlabMergeRequestLabeled({ label: LABEL });
          for (const token of [GITLAB_TOKEN, 'new-token-rotated-22']) {
            const d = gitlabMergeRequestLabeled({ label: LABEL });
            expect([token, (await post(s.url, { ...d, headers: { ...d.headers, 'x-gitlab-token': token } })).status]).toEqual([token, 202]);
          }
          expect((await post(s.url, { ...gl, headers: { ...gl.headers, 'x-gitlab-token': 'retired-token' } })).status).toBe(401);
          // Every accepted delivery is a hold or counted, boundedly (a trigger without waitFor): per
          // forge, the newest pending hold, the older ones marked superseded by it (no operator runs
          // here to end them), and one wait-superseded record counting them: 3 + 1 for GitHub's
          // three deliveries, 2 + 1 for GitLab's two.
          const all = await s.kube.listHeldJobs(s.namespace);
          const isRecord = (h: (typeof all)[number]) => h.metadata.annotations?.['waitgate.dev/refusal'] !== undefined;
          const marked = (h: (typeof all)[number]) => h.metadata.annotations?.['waitgate.dev/superseded-by'] !== undefined;
          expect(all).toHaveLength(7);
          expect(all.filter((h) => !isRecord(h) && !marked(h))).toHaveLength(2);
          expect(
            all
              .filter(isRecord)
              .map((r) => r.metadata.annotations?.['waitgate.dev/refusal-count'])
              .sort(),
          ).toEqual(['1', '2']);
        },
        {
          WAITGATE_GITHUB_WEBHOOK_SECRET: 'old-secret-rotated-1',
          WAITGATE_GITHUB_WEBHOOK_SECRETS: 'new-secret-rotated-2\nthird-secret-rotated-3\n',
          WAITGATE_GITLAB_WEBHOOK_TOKENS: 'new-token-rotated-22',
        },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    '/metrics and /readyz answer on their own port only; the webhook port keeps /healthz',
    () =>
      withReceiver('door-ports', { triggers: [trigger()] }, async (s) => {
        expect(s.metricsUrl).not.toBe(s.url);
        expect((await fetch(`${s.url}/metrics`)).status).toBe(404);
        expect((await fetch(`${s.url}/readyz`)).status).toBe(404);
        expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
        expect((await fetch(`${s.metricsUrl}/readyz`)).status).toBe(200);
        const text = await (await fetch(`${s.metricsUrl}/metrics`)).text();
        expect(text).toContain('process_resident_memory_bytes');
        // And the metrics port takes no deliveries.
        expect((await post(s.metricsUrl, githubLabeled({ label: LABEL }))).status).toBe(404);
      }),
    Timeouts.testMs,
  );
});

describe('receiver: timeouts and caps', () => {
  test.concurrent(
    'headers that never end and a body that stalls are cut off by the header and request timeouts',
    () =>
      withReceiver(
        'door-timeouts',
        { triggers: [trigger()] },
        async (s) => {
          const port = portOf(s.url);
          // The blank line that ends the headers never comes.
          const headers = await rawExchange(port, {
            head: 'POST /webhooks/github HTTP/1.1\r\nhost: x\r\nx-github-event: issues',
            deadlineMs: 8000,
          });
          expect(headers.closed).toBe(true);
          expect(headers.answeredInMs).toBeLessThan(5000);
          // Signed in shape, 1000 bytes declared, 10 sent.
          const body = await rawExchange(port, {
            head: head('/webhooks/github', { 'x-hub-signature-256': SHAPED, 'x-github-event': 'issues', 'content-length': '1000' }),
            body: Buffer.alloc(10, 'x'),
            deadlineMs: 8000,
          });
          expect(body).toMatchObject({ status: 408, closed: true });
          expect(body.answeredInMs).toBeLessThan(5000);
          // Still serving.
          expect((await post(s.url, githubLabeled({ label: LABEL }))).status).toBe(202);
        },
        { WAITGATE_RECEIVER_HEADERS_TIMEOUT_MS: '1000', WAITGATE_RECEIVER_REQUEST_TIMEOUT_MS: '2000' },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'connections stalling in their headers up to the cap do not keep a signed delivery out: the oldest of them is closed to make room',
    () =>
      withReceiver(
        'door-stall',
        { triggers: [trigger()] },
        async (s) => {
          const port = portOf(s.url);
          // Four connections fill the cap of four, each stalled halfway through its headers:
          // no signature, no secret, nothing but a connection.
          const stalled: Socket[] = [];
          for (let i = 0; i < 4; i++) stalled.push(await openStalled(port, 'POST /webhooks/github HTTP/1.1\r\nhost: x\r\n'));
          const r = await post(s.url, githubLabeled({ label: LABEL }));
          expect(r.status).toBe(202);
          expect(await s.kube.listHeldJobs(s.namespace)).toHaveLength(1);
          // The oldest made room; the others still wait for their header timeout.
          await eventually('the oldest stalled connection to be closed', async () => (stalled[0]?.closed ? true : undefined));
          expect(stalled.slice(1).map((c) => c.closed)).toEqual([false, false, false]);
          expect(await metric(s, 'waitgate_receiver_connections_closed_for_room_total')).toBe(1);
          for (const c of stalled) c.destroy();
        },
        { WAITGATE_RECEIVER_MAX_CONNECTIONS: '4' },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'beyond the connection cap and the in-flight body cap a delivery is answered 503; below them it is handled',
    () =>
      withReceiver(
        'door-caps',
        { triggers: [trigger()] },
        async (s) => {
          const port = portOf(s.url);
          // Four connections past their headers (each told to go on, 100 Continue) and stalled
          // in their bodies fill the cap of four: none of them can be closed for room.
          const holders: Socket[] = [];
          for (let i = 0; i < 4; i++) {
            const h = head('/webhooks/github', { 'x-hub-signature-256': SHAPED, 'content-length': '1000', expect: '100-continue' });
            holders.push(await openStalled(port, `${h}\r\n\r\n`, '100 Continue'));
          }
          const over = await post(s.url, githubLabeled({ label: LABEL }));
          expect(over.status).toBe(503);
          expect(over.json['error']).toBe('too many connections');
          for (const c of holders) c.destroy();
          await eventually('a delivery to be handled once the connections are gone', async () => {
            const r = await post(s.url, githubLabeled({ label: LABEL }));
            return r.status === 202 ? r : undefined;
          });

          // One upload, signed in shape, sends all but the last bytes of 1 MiB and stalls: the
          // 1 MiB in-flight cap is taken, and a real delivery is turned away at the door.
          const upload = async (): Promise<{ socket: Socket; closed: () => boolean }> => {
            const c = connect({ host: '127.0.0.1', port });
            let closed = false;
            c.on('error', () => undefined);
            c.on('close', () => {
              closed = true;
            });
            await new Promise<void>((resolve) => c.once('connect', resolve));
            c.write(`${head('/webhooks/github', { 'x-hub-signature-256': SHAPED, 'content-length': String(MIB) })}\r\n\r\n`);
            c.write(Buffer.alloc(MIB - 100, 'x'));
            return { socket: c, closed: () => closed };
          };
          // The same upload is waited for until the receiver takes its bytes in: a loaded
          // receiver reads 1 MiB slowly, and sending a fresh one on every poll (as this did)
          // threw away what it had read so far, so on two busy cores the cap was never taken.
          // Only an upload the receiver closed (its request timeout, 15 s) is sent again.
          let holder = await upload();
          await eventually(
            'the in-flight cap to be taken',
            async () => {
              const r = await post(s.url, githubLabeled({ label: LABEL }));
              if (r.status === 503 && r.json['error'] === 'too many bodies in flight') return r;
              if (holder.closed()) holder = await upload();
              return undefined;
            },
            Timeouts.startMs,
          );
          holder.socket.destroy();
          await eventually('a delivery to be handled once the upload is gone', async () => {
            const r = await post(s.url, githubLabeled({ label: LABEL }));
            return r.status === 202 ? r : undefined;
          });
          expect(await metric(s, 'waitgate_receiver_deliveries_total{forge="github",outcome="busy"}')).toBeGreaterThanOrEqual(2);
        },
        { WAITGATE_RECEIVER_MAX_CONNECTIONS: '4', WAITGATE_RECEIVER_MAX_INFLIGHT_BODY_BYTES: String(MIB) },
      ),
    Timeouts.testMs,
  );
});
