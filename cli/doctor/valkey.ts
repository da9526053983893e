// Can this machine reach the Valkey at VALKEY_URL? One PING, a short timeout, no retries,
// trusting the CA the operator trusts (WAITGATE_VALKEY_CA_FILE) where that file can be read.
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { fail, ok, type Finding } from './findings.js';

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
    redis.disconnect();
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
 * The valkey finding: VALKEY_URL set, and answering PING. caFile is the operator's
 * WAITGATE_VALKEY_CA_FILE: a path inside its pod. The helm test Pod mounts the same CA at the
 * same path, so there it is trusted as the operator trusts it; where the file cannot be read
 * (doctor on a workstation) the system's CAs stand in, and the finding says so.
 */
export async function valkeyFindings(url: string | undefined, caFile: string | undefined, timeoutMs: number): Promise<Finding[]> {
  if (url === undefined) return [fail('valkey', 'VALKEY_URL is not set: the operator will not start without it')];
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
  const r = await pingValkey(url, timeoutMs, ca);
  return r.ok
    ? [ok('valkey', `${redactUrl(url)} answers PING (${r.ms} ms)${note}`)]
    : [fail('valkey', `${redactUrl(url)} does not answer PING: ${r.problem}${note}. No check and no Job can take a slot until it does`)];
}
