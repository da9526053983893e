// One short hash for names, labels and keys: the first `n` hex digits of SHA-256.
import { createHash } from 'node:crypto';

/** The first `n` hex digits (default 16) of the SHA-256 of `s`. Stable across releases. */
export function shortHash(s: string | Buffer, n = 16): string {
  return createHash('sha256').update(s).digest('hex').slice(0, n);
}
