// What a label event asks for, decided without I/O: which triggers it fires, and for each
// whether it may hold or is refused before anything is created.
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { firstRefusal, hasCounted, readTally, tallyAnnotations, type RefusalTally } from '../../api/refusal-record.js';
import { waitForRefusal, type DeclaredProfiles, type Refusal } from '../../api/refusal-rules.js';
import { targetParts } from '../../api/target.js';
import { repositoryAllowed, type Trigger } from '../../api/triggers/triggers-file.js';
import { heldJobSpecOf } from '../../api/trigger-binding.js';
import { isForge } from '../../api/forges.js';
import { Annotations, isRefusalToken, Labels, MADE_BY_RECEIVER, MANAGED_BY, Phase, RefusalToken } from '../../api/vocabulary.js';
import { shortHash } from '../../lib/hash.js';
import { RECEIVER_SCHEMA_VERSION } from '../../api/receiver-schema.js';
import { insideSupersedeWindow } from '../../api/supersede-window.js';
import type { LabelEvent } from '../forges/event.js';

/** The stamp on what it writes (api/receiver-schema.ts: the operator reads it back). */
const RECEIVER_SCHEMA_STAMP = String(RECEIVER_SCHEMA_VERSION);

/** Identical redeliveries (same delivery id) are dropped for this long. */
export const DEDUP_WINDOW_MS = 10 * 60_000;
/**
 * The same signed body, under any delivery id, is dropped for this long: a replay of a body
 * someone kept must not run its job again. Redeliveries keep their body, so this costs nothing.
 */
export const BODY_DEDUP_WINDOW_MS = 24 * 60 * 60_000;

export type Verdict = { readonly kind: 'hold' } | { readonly kind: 'refuse'; readonly token: RefusalToken; readonly message: string };

export interface PlannedTrigger {
  readonly trigger: Trigger;
  readonly verdict: Verdict;
}

/**
 * Label triggers whose labels this event added, whose kind (if it names a forge) is this one,
 * and whose on.repositories (if any) names the event's repository on its forge.
 */
