// What a label event asks for, decided without I/O: which triggers it fires, and for each
// whether it may hold or is refused before anything is created.
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { waitForRefusal, type DeclaredProfiles } from '../../api/refusal-rules.js';
import type { Trigger } from '../../api/triggers/triggers-file.js';
import { Annotations, Labels, MANAGED_BY, Phase, type RefusalToken } from '../../api/vocabulary.js';
import { shortHash } from '../../lib/hash.js';
import type { LabelEvent } from '../forges/event.js';

/** Bumped whenever what the receiver writes into a HeldJob changes meaning. */
export const RECEIVER_SCHEMA_VERSION = '1';

/** A hold that finished waiting keeps refusing new deliveries for this long. */
export const SUPERSEDE_WINDOW_MS = 15 * 60_000;
/** Identical redeliveries (same delivery id) are dropped for this long. */
export const DEDUP_WINDOW_MS = 10 * 60_000;

export type Verdict = { readonly kind: 'hold' } | { readonly kind: 'refuse'; readonly token: RefusalToken; readonly message: string };

export interface PlannedTrigger {
  readonly trigger: Trigger;
  readonly verdict: Verdict;
}

/** Label triggers whose labels this event added (and whose kind, if it names a forge, is this one). */
export function matchTriggers(event: LabelEvent, triggers: readonly Trigger[]): Trigger[] {
  const added = new Set(event.addedLabels);
  return triggers.filter((t) => {
    if (t.on.type !== 'label') return false;
    const kind = t.run.kind;
    if ((kind === 'github' || kind === 'gitlab') && kind !== event.forge) return false;
    return t.on.any.some((l) => added.has(l));
  });
}

/**
 * Whether the trigger may hold, by the refusal rules (api/refusal-rules.ts), measured from
 * the delivery (`now`). Profiles that cannot be read refuse nothing: the operator pauses
 * such holds until they can.
 */
export function verdictFor(trigger: Trigger, profiles: DeclaredProfiles, now: number, afterMaxMs: number): Verdict {
  const refusal = waitForRefusal(trigger.run.waitFor, profiles, now, afterMaxMs);
  return refusal ? { kind: 'refuse', token: refusal.token, message: refusal.message } : { kind: 'hold' };
}

export function plan(
  event: LabelEvent,
  triggers: readonly Trigger[],
  profiles: DeclaredProfiles,
  now: number,
  afterMaxMs: number,
): PlannedTrigger[] {
  return matchTriggers(event, triggers).map((trigger) => ({ trigger, verdict: verdictFor(trigger, profiles, now, afterMaxMs) }));
}

/** The label selector of the HeldJobs of one trigger for one target (heldJobManifest's labels). */
export function siblingSelector(triggerName: string, target: string): string {
  return `${Labels.triggerHash}=${shortHash(triggerName)},${Labels.targetHash}=${shortHash(target)}`;
}

/**
 * The live HeldJob that a new delivery for the same trigger and target would stack on:
 * one still waiting, or one that finished waiting less than 15 minutes ago.
 */
export function supersededBy(records: readonly HeldJobObject[], now: number): string | undefined {
  for (const r of records) {
    if (r.metadata.annotations?.[Annotations.refusal]) continue;
    const phase = r.status?.phase;
    if (phase === undefined || phase === Phase.Pending || phase === Phase.Held) return r.metadata.name;
    const launched = r.status?.launchedAt ? Date.parse(r.status.launchedAt) : NaN;
    if (!Number.isNaN(launched) && now - launched < SUPERSEDE_WINDOW_MS) return r.metadata.name;
  }
  return undefined;
}

function slug(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** `web-7-deploy-1a2b3c`: readable, unique per delivery and trigger, a valid object name. */
export function heldJobName(event: LabelEvent, trigger: Trigger): string {
  const m = /([^/]+)[#!](\d+)$/.exec(event.target);
  const stem = slug(`${m?.[1] ?? 'target'}-${m?.[2] ?? ''}-${trigger.name}`)
    .slice(0, 48)
    .replace(/-+$/, '');
  return `${stem || 'heldjob'}-${shortHash(`${event.forge}/${event.deliveryId}/${trigger.name}`, 6)}`;
}

export interface HeldJobManifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { name: string; namespace: string; labels: Record<string, string>; annotations: Record<string, string> };
  readonly spec: Record<string, unknown>;
}

/** The HeldJob a planned trigger becomes: a hold, or the record of a refusal. */
export function heldJobManifest(event: LabelEvent, planned: PlannedTrigger, namespace: string): HeldJobManifest {
  const { trigger, verdict } = planned;
  const annotations: Record<string, string> = {
    [Annotations.delivery]: event.deliveryId,
    [Annotations.receiverSchema]: RECEIVER_SCHEMA_VERSION,
  };
  if (verdict.kind === 'refuse') {
    annotations[Annotations.refusal] = verdict.token;
    annotations[Annotations.refusalMessage] = verdict.message;
  }
  return {
    apiVersion: 'waitgate.dev/v1alpha1',
    kind: 'HeldJob',
    metadata: {
      name: heldJobName(event, trigger),
      namespace,
      labels: {
        [Labels.managedBy]: MANAGED_BY,
        [Labels.triggerHash]: shortHash(trigger.name),
        [Labels.targetHash]: shortHash(event.target),
        [Labels.forge]: event.forge,
      },
      annotations,
    },
    spec: {
      target: event.target,
      trigger: trigger.name,
      ...(trigger.run.waitFor && trigger.run.waitFor.length > 0 ? { waitFor: trigger.run.waitFor } : {}),
      job: trigger.run.job,
    },
  };
}
