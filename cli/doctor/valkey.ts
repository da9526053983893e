// Can this machine reach the Valkey at VALKEY_URL? One PING, a short timeout, no retries.
import { Redis } from 'ioredis';

export type PingResult = { readonly ok: true; readonly ms: number } | { readonly ok: false; readonly problem: string };

export async function pingValkey(url: string, timeoutMs: number): Promise<PingResult> {
  const started = Date.now();
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
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
