// A fake GitHub and GitLab on loopback, for tests: a real HTTP server the operator process
// talks to through its real clients (@octokit/rest, fetch). It serves the paths those use,
// records every call, and can be told to fail, hang, or run a hook when a comment is posted.
//   GitHub:  GET/POST /repos/{o}/{r}/issues/{n}/comments
//            GET /repos/{o}/{r}/hooks/{id}/deliveries, POST .../deliveries/{d}/attempts (and /orgs/{org}/hooks/...)
//            POST /app/installations/{id}/access_tokens
//   GitLab:  GET/POST /api/v4/projects/{id}/(issues|merge_requests)/{iid}/notes
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ForgeCall {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly authorization: string | undefined;
  readonly privateToken: string | undefined;
  readonly body: unknown;
  readonly at: number;
}

export interface FakeComment {
  readonly id: number;
  readonly body: string;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface FakeDelivery {
  readonly id: number;
  readonly guid: string;
  readonly delivered_at: string;
  readonly redelivery: boolean;
  readonly status_code: number;
}

/** A scripted answer for the next matching calls. */
export interface Fault {
  readonly method?: string;
  /** Matched against the path. */
  readonly path?: RegExp;
  /** How many calls it answers (default 1). */
  times?: number;
  readonly status?: number;
  readonly headers?: Record<string, string>;
  /** Never answer (the client's timeout ends the call). */
  readonly hang?: boolean;
}

export const FAKE_INSTALLATION_TOKEN = 'ghs_fake-installation-token';

export class FakeForge {
  readonly calls: ForgeCall[] = [];
  /** Comments by thread: `github:owner/repo#7`, `gitlab:group/project#3`, `gitlab:group/project!12`. */
  readonly threads = new Map<string, FakeComment[]>();
  /** Deliveries by hook: `owner/repo:123` or `org:456`. */
  readonly deliveries = new Map<string, FakeDelivery[]>();
  private readonly faults: Fault[] = [];
  private readonly hanging = new Set<ServerResponse>();
  private nextId = 1000;
  /** Runs after a comment is stored and before the answer is sent (a test may kill the poster there). */
  onPost: ((thread: string, comment: FakeComment) => Promise<void>) | undefined;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakeForge> {
    const server = createServer();
    const forge = new FakeForge(server);
    server.on('request', (req, res) => void forge.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return forge;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  get githubApiUrl(): string {
    return this.url;
  }
  get gitlabApiUrl(): string {
    return `${this.url}/api/v4`;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  fail(fault: Fault): void {
    this.faults.push({ times: 1, ...fault });
  }

  comments(thread: string): FakeComment[] {
    return this.threads.get(thread) ?? [];
  }

  addComment(thread: string, body: string, at = new Date()): FakeComment {
    const c = { id: this.nextId++, body, created_at: at.toISOString(), updated_at: at.toISOString() };
    this.threads.set(thread, [...this.comments(thread), c]);
    return c;
  }

  callsTo(method: string, path: RegExp): ForgeCall[] {
    return this.calls.filter((c) => c.method === method && path.test(c.path));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const method = req.method ?? 'GET';
    const path = decodeURIComponent(url.pathname);
    this.calls.push({
      method,
      path,
      query: Object.fromEntries(url.searchParams.entries()),
      authorization: req.headers.authorization,
      privateToken: req.headers['private-token'] as string | undefined,
      body,
      at: Date.now(),
    });
    const fault = this.faults.find((f) => (f.method ?? method) === method && (f.path ?? /./).test(path) && (f.times ?? 1) > 0);
    if (fault) {
      fault.times = (fault.times ?? 1) - 1;
      if (fault.hang) {
        this.hanging.add(res);
        return;
      }
      return this.send(res, fault.status ?? 500, { message: 'fake fault' }, fault.headers);
    }
    return this.route(method, path, url.searchParams, body, res);
  }

  private async route(method: string, path: string, q: URLSearchParams, body: unknown, res: ServerResponse): Promise<void> {
    let m: RegExpExecArray | null;
    if ((m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(path))) {
      const thread = `github:${m[1]}/${m[2]}#${m[3]}`;
      if (method === 'GET') {
        const since = q.get('since');
        const list = this.comments(thread).filter((c) => !since || c.updated_at >= since);
        return this.send(res, 200, list);
      }
      if (method === 'POST') return this.post(thread, (body as { body: string }).body, res);
    }
    if ((m = /^\/api\/v4\/projects\/(.+)\/(issues|merge_requests)\/(\d+)\/notes$/.exec(path))) {
      const thread = `gitlab:${m[1]}${m[2] === 'issues' ? '#' : '!'}${m[3]}`;
      if (method === 'GET') return this.send(res, 200, [...this.comments(thread)].reverse());
      if (method === 'POST') return this.post(thread, (body as { body: string }).body, res);
    }
    if ((m = /^\/(?:repos\/([^/]+\/[^/]+)|orgs\/([^/]+))\/hooks\/(\d+)\/deliveries(?:\/(\d+)\/attempts)?$/.exec(path))) {
      const hook = `${m[1] ?? m[2]}:${m[3]}`;
      if (method === 'GET' && !m[4]) {
        const list = [...(this.deliveries.get(hook) ?? [])].sort((a, b) => b.delivered_at.localeCompare(a.delivered_at));
        return this.send(res, 200, list);
      }
      if (method === 'POST' && m[4]) {
        const original = (this.deliveries.get(hook) ?? []).find((d) => d.id === Number(m?.[4]));
        if (!original) return this.send(res, 404, { message: 'Not Found' });
        return this.send(res, 202, {});
      }
    }
    if ((m = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path)) && method === 'POST') {
      return this.send(res, 201, { token: FAKE_INSTALLATION_TOKEN, expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    }
    return this.send(res, 404, { message: 'Not Found' });
  }

  private async post(thread: string, text: string, res: ServerResponse): Promise<void> {
    const c = this.addComment(thread, text);
    await this.onPost?.(thread, c);
    return this.send(res, 201, thread.startsWith('gitlab:') ? { id: c.id, body: c.body, created_at: c.created_at } : c);
  }

  private send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }
}
