// The receiver's shutdown: readiness fails first (so the Service stops sending), the listener
// stays open for the grace period meanwhile (connections already routed here are still served),
// then it closes and the deliveries in flight finish before the process exits.
import type { Server } from 'node:http';

export interface DrainOptions {
  /** How long readiness has failed before the listener closes, ms. */
  readonly graceMs: number;
  /** The most the deliveries in flight may take after the listener closed, ms; then they are cut. */
  readonly deadlineMs: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface DrainResult {
  /** Whether every connection ended by itself before the deadline. */
  readonly drained: boolean;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * Closes `server` gracefully: waits graceMs, stops accepting, closes keep-alive connections as
 * they fall idle (a finished response's connection is not reused), waits for the open requests
 * up to deadlineMs, then cuts what is left.
 */
export async function drainServer(server: Server, options: DrainOptions): Promise<DrainResult> {
  const sleep = options.sleep ?? defaultSleep;
  await sleep(options.graceMs);
  const closed = new Promise<boolean>((resolve) => server.close(() => resolve(true)));
  const idle = setInterval(() => server.closeIdleConnections(), 50);
  try {
    const drained = await Promise.race([closed, sleep(options.deadlineMs).then(() => false)]);
    if (!drained) server.closeAllConnections();
    return { drained };
  } finally {
    clearInterval(idle);
  }
}
