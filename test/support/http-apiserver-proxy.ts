// The apiserver behind an HTTPS proxy that sees each request, for a test that wants one call
// of a process to stall, or to meet an error of the proxy's own, while its others go through. The kube client keeps its connections
// (lib/kube/client.ts), so a connection-level proxy (tcp-proxy.ts) can no longer pick out a
// single call. The proxy serves the local cluster's own apiserver certificate, so a client
// that trusts the cluster's CA trusts it, and passes every header (the bearer token) on.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { kubeconfigPath } from './env.js';

const SERVER = /server: https:\/\/127\.0\.0\.1:(\d+)/;

export type RequestMatcher = (method: string, path: string) => boolean;

/** A watch's answer as it passes through: what the proxy holds back of it while its watch is delayed. */
interface WatchStream {
  readonly method: string;
  readonly path: string;
  readonly res: ServerResponse;
  readonly pending: Buffer[];
  ended: boolean;
}

const isWatch = (path: string): boolean => /[?&]watch=(true|1)(&|$)/.test(path);

/**
 * What the proxy answers in the apiserver's place: an HTTP status, with a Kubernetes Status body
 * saying so. `body` is the request's body, read whole.
 */
export type RequestAnswerer = (method: string, path: string, body: string) => number | undefined;

/** The Status object an apiserver sends with an error status. */
function statusBody(code: number): string {
  const reason = code === 429 ? 'TooManyRequests' : code === 503 ? 'ServiceUnavailable' : 'InternalError';
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `answered ${code} by the test's proxy`,
    reason,
    code,
  });
}

export class HttpApiserverProxy {
  private server: Server | undefined;
  private matcher: RequestMatcher | undefined;
  private answerer: RequestAnswerer | undefined;
  /** How many requests the proxy has answered itself. */
  answeredCount = 0;
  /** Every request that reached the proxy, in order: what a test may count (a process's LIST calls). */
  readonly seen: { readonly method: string; readonly path: string }[] = [];
  private readonly held: { req: IncomingMessage; res: ServerResponse }[] = [];
  private streamMatcher: RequestMatcher | undefined;
  private readonly watches = new Set<WatchStream>();
  private readonly agent: Agent;
  port = 0;

  constructor(
    private readonly targetPort: number,
    private readonly pki: string,
  ) {
    this.agent = new Agent({ keepAlive: true, ca: readFileSync(join(pki, 'ca.crt')) });
  }

  async start(): Promise<number> {
    this.server = createServer(
      { cert: readFileSync(join(this.pki, 'apiserver.crt')), key: readFileSync(join(this.pki, 'apiserver.key')) },
      (req, res) => {
        this.seen.push({ method: req.method ?? '', path: req.url ?? '' });
        if (this.matcher?.(req.method ?? '', req.url ?? '')) {
          this.held.push({ req, res });
          return;
        }
        if (this.answerer) {
          this.answerOrForward(this.answerer, req, res);
          return;
        }
        this.forward(req, res);
      },
    );
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const addr = this.server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : 0;
    return this.port;
  }

  /** From now on, holds every request `matches` picks until release(). */
  holdRequests(matches: RequestMatcher): void {
    this.matcher = matches;
  }

  /** How many requests are held. */
  get heldCount(): number {
    return this.held.filter(({ res }) => !res.destroyed).length;
  }

  /** Forwards the held requests, and every new one. */
  release(): void {
    this.matcher = undefined;
    for (const { req, res } of this.held.splice(0)) if (!res.destroyed) this.forward(req, res);
  }

  /**
   * From now on, holds back the events of every watch `matches` picks (open already, or opened
   * later) until flushWatches(): the watch stays connected, its events wait in the proxy, so
   * the client's cache lags the apiserver as an informer behind a slow watch does.
   */
  delayWatches(matches: RequestMatcher): void {
    this.streamMatcher = matches;
  }

  /** How many bytes of watch events the proxy holds back. */
  get delayedBytes(): number {
    let n = 0;
    for (const w of this.watches) for (const b of w.pending) n += b.length;
    return n;
  }

  /** Sends every watch event held back, in order, and delays none from now on. */
  flushWatches(): void {
    this.streamMatcher = undefined;
    for (const w of this.watches) this.drain(w);
  }

  /** From now on, answers every request `answers` gives a status for, until heal(); forwards the rest. */
  answerRequests(answers: RequestAnswerer): void {
    this.answerer = answers;
  }

  /** Forwards every new request again. */
  heal(): void {
    this.answerer = undefined;
  }

  async stop(): Promise<void> {
    this.heal();
    this.release();
    this.flushWatches();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.agent.destroy();
  }

  private answerOrForward(answers: RequestAnswerer, req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const code = answers(req.method ?? '', req.url ?? '', body.toString('utf8'));
      if (code === undefined) {
        this.forward(req, res, body);
        return;
      }
      this.answeredCount++;
      const text = statusBody(code);
      res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  }

  /** A watch's answer, event by event: held back while its watch is delayed, in order. */
  private passWatch(method: string, path: string, answer: IncomingMessage, res: ServerResponse): void {
    const w: WatchStream = { method, path, res, pending: [], ended: false };
    this.watches.add(w);
    answer.on('data', (chunk: Buffer) => {
      if (w.pending.length > 0 || this.streamMatcher?.(method, path)) w.pending.push(chunk);
      else res.write(chunk);
    });
    answer.on('end', () => {
      w.ended = true;
      if (w.pending.length === 0 && !this.streamMatcher?.(method, path)) this.drain(w);
    });
    res.on('close', () => this.watches.delete(w));
  }

  private drain(w: WatchStream): void {
    if (w.res.destroyed) {
      this.watches.delete(w);
      return;
    }
    for (const chunk of w.pending.splice(0)) w.res.write(chunk);
    if (w.ended) {
      w.res.end();
      this.watches.delete(w);
    }
  }

  /** Passes the request on; `body`, when given, is its body already read. */
  private forward(req: IncomingMessage, res: ServerResponse, body?: Buffer): void {
    const upstream = request(
      { host: '127.0.0.1', port: this.targetPort, method: req.method, path: req.url, headers: req.headers, agent: this.agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        // A watch's headers come long before its first event: send them now, not with it.
        res.flushHeaders();
        if (isWatch(req.url ?? '')) this.passWatch(req.method ?? '', req.url ?? '', answer, res);
        else answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    if (body) upstream.end(body);
    else req.pipe(upstream);
  }
}

export async function withHttpApiserverProxy<T>(body: (proxy: HttpApiserverProxy, kubeconfig: string) => Promise<T>): Promise<T> {
  const path = kubeconfigPath();
  const kc = readFileSync(path, 'utf8');
  const m = SERVER.exec(kc);
  if (!m) throw new Error(`${path} names no https://127.0.0.1:<port> server to proxy`);
  const proxy = new HttpApiserverProxy(Number(m[1]), join(dirname(path), 'pki'));
  const port = await proxy.start();
  const proxied = join(tmpdir(), `waitgate-http-proxied-${port}.kubeconfig`);
  writeFileSync(proxied, kc.replace(SERVER, `server: https://127.0.0.1:${port}`));
  try {
    return await body(proxy, proxied);
  } finally {
    await proxy.stop();
    rmSync(proxied, { force: true });
  }
}
