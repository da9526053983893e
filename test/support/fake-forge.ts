// A fake GitHub and GitLab on loopback, for tests: a real HTTP server the operator process
// talks to through its real clients (@octokit/rest, fetch). It serves the paths those use,
// records every call, and can be told to fail, hang, or run a hook when a comment is posted.
//   GitHub:  GET/POST /repos/{o}/{r}/issues/{n}/comments
//            GET /repos/{o}/{r}/hooks/{id}/deliveries, POST .../deliveries/{d}/attempts (and /orgs/{org}/hooks/...,
//            and the App's own webhook: GET /app/hook/deliveries, POST /app/hook/deliveries/{d}/attempts)
//            POST /app/installations/{id}/access_tokens
//   Given an App (FakeForge.start({ app })), the /app routes take only a JWT that App signed
//   (RS256, iss the App id, not expired), and only its installation gets a token.
//   GitLab:  GET/POST /api/v4/projects/{id}/(issues|merge_requests)/{iid}/notes
//   Azure DevOps (under /{org}, azureApiUrl): GET/POST /{project}/_apis/wit/workItems/{id}/comments,
//            GET/POST /{project}/_apis/git/repositories/{repo}/pullRequests/{id}/threads
//   Default branches (a trigger that pins an issue's revision): GitHub GET /repos/{o}/{r} and
//            /repos/{o}/{r}/branches/{b}; GitLab GET /api/v4/projects/{id} and .../repository/branches/{b};
//            Azure GET /{org}/{project}/_apis/git/repositories/{repo} and .../refs. Every repository's
//            default branch is `main`, its head `heads` has for `forge:repository`, else DEFAULT_HEAD.
import { createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
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

/** The head of every default branch the fake is not told otherwise of. */
export const DEFAULT_HEAD = 'fa4efa4efa4efa4efa4efa4efa4efa4efa4efa4e';
/** The Azure DevOps organisation the fake serves. */
export const FAKE_AZURE_ORG = 'fabrikam';

/** A GitHub App the fake knows: its JWTs are checked against the public key. */
export interface FakeApp {
  readonly appId: string;
  /** PEM (SPKI or PKCS#1) of the key pair whose private half the operator signs with. */
  readonly publicKey: string;
  readonly installationId: number;
}

/**
 * A GitHub App for a test: the fake forge's side of it, and the private key the operator gets
 * (PKCS#1 PEM, as GitHub hands one out).
 */
export function fakeGitHubApp(appId = '4242', installationId = 77): { app: FakeApp; privateKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { app: { appId, publicKey, installationId }, privateKey };
}

/** The App's own webhook, as a key of `deliveries`. */
export const APP_HOOK_KEY = 'app';

/** Why a bearer JWT is not one the App signed, or undefined if it is. */
function jwtProblem(authorization: string | undefined, appId: string, key: KeyObject, nowS: number): string | undefined {
  const m = /^bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/i.exec(authorization ?? '');
  if (!m) return 'not a bearer JWT';
  const [, header, payload, signature] = m as unknown as [string, string, string, string];
  const alg = (JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown }).alg;
  if (alg !== 'RS256') return `alg ${String(alg)}`;
  if (!verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, 'base64url'))) return 'bad signature';
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { iss?: unknown; exp?: unknown };
  if (String(claims.iss) !== appId) return `iss ${String(claims.iss)}`;
  if (typeof claims.exp !== 'number' || claims.exp <= nowS) return 'expired';
  return undefined;
}

export class FakeForge {
  readonly calls: ForgeCall[] = [];
  /**
   * Comments by thread: `github:owner/repo#7`, `gitlab:group/project#3`, `gitlab:group/project!12`,
   * `azure:project/repo!12` (a pull request), `azure:project/project#5` (a work item).
   */
  readonly threads = new Map<string, FakeComment[]>();
  /** Deliveries by hook: `owner/repo:123`, `org:456`, or `app` (APP_HOOK_KEY). */
  readonly deliveries = new Map<string, FakeDelivery[]>();
  /** Default branch heads by `forge:repository` (`github:acme/web`, `azure:proj/web`). */
  readonly heads = new Map<string, string>();
  private readonly faults: Fault[] = [];
  private readonly hanging = new Set<ServerResponse>();
  private nextId = 1000;
  /** Runs after a comment is stored and before the answer is sent (a test may kill the poster there). */
  onPost: ((thread: string, comment: FakeComment) => Promise<void>) | undefined;

  private readonly appKey: KeyObject | undefined;

  private constructor(
    private readonly server: Server,
    private readonly app: FakeApp | undefined,
  ) {
    this.appKey = app ? createPublicKey(app.publicKey) : undefined;
  }

