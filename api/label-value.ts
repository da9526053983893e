// A Kubernetes label value from any name: at most 63 characters of [A-Za-z0-9_.-], starting
// and ending alphanumeric. A HeldJob name may run to 253 characters; one that does not fit
// keeps a readable head and gains a hash of the whole, so two long names never collide.
import { shortHash } from '../lib/hash.js';

export const LABEL_VALUE_MAX = 63;
const VALID = /^(?:[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?)?$/;
const HASH_LEN = 10;

/** `s` itself when it is a valid label value; otherwise a head of it, a dash and a hash of all of it. */
export function labelValue(s: string): string {
  if (VALID.test(s)) return s;
  const head = s
    .replace(/[^A-Za-z0-9_.-]/g, '-')
    .slice(0, LABEL_VALUE_MAX - HASH_LEN - 1)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  return head ? `${head}-${shortHash(s, HASH_LEN)}` : shortHash(s, HASH_LEN);
}
