// Can this machine reach the Valkey at VALKEY_URL? One PING, a short timeout, no retries,
// trusting the CA the operator trusts (WAITGATE_VALKEY_CA_FILE) where that file can be read.
// A name only the cluster's DNS answers (valkey.waitgate.svc) does not resolve on a laptop:
// doctor run outside the cluster says it could not check that, rather than failing it.
import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { Redis } from 'ioredis';
import { disconnectValkey } from '../../lib/valkey/connection.js';
import { fail, ok, warn, type Finding } from './findings.js';

export type PingResult = { readonly ok: true; readonly ms: number } | { readonly ok: false; readonly problem: string };

/** ca: PEM of the CA that signed Valkey's certificate, trusted instead of the system's CAs. */
export async function pingValkey(url: string, timeoutMs: number, ca?: Buffer): Promise<PingResult> {
  const started = Date.now();
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    // ioredis turns TLS on for rediss:// by itself; given, these options replace its default ones.
    ...(ca !== undefined ? { tls: { ca } } : {}),
  });
  // The connection's own error (ECONNREFUSED, ...) says more than the rejection ("Connection is closed").
  let lastError: Error | undefined;
  redis.on('error', (err: Error) => {
    lastError = err;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    const pong = await Promise.race([redis.connect().then(() => redis.ping()), deadline]);
    if (pong !== 'PONG') return { ok: false, problem: `PING answered ${JSON.stringify(pong)}` };
    return { ok: true, ms: Date.now() - started };
  } catch (err) {
    const message = lastError?.message ?? (err instanceof Error ? err.message : String(err));
    return { ok: false, problem: message.replace(/\.+$/, '') };
  } finally {
    clearTimeout(timer);
    disconnectValkey(redis);
  }
}

/** The URL without its credentials: `redis://valkey.example:6379`. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const secret = u.username !== '' || u.password !== '';
    return `${u.protocol}//${u.host}${u.pathname && u.pathname !== '/' ? u.pathname : ''}${secret ? ' (credentials not shown)' : ''}`;
  } catch {
    return '(a URL that does not parse)';
  }
}

/**
 * Whether `host` has the shape of a name the cluster's DNS gives: a Service's short forms
 * (`valkey`, `valkey.waitgate`), anything with a `svc` label (`valkey.waitgate.svc`,
 * `valkey.waitgate.svc.cluster.local`), or a name under `cluster.local`. Addresses and
 * localhost are not. Pure.
 */
export function clusterDnsName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  if (h === '' || h === 'localhost' || isIP(h.replace(/^\[|\]$/g, '')) !== 0) return false;
  const labels = h.split('.');
  return labels.length <= 2 || labels.includes('svc') || h.endsWith('.cluster.local');
}

/** The DNS answers that mean "no such name here" (not a server that failed). */
const NOT_RESOLVED = new Set(['ENOTFOUND', 'EAI_NONAME', 'EAI_AGAIN', 'ENODATA']);

export interface ValkeyCheckOptions {
  /** The operator's WAITGATE_VALKEY_CA_FILE, a path inside its pod. */
  readonly caFile: string | undefined;
  readonly timeoutMs: number;
  /** Whether doctor runs inside the cluster (a Pod: KUBERNETES_SERVICE_HOST is set), where cluster names resolve. */
  readonly inCluster: boolean;
  /** Resolves a host name; rejects with the DNS error's code. node's dns.lookup by default. */
  readonly resolve?: (host: string) => Promise<unknown>;
  /** Sends the PING; pingValkey by default. */
  readonly ping?: typeof pingValkey;
}

/**
 * The valkey finding: VALKEY_URL set, and answering PING. caFile is the operator's
 * WAITGATE_VALKEY_CA_FILE: a path inside its pod. The helm test Pod mounts the same CA at the
 * same path, so there it is trusted as the operator trusts it; where the file cannot be read
 * (doctor on a workstation) the system's CAs stand in, and the finding says so. Outside the
 * cluster, a cluster DNS name that does not resolve is a warning that says Valkey was not
 * checked; inside it, or for any other name, not answering is a failure.
 */
export async function valkeyFindings(url: string | undefined, opts: ValkeyCheckOptions): Promise<Finding[]> {
  const { caFile, timeoutMs } = opts;
  if (url === undefined) return [fail('valkey', 'VALKEY_URL is not set: the operator will not start without it')];
  const unresolved = opts.inCluster ? undefined : await clusterNameUnresolved(url, opts.resolve ?? ((h) => lookup(h)));
  if (unresolved !== undefined) {
    return [
      warn(
        'valkey',
        `${redactUrl(url)} not checked: ${unresolved.host} is a name of the cluster's DNS, which does not resolve here (${unresolved.code}). The operator resolves it inside the cluster; \`helm test\` runs doctor there, where it is checked`,
      ),
    ];
  }
  let ca: Buffer | undefined;
  let note = '';
  if (caFile !== undefined) {
    try {
      ca = readFileSync(caFile);
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
      note = ` (the operator's CA certificate ${caFile}, WAITGATE_VALKEY_CA_FILE, cannot be read here: ${why}; the system's CAs stood in. \`helm test\` checks from inside the cluster, where it is mounted)`;
    }
  }
  const r = await (opts.ping ?? pingValkey)(url, timeoutMs, ca);
  return r.ok
    ? [ok('valkey', `${redactUrl(url)} answers PING (${r.ms} ms)${note}`)]
    : [fail('valkey', `${redactUrl(url)} does not answer PING: ${r.problem}${note}. No check and no Job can take a slot until it does`)];
}

/** The host and the DNS code when the URL names a cluster DNS name that does not resolve; undefined otherwise. */
async function clusterNameUnresolved(
  url: string,
  resolve: (host: string) => Promise<unknown>,
): Promise<{ host: string; code: string } | undefined> {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return undefined;
  }
  if (!clusterDnsName(host)) return undefined;
  try {
    await resolve(host);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code !== undefined && NOT_RESOLVED.has(code) ? { host, code } : undefined;
  }
}
