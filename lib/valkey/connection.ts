// The one way a program connects to Valkey.
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';

/**
 * A Valkey command not answered within this fails ("Command timed out"), and a connection that
 * owes answers and has said nothing for as long is dropped and made again: a server that accepts
 * connections and never answers must not hold a caller forever.
 */
export const VALKEY_COMMAND_TIMEOUT_MS = 5_000;

export interface ValkeyOptions {
  /** Default VALKEY_COMMAND_TIMEOUT_MS. */
  readonly commandTimeoutMs?: number;
  /**
   * A PEM file of the CA that signed Valkey's certificate, trusted for a rediss:// URL instead
   * of the system's CAs (WAITGATE_VALKEY_CA_FILE). Read once, here; an unreadable file throws.
   */
  readonly caFile?: string | undefined;
}

/** Connects without retrying each command forever: callers decide what a failure means. */
export function connectValkey(url: string, options: ValkeyOptions = {}): Redis {
  const timeoutMs = options.commandTimeoutMs ?? VALKEY_COMMAND_TIMEOUT_MS;
  return new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: false,
    commandTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    // ioredis turns TLS on for rediss:// by itself; given here, these options replace its default ones.
    ...(options.caFile !== undefined ? { tls: { ca: readFileSync(options.caFile) } } : {}),
  });
}

/**
 * Disconnects, with the socket's late errors answered: a server that refused the TLS handshake
 * may send its alert after the client has let go of the socket, and an 'error' nobody listens
 * to would end the process (doctor with the wrong CA) or fail a test.
 */
export function disconnectValkey(redis: Redis): void {
  (redis as unknown as { stream?: NodeJS.EventEmitter }).stream?.on('error', () => undefined);
  redis.disconnect();
}
