// Cancelling one HeldJob, the one way both doors do it: `waitgate cancel NAME` and the x key of
// `waitgate held --watch`. Deleting is the whole cancel: the operator's finalizer stops a
// running check, gives back the slots and, when the Job already runs, deletes it and records
// operator-cancel. The delete carries the uid of the HeldJob that was seen, so a newer one that
// took the same name in between is never removed. What it was is said from the object the
// delete found (classify and describeCancel are pure).
import * as k8s from '@kubernetes/client-node';
import { TARGET_PATTERN, type HeldJobObject } from '../api/heldjob-schema.js';
import { Annotations, API_GROUP, API_VERSION, HELDJOB_PLURAL, OPERATOR_CANCEL, Phase } from '../api/vocabulary.js';
import { annotateHeldJob, whoAmI } from './approve-heldjob.js';
import { statusCodeOf } from '../lib/kube/client.js';
import { oneLine } from './format.js';

export type CancelKind = 'held' | 'queued' | 'running' | 'finished';

export interface CancelSubject {
  readonly kind: CancelKind;
  readonly phase: string;
  readonly target: string | undefined;
  readonly jobName: string | undefined;
  /** The refusal token of a Refused one. */
  readonly reason: string | undefined;
  /** Someone had already asked for it to go. */
  readonly alreadyDeleting: boolean;
}

const TARGET = new RegExp(TARGET_PATTERN);

/** What a HeldJob is, as far as cancelling it goes. No status yet reads as queued. */
export function classify(hj: HeldJobObject): CancelSubject {
  const phase = hj.status?.phase ?? Phase.Pending;
  const target = (hj.spec as { target?: unknown } | undefined)?.target;
  const kind: CancelKind =
    phase === Phase.Held ? 'held' : phase === Phase.Pending ? 'queued' : phase === Phase.Running ? 'running' : 'finished';
  return {
    kind,
    phase,
    target: typeof target === 'string' && target.length <= 256 && TARGET.test(target) ? target : undefined,
    jobName: typeof hj.status?.jobName === 'string' && hj.status.jobName !== '' ? oneLine(hj.status.jobName, 253) : undefined,
    reason: typeof hj.status?.reason === 'string' && hj.status.reason !== '' ? hj.status.reason : undefined,
    alreadyDeleting: Boolean(hj.metadata.deletionTimestamp),
  };
}

/** The sentence that says what was cancelled. */
export function describeCancel(ref: string, s: CancelSubject): string {
  const who = `${ref}${s.target ? ` (${s.target})` : ''}`;
  const lead = s.alreadyDeleting
    ? `${who} was already being cancelled:`
    : s.kind === 'finished'
      ? `Deleting the record of ${who}:`
      : `Cancelling ${who}:`;
  switch (s.kind) {
    case 'held':
      return `${lead} it was held on its conditions and never ran; nothing will start.`;
    case 'queued':
      return `${lead} it was queued (Pending, its hold had not begun) and never ran; nothing will start.`;
    case 'running':
      return `${lead} it was running; its Job${s.jobName ? ` ${s.jobName}` : ''} is deleted with it and the record says ${OPERATOR_CANCEL}.`;
    case 'finished':
      return `${lead} it had already finished (${s.phase}${s.reason ? `, ${s.reason}` : ''}); there was nothing to stop.`;
  }
}

export type CancelOutcome =
  /** The delete was accepted (or it was already gone): what it was. */
  | { readonly kind: 'deleted'; readonly subject: CancelSubject }
  /** Another HeldJob now has its name: nothing was deleted. */
  | { readonly kind: 'replaced' };

/**
 * Best effort: writes waitgate.dev/cancelled-by (the requester's own name, as the admission
 * policy demands) before the delete, so the operator's cancel record says who. Refused or
 * unanswered, the cancel goes on without it: nothing stands between a user and the stop.
 */
async function nameTheCanceller(kc: k8s.KubeConfig, seen: HeldJobObject): Promise<void> {
  if (seen.metadata.deletionTimestamp || seen.metadata.annotations?.[Annotations.cancelledBy] !== undefined) return;
  try {
    const me = await whoAmI(kc);
    await annotateHeldJob(kc, seen, { [Annotations.cancelledBy]: me.username });
  } catch {
    // forbidden, changed meanwhile, or no answer: delete anyway
  }
}

/**
 * Deletes exactly `seen` (its uid is the precondition). A HeldJob already gone counts as
 * deleted. Throws the apiserver's error for anything else (403, no answer).
 */
export async function cancelHeldJob(kc: k8s.KubeConfig, seen: HeldJobObject): Promise<CancelOutcome> {
  const { namespace, name, uid } = seen.metadata;
  let subject = classify(seen);
  await nameTheCanceller(kc, seen);
  try {
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    const after = (await custom.deleteNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: HELDJOB_PLURAL,
      namespace,
      name,
      body: { preconditions: { uid } },
    })) as Partial<HeldJobObject> | undefined;
    // The object as the delete found it tells what it was at that moment.
    if (after?.metadata?.uid === uid && !subject.alreadyDeleting) subject = { ...classify(after as HeldJobObject), alreadyDeleting: false };
  } catch (err) {
    if (statusCodeOf(err) === 409) return { kind: 'replaced' };
    if (statusCodeOf(err) !== 404) throw err;
  }
  return { kind: 'deleted', subject };
}
