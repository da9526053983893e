// The record that a `once` trigger has fired for a target. It is a ConfigMap of its own in the
// job namespace, named by trigger and target, so it outlives the HeldJob it made (deleted by
// hand or when finished) and Valkey (which may lose its keys), and two deliveries that race
// meet one name: the apiserver lets exactly one of them create it. It names the delivery that
// made it, so that delivery handled again (its HeldJob's create failed, its answer lost) goes
// on, where any other delivery finds the trigger spent. Ids only, like the HeldJob.
import { Labels, MANAGED_BY } from '../../api/vocabulary.js';
import { shortHash } from '../../lib/hash.js';
import type { LabelEvent } from '../forges/event.js';

/** What a once record is; `component` label value, so `kubectl get cm -l` finds them all. */
export const ONCE_RECORD_COMPONENT = 'once-record';

/** Claimed when the delivery took the record; fired once its HeldJob was created. */
export const OnceState = { Claimed: 'claimed', Fired: 'fired' } as const;
export type OnceState = (typeof OnceState)[keyof typeof OnceState];

export interface OnceRecord {
  readonly forge: string;
  readonly delivery: string;
  readonly heldJob: string;
  readonly state: OnceState;
}

export interface OnceRecordManifest {
  readonly metadata: { name: string; namespace: string; labels: Record<string, string> };
  readonly data: Record<string, string>;
}

/** `waitgate-once-<hash>`: one name per trigger and target, whichever delivery comes. */
export function onceRecordName(trigger: string, target: string): string {
  return `waitgate-once-${shortHash(`${trigger}\n${target}`, 20)}`;
}

/** The record this delivery claims, naming the HeldJob it is about to create. */
export function onceRecordManifest(event: LabelEvent, trigger: string, namespace: string, heldJob: string): OnceRecordManifest {
  return {
    metadata: {
      name: onceRecordName(trigger, event.target),
      namespace,
      labels: {
        [Labels.managedBy]: MANAGED_BY,
        'app.kubernetes.io/component': ONCE_RECORD_COMPONENT,
        [Labels.triggerHash]: shortHash(trigger),
        [Labels.targetHash]: shortHash(event.target),
      },
    },
    data: {
      trigger,
      target: event.target,
      forge: event.forge,
      delivery: event.deliveryId,
      heldJob,
      state: OnceState.Claimed,
    },
  };
}

/** A record's data as the receiver wrote it, or undefined when it is not that. */
export function readOnceRecord(data: Readonly<Record<string, string>> | undefined): OnceRecord | undefined {
  const { forge, delivery, heldJob, state } = data ?? {};
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
export function decideOnce(data: Readonly<Record<string, string>> | undefined, event: LabelEvent): OnceDecision {
  const record = readOnceRecord(data);
  if (!record) return { kind: 'spent', by: data?.['heldJob'] || 'an unreadable once record' };
  if (record.forge !== event.forge || record.delivery !== event.deliveryId) return { kind: 'spent', by: record.heldJob };
  return record.state === OnceState.Fired ? { kind: 'fired', heldJob: record.heldJob } : { kind: 'fire' };
}
