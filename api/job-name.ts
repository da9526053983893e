import { shortHash } from '../lib/hash.js';

const MAX_JOB_NAME = 63; // Jobs label their Pods with job-name, a label value of at most 63 characters.

/**
 * The Job a HeldJob launches has a name derived from the HeldJob's name and uid: the same
 * HeldJob always gets the same name (a retried create meets AlreadyExists), and a HeldJob
 * recreated under an old name never collides with its predecessor's Job.
 */
export function jobNameFor(heldJob: { name: string; uid: string }): string {
  const suffix = shortHash(heldJob.uid, 6);
  const stem = heldJob.name.slice(0, MAX_JOB_NAME - suffix.length - 1).replace(/[-.]+$/, '');
  return `${stem}-${suffix}`;
}
