// The apiserver client's timeouts (lib/kube/client.ts) against loopback servers that misbehave
// on purpose: one accepts connections and never answers, one streams a watch slowly.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { abortWith, KubeRequestTimeoutError, loadKubeConfig } from '../../lib/kube/client.js';

const REQUEST_TIMEOUT_MS = 300;
/** Far longer than any timeout here: a call still pending then was never going to end. */
const GAVE_UP_MS = 5_000;

const dir = mkdtempSync(join(tmpdir(), 'waitgate-kube-timeout-'));

function kubeconfigFor(port: number, label: string): string {
  const path = join(dir, `${label}.kubeconfig`);
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{ name: c, cluster: { server: "http://127.0.0.1:' + String(port) + '", insecure-skip-tls-verify: true } }]',
      'users: [{ name: u, user: { token: t } }]',
      'contexts: [{ name: x, context: { cluster: c, user: u } }]',
      'current-context: x',
      '',
    ].join('\n'),
  );
  return path;
}

function listen(server: Server | HttpServer): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      resolve(typeof a === 'object' && a ? a.port : 0);
    }),
  );
}

/** How a promise settled, and when; 'pending' if it had not by GAVE_UP_MS. */
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

// Accepts every connection, reads nothing, answers nothing.
const sockets = new Set<Socket>();
const silent = createServer((socket) => {
  sockets.add(socket);
  socket.pause();
});
// Answers a watch at once with its headers, then one event every WATCH_EVENT_EVERY_MS.
const WATCH_EVENT_EVERY_MS = 400;
const WATCH_EVENTS = 3;
const watching = createHttpServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  let sent = 0;
  const tick = setInterval(() => {
    sent++;
    res.write(
      `${JSON.stringify({ type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: `cm-${sent}`, resourceVersion: String(sent) } } })}\n`,
    );
    if (sent === WATCH_EVENTS) {
      clearInterval(tick);
      res.end();
    }
  }, WATCH_EVENT_EVERY_MS);
  req.on('close', () => clearInterval(tick));
});
let silentPort = 0;
let watchPort = 0;

beforeAll(async () => {
  silentPort = await listen(silent);
  watchPort = await listen(watching);
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => silent.close(r));
  watching.closeAllConnections();
  await new Promise((r) => watching.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('apiserver request timeouts', () => {
  test('an API call to an apiserver that accepts and never answers fails after the request timeout', async () => {
    const kc = loadKubeConfig(kubeconfigFor(silentPort, 'silent'), { requestTimeoutMs: REQUEST_TIMEOUT_MS });
    const api = kc.makeApiClient(k8s.CoordinationV1Api);
    const r = await settle(api.readNamespacedLease({ name: 'l', namespace: 'ns' }));
    expect(r.outcome).toBe('rejected');
    expect(r.err).toBeInstanceOf(KubeRequestTimeoutError);
    expect((r.err as Error).message).toBe(
      `GET /apis/coordination.k8s.io/v1/namespaces/ns/leases/l: no answer from the apiserver within ${REQUEST_TIMEOUT_MS} ms`,
    );
    expect(r.ms).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 5);
    expect(r.ms).toBeLessThan(REQUEST_TIMEOUT_MS + 2_000);
  });

  test('without a request timeout named, the default one applies (not none)', () => {
    const kc = loadKubeConfig(kubeconfigFor(silentPort, 'default'));
    expect((kc as { requestTimeoutMs?: number }).requestTimeoutMs).toBe(30_000);
  });

  test("a call's own signal cuts it shorter than the client's timeout", async () => {
    const kc = loadKubeConfig(kubeconfigFor(silentPort, 'own-signal'), { requestTimeoutMs: 60_000 });
    const api = kc.makeApiClient(k8s.CoordinationV1Api);
    const r = await settle(api.readNamespacedLease({ name: 'l', namespace: 'ns' }, abortWith(AbortSignal.timeout(200))));
    expect(r.outcome).toBe('rejected');
    expect(r.err).not.toBeInstanceOf(KubeRequestTimeoutError);
    expect(r.ms).toBeLessThan(2_000);
  });

  test('a watch is not cut short by the request timeout: events after it still arrive', async () => {
    const kc = loadKubeConfig(kubeconfigFor(watchPort, 'watch'), { requestTimeoutMs: REQUEST_TIMEOUT_MS });
    const names: string[] = [];
    let ended: unknown = 'open';
    const done = new Promise<void>((resolve) => {
      void new k8s.Watch(kc).watch(
        '/api/v1/namespaces/ns/configmaps',
        {},
        (_type, obj: k8s.V1ConfigMap) => names.push(obj.metadata?.name ?? ''),
        (err: unknown) => {
          ended = err;
          resolve();
        },
      );
    });
    const r = await settle(done);
    expect(r.outcome).toBe('resolved');
    // The last event comes long after the request timeout, and the stream ends cleanly.
    expect(WATCH_EVENT_EVERY_MS * WATCH_EVENTS).toBeGreaterThan(REQUEST_TIMEOUT_MS * 3);
    expect(names).toEqual(['cm-1', 'cm-2', 'cm-3']);
    expect(ended).toBeNull();
  });
});
