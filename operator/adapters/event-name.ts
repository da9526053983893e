// The name of an Event on a HeldJob, derived from what it says: the same Event said again (a
// retry, another pass, a restarted operator) meets its own name, AlreadyExists, and is counted
// on the existing one instead of piling up. Nothing is remembered in memory.
import { shortHash } from '../../lib/hash.js';
import type { EventSpec } from '../decide/actions.js';

/** A DNS subdomain name may be 253 characters long; the hash takes 17 with its dot. */
const NAME_MAX = 253;
const HASH_LENGTH = 16;

/** `<heldjob>.<hash of uid, type, reason, message>`, a valid DNS subdomain name. */
export function eventName(heldJob: { readonly name: string; readonly uid: string }, event: EventSpec): string {
  const hash = shortHash([heldJob.uid, event.type, event.reason, event.message].join('\n'), HASH_LENGTH);
  // A cut name must still end in a letter or digit before the dot.
  const base = heldJob.name.slice(0, NAME_MAX - HASH_LENGTH - 1).replace(/[^a-z0-9]+$/, '');
  return `${base}.${hash}`;
}
