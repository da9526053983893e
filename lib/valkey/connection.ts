// The one way a program connects to Valkey.
import { Redis } from 'ioredis';

/** Connects without retrying each command forever: callers decide what a failure means. */
export function connectValkey(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
}
