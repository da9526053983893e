// What a label event asks for, decided without I/O: which triggers it fires, and for each
// whether it may hold or is refused before anything is created.
import { createHash } from 'node:crypto';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { parseInstant } from '../../api/instant.js';
import type { Trigger } from '../../api/triggers/triggers-file.js';
import { Annotations, Phase, RefusalToken } from '../../api/vocabulary.js';
import type { LabelEvent } from '../forges/event.js';

/** Bumped whenever what the receiver writes into a HeldJob changes meaning. */
export const RECEIVER_SCHEMA_VERSION = '1';

/** A hold that finished waiting keeps refusing new deliveries for this long. */
export const SUPERSEDE_WINDOW_MS = 15 * 60_000;
/** Identical redeliveries (same delivery id) are dropped for this long. */
export const DEDUP_WINDOW_MS = 10 * 60_000;

export const RecordLabels = {
  triggerHash: 'waitgate.dev/trigger-hash',
  targetHash: 'waitgate.dev/target-hash',
  forge: 'waitgate.dev/forge',
} as const;

export type Verdict =
  | { readonly kind: 'hold' }
  | { readonly kind: 'refuse'; readonly token: RefusalToken; readonly message: string };

export interface PlannedTrigger {
  readonly trigger: Trigger;
  readonly verdict: Verdict;
}

export const shortHash = (s: string, n = 16): string => createHash('sha256').update(s).digest('hex').slice(0, n);

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

export function verdictFor(trigger: Trigger, profiles: ReadonlySet<string>, now: number, afterMaxMs: number): Verdict {
  for (const c of trigger.run.waitFor ?? []) {
    if ('profile' in c && !profiles.has(c.profile)) {
      return { kind: 'refuse', token: RefusalToken.ProfileUnknown, message: `profile "${c.profile}" is not declared in waitgate-profiles` };
    }
    if ('after' in c) {
      const p = parseInstant(c.after);
      if (p.ok && p.epochMs - now > afterMaxMs) {
        return {
          kind: 'refuse',
          token: RefusalToken.AfterBeyondMax,
          message: `after ${c.after} lies more than ${afterMaxMs} ms ahead`,
        };
      }
    }
  }
  return { kind: 'hold' };
}

export function plan(event: LabelEvent, triggers: readonly Trigger[], profiles: ReadonlySet<string>, now: number, afterMaxMs: number): PlannedTrigger[] {
  return matchTriggers(event, triggers).map((trigger) => ({ trigger, verdict: verdictFor(trigger, profiles, now, afterMaxMs) }));
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
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}

/** `web-7-deploy-1a2b3c`: readable, unique per delivery and trigger, a valid object name. */
export function heldJobName(event: LabelEvent, trigger: Trigger): string {
  const m = /([^/]+)[#!](\d+)$/.exec(event.target);
  const stem = slug(`${m?.[1] ?? 'target'}-${m?.[2] ?? ''}-${trigger.name}`).slice(0, 48).replace(/-+$/, '');
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
        'app.kubernetes.io/managed-by': 'waitgate',
        [RecordLabels.triggerHash]: shortHash(trigger.name),
        [RecordLabels.targetHash]: shortHash(event.target),
        [RecordLabels.forge]: event.forge,
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