  static async start(opts: { app?: FakeApp } = {}): Promise<FakeForge> {
    const server = createServer();
    const forge = new FakeForge(server, opts.app);
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
  get azureApiUrl(): string {
    return `${this.url}/${FAKE_AZURE_ORG}`;
  }

  private headOf(key: string): string {
    return this.heads.get(key) ?? DEFAULT_HEAD;
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
    if (path.startsWith('/app/') && this.app && this.appKey) {
      const problem = jwtProblem(req.headers.authorization, this.app.appId, this.appKey, Math.floor(Date.now() / 1000));
      if (problem) return this.send(res, 401, { message: `A JSON web token could not be decoded (${problem})` });
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
    if ((m = /^\/repos\/([^/]+\/[^/]+)$/.exec(path)) && method === 'GET')
      return this.send(res, 200, { full_name: m[1], default_branch: 'main' });
    if ((m = /^\/repos\/([^/]+\/[^/]+)\/branches\/main$/.exec(path)) && method === 'GET') {
      return this.send(res, 200, { name: 'main', commit: { sha: this.headOf(`github:${m[1]}`) } });
    }
    if ((m = /^\/api\/v4\/projects\/([^/]+(?:\/[^/]+)*?)\/repository\/branches\/main$/.exec(path)) && method === 'GET') {
      return this.send(res, 200, { name: 'main', commit: { id: this.headOf(`gitlab:${m[1]}`) } });
    }
    if ((m = /^\/api\/v4\/projects\/([^/]+(?:\/[^/]+)*)$/.exec(path)) && method === 'GET' && !path.includes('/issues/')) {
      return this.send(res, 200, { path_with_namespace: m[1], default_branch: 'main' });
    }
    const azure = `/${FAKE_AZURE_ORG}`;
    if (path.startsWith(`${azure}/`)) return this.azure(method, path.slice(azure.length), q, body, res);
    if ((m = /^\/(?:repos\/([^/]+\/[^/]+)|orgs\/([^/]+))\/hooks\/(\d+)\/deliveries(?:\/(\d+)\/attempts)?$/.exec(path))) {
      const hook = `${m[1] ?? m[2]}:${m[3]}`;
      if (method === 'GET' && !m[4]) return this.send(res, 200, this.newestFirst(hook));
      if (method === 'POST' && m[4]) return this.attempt(hook, Number(m[4]), res);
    }
    if ((m = /^\/app\/hook\/deliveries(?:\/(\d+)\/attempts)?$/.exec(path))) {
      if (method === 'GET' && !m[1]) return this.send(res, 200, this.newestFirst(APP_HOOK_KEY));
      if (method === 'POST' && m[1]) return this.attempt(APP_HOOK_KEY, Number(m[1]), res);
    }
    if ((m = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path)) && method === 'POST') {
      if (this.app && Number(m[1]) !== this.app.installationId) return this.send(res, 404, { message: 'Not Found' });
      return this.send(res, 201, { token: FAKE_INSTALLATION_TOKEN, expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    }
    return this.send(res, 404, { message: 'Not Found' });
  }

  /** Azure DevOps, below the organisation. */
  private async azure(method: string, path: string, q: URLSearchParams, body: unknown, res: ServerResponse): Promise<void> {
    let m: RegExpExecArray | null;
    if (!q.get('api-version')) return this.send(res, 400, { message: 'api-version is required' });
    if ((m = /^\/([^/]+)\/_apis\/wit\/workItems\/(\d+)\/comments$/.exec(path))) {
      const thread = `azure:${m[1]}/${m[1]}#${m[2]}`;
      const list = this.comments(thread).map((c) => ({ id: c.id, text: c.body, createdDate: c.created_at }));
      if (method === 'GET') return this.send(res, 200, { totalCount: list.length, count: list.length, comments: [...list].reverse() });
      if (method === 'POST') {
        const c = await this.store(thread, (body as { text: string }).text);
        return this.send(res, 200, { id: c.id, text: c.body, createdDate: c.created_at });
      }
    }
    if ((m = /^\/([^/]+)\/_apis\/git\/repositories\/([^/]+)\/pullRequests\/(\d+)\/threads$/.exec(path))) {
      const thread = `azure:${m[1]}/${m[2]}!${m[3]}`;
      const threadOf = (c: FakeComment) => ({
        id: c.id,
        publishedDate: c.created_at,
        comments: [{ id: 1, parentCommentId: 0, content: c.body, publishedDate: c.created_at, commentType: 'text' }],
        status: 'closed',
      });
      if (method === 'GET') return this.send(res, 200, { count: this.comments(thread).length, value: this.comments(thread).map(threadOf) });
      if (method === 'POST') {
        const first = (body as { comments?: { content?: string }[] }).comments?.[0]?.content ?? '';
        return this.send(res, 200, threadOf(await this.store(thread, first)));
      }
    }
    if ((m = /^\/([^/]+)\/_apis\/git\/repositories\/([^/]+)$/.exec(path)) && method === 'GET') {
      return this.send(res, 200, { id: 'repo-id', name: m[2], project: { name: m[1] }, defaultBranch: 'refs/heads/main' });
    }
    if ((m = /^\/([^/]+)\/_apis\/git\/repositories\/([^/]+)\/refs$/.exec(path)) && method === 'GET') {
      const heads = [
        { name: 'refs/heads/main', objectId: this.headOf(`azure:${m[1]}/${m[2]}`) },
        { name: 'refs/heads/main-old', objectId: 'f'.repeat(40) },
      ];
      const filter = `refs/${q.get('filter') ?? ''}`;
      const value = heads.filter((h) => h.name.startsWith(filter));
      return this.send(res, 200, { count: value.length, value });
    }
    return this.send(res, 404, { message: 'Not Found' });
  }

  private newestFirst(hook: string): FakeDelivery[] {
    return [...(this.deliveries.get(hook) ?? [])].sort((a, b) => b.delivered_at.localeCompare(a.delivered_at));
  }

  private attempt(hook: string, id: number, res: ServerResponse): void {
    const original = (this.deliveries.get(hook) ?? []).find((d) => d.id === id);
    return original ? this.send(res, 202, {}) : this.send(res, 404, { message: 'Not Found' });
  }

  private async post(thread: string, text: string, res: ServerResponse): Promise<void> {
    const c = await this.store(thread, text);
    return this.send(res, 201, thread.startsWith('gitlab:') ? { id: c.id, body: c.body, created_at: c.created_at } : c);
  }

  /** Keeps a posted comment and runs onPost before the answer goes. */
  private async store(thread: string, text: string): Promise<FakeComment> {
    const c = this.addComment(thread, text);
    await this.onPost?.(thread, c);
    return c;
  }

  private send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }
}