export function matchTriggers(event: LabelEvent, triggers: readonly Trigger[]): Trigger[] {
  const added = new Set(event.addedLabels);
  const repository = targetParts(event.target)?.repository;
  return triggers.filter((t) => {
    if (t.on.type !== 'label') return false;
    const kind = t.run.kind;
    if (isForge(kind) && kind !== event.forge) return false;
    if (t.on.repositories !== undefined && (repository === undefined || !repositoryAllowed(t.on.repositories, event.forge, repository))) {
      return false;
    }
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

/**
 * The label selector of the HeldJobs of one trigger for one target (heldJobManifest's labels).
 * Listed only when their names say nothing (Valkey remembers no hold generation of theirs, or
 * one whose hold is not here); every other delivery reads the HeldJobs in its way by name.
 */
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
    if (!Number.isNaN(launched) && insideSupersedeWindow(launched, now)) return r.metadata.name;
  }
  return undefined;
}

/**
 * Whether a HeldJob was created for this very delivery (by an earlier handling of it), or is
 * the refusal record that counted it.
 */
export function isOwnRecord(record: HeldJobObject, event: LabelEvent): boolean {
  const { annotations, labels } = record.metadata;
  if (annotations?.[Annotations.delivery] === event.deliveryId && labels?.[Labels.forge] === event.forge) return true;
  return annotations?.[Annotations.refusal] !== undefined && hasCounted(tallyOf(record), event.forge, event.deliveryId);
}

/** What a refusal record has counted. */
export function tallyOf(record: HeldJobObject): RefusalTally {
  const { annotations, labels, creationTimestamp } = record.metadata;
  return readTally(annotations, labels?.[Labels.forge], creationTimestamp);
}

/** What a HeldJob records of the delivery that made it: a hold, or a refusal with its token. */
export type RecordedOutcome =
  | { readonly outcome: 'held'; readonly heldJob: string }
  | { readonly outcome: 'refused'; readonly token: RefusalToken; readonly heldJob: string };

export function recordedOutcome(record: HeldJobObject): RecordedOutcome {
  const heldJob = record.metadata.name;
  const token = record.metadata.annotations?.[Annotations.refusal];
  if (token === undefined) return { outcome: 'held', heldJob };
  return { outcome: 'refused', token: isRefusalToken(token) ? token : RefusalToken.Unreadable, heldJob };
}

/** Which hold of its trigger and target a HeldJob is; 0 for one without a generation (a refusal record, or older). */
export function generationOf(record: HeldJobObject): number {
  const n = Number(record.metadata.annotations?.[Annotations.holdGeneration]);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/** What Valkey remembers of one trigger and target; lost with Valkey, so only ever a hint. */
export interface Remembered {
  /** The HeldJob named by the launch marker the operator leaves for 15 minutes. */
  readonly launched?: string | undefined;
  /**
   * The highest hold generation handed out (0: none, yet known to be none), or undefined when
   * Valkey remembers nothing of this trigger and target: never asked, its memory expired, or lost.
   */
  readonly generation: number | undefined;
}

export type HoldDecision =
  /**
   * This delivery already has its HeldJob: report it. `supersedes`: pending holds its hold
   * replaces and an earlier handling did not get to mark (receiver/delivery/concurrency.ts).
   */
  | { readonly kind: 'recorded'; readonly recorded: RecordedOutcome; readonly supersedes?: readonly HeldJobObject[] }
  | { readonly kind: 'superseded'; readonly by: string; readonly message: string }
  /**
   * Create the hold of this generation; if the name is taken, someone else got there first.
   * `supersedes`: the pending holds it replaces once created (the newest pending wins).
   */
  | { readonly kind: 'hold'; readonly generation: number; readonly supersedes?: readonly HeldJobObject[] };

/**
 * Whether a delivery of a trigger with conditions may hold, from the live HeldJobs of that
 * trigger and target (read from the apiserver by name: holdCandidates and the refusal
 * records) and what Valkey remembers:
 * 1. its own HeldJob, from an earlier handling of the same delivery, is its answer;
 * 2. a live hold still waiting, or launched less than 15 minutes ago, supersedes it;
 * 3. so does the hold the launch marker names, when that hold is gone: deleted after it
 *    launched, the marker is all that is left of it. A marker naming a HeldJob that is
 *    still there says nothing the HeldJob does not say better (rule 2), so a stale marker,
 *    naming one refused or never launched, refuses nothing;
 * 4. otherwise the next generation: one past every generation live or remembered.
 */
export function decideHold(
  event: LabelEvent,
  trigger: string,
  live: readonly HeldJobObject[],
  remembered: Remembered,
  now: number,
): HoldDecision {
  const own = live.find((r) => isOwnRecord(r, event));
  if (own) return { kind: 'recorded', recorded: recordedOutcome(own) };
  const by = supersededBy(live, now);
  if (by) return { kind: 'superseded', by, message: `HeldJob ${by} already holds ${trigger} for this target` };
  const launched = remembered.launched;
  if (launched !== undefined && !live.some((r) => r.metadata.name === launched)) {
    return {
      kind: 'superseded',
      by: launched,
      message: `HeldJob ${launched} finished waiting for ${trigger} on this target less than 15 minutes ago`,
    };
  }
  return { kind: 'hold', generation: Math.max(remembered.generation ?? 0, ...live.map(generationOf)) + 1 };
}

function slug(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** `web-7-deploy`: the readable start of a HeldJob name, at most `max` characters. */
function stemOf(target: string, trigger: string, max: number): string {
  const m = /([^/]+)[#!](\d+)$/.exec(target);
  const stem = slug(`${m?.[1] ?? 'target'}-${m?.[2] ?? ''}-${trigger}`)
    .slice(0, max)
    .replace(/-+$/, '');
  return stem || 'heldjob';
}

/**
 * `web-7-deploy-1a2b3c`: readable, unique per delivery and trigger, a valid object name. The
 * name of a refusal record, and of a hold of a trigger without conditions.
 */
export function heldJobName(event: LabelEvent, trigger: Trigger): string {
  return `${stemOf(event.target, trigger.name, 48)}-${shortHash(`${event.forge}/${event.deliveryId}/${trigger.name}`, 6)}`;
}

/**
 * `web-7-deploy-1a2b3c4d-2`: the name of the Nth hold of a trigger (with conditions) for a
 * target, whichever delivery makes it. Two deliveries that would both hold try to create the
 * same name, and the apiserver lets exactly one of them: it is the fence between them.
 */
export function holdName(target: string, trigger: string, generation: number): string {
  const suffix = `${shortHash(`${trigger}\n${target}`, 8)}-${generation}`;
  return `${stemOf(target, trigger, 63 - suffix.length - 1)}-${suffix}`;
}

/**
 * The holds a delivery looks at first, by name: the generation Valkey remembers handing out
 * last, and the one after it (another delivery may have created it and not yet said so). The
 * caller goes on upwards while it finds them. Holds are made one generation after another, and
 * only the latest can still be waiting or inside the supersede window, so these are the ones
 * that can supersede a delivery.
 */
export function holdCandidates(remembered: number): number[] {
  return remembered >= 1 ? [remembered, remembered + 1] : [1];
}

/** The refusal tokens the receiver records: those of its rules at the door, and wait-superseded. */
export const RECORDED_REFUSALS = [RefusalToken.ProfileUnknown, RefusalToken.AfterBeyondMax, RefusalToken.Superseded] as const;

/** What a refusal record is: the value of its `app.kubernetes.io/component` label. */
export const REFUSAL_RECORD_COMPONENT = 'refusal-record';

/**
 * `web-7-deploy-1a2b3c4d-superseded`: the one refusal record of a trigger, target and token,
 * whichever delivery is refused. It ends in the token's words, so it is never a hold's name
 * (which ends in its generation) nor a delivery-named HeldJob's (six hex digits, which no token
 * ends in).
 */
export function refusalRecordName(target: string, trigger: string, token: RefusalToken): string {
  const suffix = `${shortHash(`${trigger}\n${target}\n${token}`, 8)}-${token.replace(/^wait-/, '')}`;
  return `${stemOf(target, trigger, 63 - suffix.length - 1)}-${suffix}`;
}

/**
 * The JobSpec of a refusal record. The schema requires a job, and a record launches nothing,
 * so it carries an empty one: never the trigger's, which would be copied once per record.
 */
export const REFUSAL_RECORD_JOB = { template: {} } as const;

export interface HeldJobManifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { name: string; namespace: string; labels: Record<string, string>; annotations: Record<string, string> };
  readonly spec: Record<string, unknown>;
}

/**
 * The hold a trigger becomes. A hold given a generation is named by trigger, target and
 * generation (holdName); one without (a trigger without conditions) by the delivery (heldJobName).
 * `revision`: the commit the labeller saw, for a trigger that pins it (run.pinRevision).
 */
export function heldJobManifest(
  event: LabelEvent,
  trigger: Trigger,
  namespace: string,
  generation?: number,
  revision?: string,
): HeldJobManifest {
  const annotations: Record<string, string> = {
    [Annotations.delivery]: event.deliveryId,
    [Annotations.targetKind]: event.kind,
    [Annotations.receiverSchema]: RECEIVER_SCHEMA_STAMP,
  };
  if (generation !== undefined) annotations[Annotations.holdGeneration] = String(generation);
  return {
    apiVersion: 'waitgate.dev/v1alpha1',
    kind: 'HeldJob',
    metadata: {
      name: generation !== undefined ? holdName(event.target, trigger.name, generation) : heldJobName(event, trigger),
      namespace,
      labels: {
        [Labels.managedBy]: MANAGED_BY,
        [Labels.triggerHash]: shortHash(trigger.name),
        [Labels.targetHash]: shortHash(event.target),
        [Labels.forge]: event.forge,
        [Labels.madeBy]: MADE_BY_RECEIVER,
      },
      annotations,
    },
    spec: heldJobSpecOf(trigger, event.target, revision),
  };
}

/**
 * The refusal record a first refusal of its trigger, target and token creates: a HeldJob that
 * never holds (the operator, or the receiver straight after the create, makes it Refused with
 * the token), counting this refusal. Ids and times only: the target, the trigger, the token and
 * its message, the delivery; no conditions and no Job.
 */
export function refusalRecordManifest(
  event: LabelEvent,
  trigger: string,
  refusal: Refusal,
  namespace: string,
  nowMs: number,
): HeldJobManifest {
  return {
    apiVersion: 'waitgate.dev/v1alpha1',
    kind: 'HeldJob',
    metadata: {
      name: refusalRecordName(event.target, trigger, refusal.token),
      namespace,
      labels: {
        [Labels.managedBy]: MANAGED_BY,
        'app.kubernetes.io/component': REFUSAL_RECORD_COMPONENT,
        [Labels.triggerHash]: shortHash(trigger),
        [Labels.targetHash]: shortHash(event.target),
        [Labels.forge]: event.forge,
        [Labels.madeBy]: MADE_BY_RECEIVER,
      },
      annotations: {
        [Annotations.delivery]: event.deliveryId,
        [Annotations.targetKind]: event.kind,
        [Annotations.receiverSchema]: RECEIVER_SCHEMA_STAMP,
        [Annotations.refusal]: refusal.token,
        [Annotations.refusalMessage]: refusal.message,
        ...tallyAnnotations(firstRefusal(event.forge, event.deliveryId, nowMs)),
      },
    },
    spec: { target: event.target, trigger, job: REFUSAL_RECORD_JOB },
  };
}
