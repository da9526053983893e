import { createHash } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';

/**
 * A request/response call to the apiserver (get, list, create, update, patch, delete) that has
 * not answered within this is abandoned: an apiserver that accepts connections and never answers
 * must not hold a caller forever. Watches do not go through the API clients and are not cut short.
 */
export const KUBE_REQUEST_TIMEOUT_MS = 30_000;

export interface KubeConfigOptions {
  /** Default KUBE_REQUEST_TIMEOUT_MS. */
  readonly requestTimeoutMs?: number;
}

/** Loads a kubeconfig file when one is named, else the in-cluster service account; every API call times out. */
export function loadKubeConfig(path: string | undefined, options: KubeConfigOptions = {}): k8s.KubeConfig {
  const kc = new TimedKubeConfig(options.requestTimeoutMs ?? KUBE_REQUEST_TIMEOUT_MS);
  if (path) kc.loadFromFile(path);
  else kc.loadFromCluster();
  return kc;
}

/** What a call that got no answer in time fails with. Carries no HTTP code: the apiserver never said. */
export class KubeRequestTimeoutError extends Error {
  override readonly name = 'KubeRequestTimeoutError';
  constructor(
    readonly method: string,
    readonly path: string,
    readonly timeoutMs: number,
  ) {
    super(`${method} ${path}: no answer from the apiserver within ${timeoutMs} ms`);
  }
}

/**
 * Sends each request with an AbortSignal that fires after `timeoutMs`, or sooner when the call
 * brought a signal of its own (see abortWith).
 */
export class TimeoutHttpLibrary implements k8s.HttpLibrary {
  constructor(
    private readonly inner: k8s.HttpLibrary,
    private readonly timeoutMs: number,
  ) {}

  send(request: k8s.RequestContext): k8s.Observable<k8s.ResponseContext> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const own = request.getSignal();
    request.setSignal(own ? AbortSignal.any([own, timeout]) : timeout);
    const sent = this.inner
      .send(request)
      .toPromise()
      .catch((err: unknown) => {
        if (timeout.aborted && !own?.aborted) {
          throw new KubeRequestTimeoutError(request.getHttpMethod(), new URL(request.getUrl()).pathname, this.timeoutMs);
        }
        throw err;
      });
    return new k8s.Observable(sent);
  }
}

/**
 * A KubeConfig whose API clients (makeApiClient) abandon every call not answered within
 * `requestTimeoutMs`. Watches and informers use the connection options (applyToFetchOptions),
 * not API clients, so a long-lived watch is left alone.
 */
export class TimedKubeConfig extends k8s.KubeConfig {
  constructor(readonly requestTimeoutMs: number) {
    super();
    pooledDispatchers(this);
  }

  override makeApiClient<T extends k8s.ApiType>(apiClientType: k8s.ApiConstructor<T>): T {
    const cluster = this.getCurrentCluster();
    if (!cluster) throw new Error('No active cluster!');
    // As KubeConfig.makeApiClient does, with the HTTP library wrapped.
    return new apiClientType(
      k8s.createConfiguration({
        baseServer: new k8s.ServerConfiguration(cluster.server, {}),
        authMethods: { default: this },
        httpApi: new TimeoutHttpLibrary(new k8s.IsomorphicFetchHttpLibrary(), this.requestTimeoutMs),
      }),
    );
  }
}

type DispatcherFactory = (cluster: k8s.Cluster | null, agentOptions: Record<string, unknown>) => { close(): Promise<void> } | undefined;

/**
 * client-node 2.0 gives every API call a dispatcher (an undici Agent) of its own, so each call
 * opens a new connection and makes a new TLS handshake: at thousands of holds that is most of
 * the operator's CPU and leaves its allocator holding what the handshakes used. The dispatcher
 * is kept instead, one per set of connection options (server, CA, client certificate and key,
 * verification), so calls share kept-alive connections. Credentials read from files are read
 * on each call as before; when they change (a rotated certificate) the next call gets a new
 * dispatcher and the old one closes once its calls have finished. Bearer tokens are headers,
 * not connection options, and are untouched.
 */
function pooledDispatchers(kc: k8s.KubeConfig): void {
  const target = kc as unknown as { createDispatcher: DispatcherFactory };
  const create = target.createDispatcher.bind(kc);
  let kept: { key: string; dispatcher: ReturnType<DispatcherFactory> } | undefined;
  target.createDispatcher = (cluster, agentOptions) => {
    const hash = createHash('sha256');
    hash.update(JSON.stringify([cluster?.name, cluster?.server, cluster?.proxyUrl, cluster?.tlsServerName]));
    for (const name of ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername']) {
      const v = agentOptions[name];
      hash.update(`${name}:${Buffer.isBuffer(v) || typeof v === 'string' ? '' : JSON.stringify(v ?? null)}`);
      if (Buffer.isBuffer(v) || typeof v === 'string') hash.update(v);
      hash.update('\0');
    }
    const key = hash.digest('hex');
    if (kept?.key === key) return kept.dispatcher;
    const previous = kept?.dispatcher;
    kept = { key, dispatcher: create(cluster, agentOptions) };
    void previous?.close().catch(() => undefined);
    return kept.dispatcher;
  };
}

/**
 * Per-call options for a generated API method: the call is abandoned when `signal` aborts (for a
 * deadline shorter than the client's own timeout). Added to, not in place of, other middleware.
 */
export function abortWith(signal: AbortSignal, options: k8s.ConfigurationOptions = {}): k8s.ConfigurationOptions {
  const middleware: k8s.ObservableMiddleware = {
    pre: (context) => {
      context.setSignal(signal);
      return new k8s.Observable(Promise.resolve(context));
    },
    post: (response) => new k8s.Observable(Promise.resolve(response)),
  };
  return { ...options, middleware: [...(options.middleware ?? []), middleware], middlewareMergeStrategy: 'append' };
}

/** The HTTP status of a client-node error, if it carries one. */
export function statusCodeOf(err: unknown): number | undefined {
  if (err instanceof k8s.ApiException) return err.code;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** The apiserver's own message for an API error (its Status body), else the error's first line. */
export function apiMessageOf(err: unknown): string {
  if (err instanceof k8s.ApiException) {
    const body: unknown = err.body;
    try {
      const parsed: unknown = typeof body === 'string' ? JSON.parse(body) : body;
      const m = (parsed as { message?: unknown } | null)?.message;
      if (typeof m === 'string' && m !== '') return m;
    } catch {
      // not JSON
    }
    return `HTTP ${err.code}`;
  }
  if (err instanceof Error) return err.message.split('\n')[0] ?? err.name;
  return String(err);
}
