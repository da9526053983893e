// The record that a `once` trigger has fired for a target. It is an OnceRecord (a resource of
// its own, api/once-record-schema.ts) in the job namespace, named by trigger and target, so it outlives the HeldJob it made (deleted by
// hand or when finished) and Valkey (which may lose its keys), and two deliveries that race
// meet one name: the apiserver lets exactly one of them create it. It names the delivery that
// made it, so that delivery handled again (its HeldJob's create failed, its answer lost) goes
// on, where any other delivery finds the trigger spent. Ids only, like the HeldJob.
import { OnceState } from '../../api/once-record-schema.js';
import { Annotations, API_GROUP, API_VERSION, Labels, MANAGED_BY, ONCE_RECORD_KIND } from '../../api/vocabulary.js';
import { shortHash } from '../../lib/hash.js';
import type { LabelEvent } from '../forges/event.js';

export { OnceState };

/** What a once record is; its `component` label value. */
export const ONCE_RECORD_COMPONENT = 'once-record';

export interface OnceRecord {
  readonly forge: string;
  readonly delivery: string;
  readonly heldJob: string;
  readonly state: OnceState;
}

export interface OnceRecordManifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { name: string; namespace: string; labels: Record<string, string>; annotations: Record<string, string> };
  readonly spec: Record<string, string>;
}

/** `waitgate-once-<hash>`: one name per trigger and target, whichever delivery comes. */
export function onceRecordName(trigger: string, target: string): string {
  return `waitgate-once-${shortHash(`${trigger}\n${target}`, 20)}`;
}

/**
 * How long an OnceRecord spends its trigger for its target by default (#30, finding 7: they
 * were never deleted): 90 days. WAITGATE_ONCE_RECORD_TTL_MS sets it.
 */
export const ONCE_RECORD_TTL_MS = 90 * 86_400_000;

/** Whether a record's expiry (its waitgate.dev/expires-at) has passed at `now`; a record without one never expires. */
export function onceRecordExpired(expiresAt: string | undefined, now: number): boolean {
  if (expiresAt === undefined) return false;
  const at = Date.parse(expiresAt);
  return !Number.isNaN(at) && at <= now;
}

/** The record this delivery claims, naming the HeldJob it is about to create, expiring `ttlMs` after `now`. */
export function onceRecordManifest(
  event: LabelEvent,
  trigger: string,
  namespace: string,
  heldJob: string,
  now: number = Date.now(),
  ttlMs: number = ONCE_RECORD_TTL_MS,
): OnceRecordManifest {
  return {
    apiVersion: `${API_GROUP}/${API_VERSION}`,
    kind: ONCE_RECORD_KIND,
    metadata: {
      name: onceRecordName(trigger, event.target),
      namespace,
      labels: {
        [Labels.managedBy]: MANAGED_BY,
        'app.kubernetes.io/component': ONCE_RECORD_COMPONENT,
        [Labels.triggerHash]: shortHash(trigger),
        [Labels.targetHash]: shortHash(event.target),
      },
      annotations: { [Annotations.expiresAt]: new Date(now + ttlMs).toISOString() },
    },
    spec: {
      trigger,
      target: event.target,
      forge: event.forge,
      delivery: event.deliveryId,
      heldJob,
      state: OnceState.Claimed,
    },
  };
}

/** A record's spec as the receiver wrote it, or undefined when it is not that. */
export function readOnceRecord(spec: Readonly<Record<string, unknown>> | undefined): OnceRecord | undefined {
  const text = (k: string) => (typeof spec?.[k] === 'string' ? spec[k] : undefined);
  const [forge, delivery, heldJob, state] = [text('forge'), text('delivery'), text('heldJob'), text('state')];
  if (!forge || !delivery || !heldJob || (state !== OnceState.Claimed && state !== OnceState.Fired)) return undefined;
  return { forge, delivery, heldJob, state };
}

export type OnceDecision =
  /** This delivery holds the record and its HeldJob may not be there yet: create it. */
  | { readonly kind: 'fire' }
  /** This delivery fired the trigger before; its HeldJob was created. Nothing to do. */
  | { readonly kind: 'fired'; readonly heldJob: string }
  /** Another delivery fired it: once-spent. */
  | { readonly kind: 'spent'; readonly by: string };

/**
 * What a delivery does with the record already there. A record that cannot be read still
 * says the trigger fired: once means at most once, so doubt spends it.
 */
export function decideOnce(spec: Readonly<Record<string, unknown>> | undefined, event: LabelEvent): OnceDecision {
  const record = readOnceRecord(spec);
  const named = spec?.['heldJob'];
  if (!record) return { kind: 'spent', by: (typeof named === 'string' && named) || 'an unreadable once record' };
  if (record.forge !== event.forge || record.delivery !== event.deliveryId) return { kind: 'spent', by: record.heldJob };
  return record.state === OnceState.Fired ? { kind: 'fired', heldJob: record.heldJob } : { kind: 'fire' };
}
