// The refusal rules a delivery meets before it may hold, written once. The receiver asks
// them when a delivery arrives, the operator again at the gate, and `waitgate doctor` asks
// them of the ConfigMaps ahead of time, so all three refuse the same things the same way.
import type { HeldJobStatus, WaitCondition } from './heldjob-schema.js';
import { parseInstant } from './instant.js';
import { setCondition } from './conditions.js';
import { iso } from './time.js';
import { withSummary } from './summary-conditions.js';
import { ConditionType, Phase, REFUSAL_REASONS, RefusalToken } from './vocabulary.js';

export interface Refusal {
  readonly token: RefusalToken;
  readonly message: string;
}

/** The profile names a deployment declares, or that they cannot be read right now. */
export type DeclaredProfiles = { readonly state: 'ok'; readonly names: ReadonlySet<string> } | { readonly state: 'unreadable' };

/** wait-profile-unknown: the profile is not declared. Unreadable profiles refuse nothing (a slip pauses, it never refuses). */
export function unknownProfile(name: string, declared: DeclaredProfiles): Refusal | undefined {
  if (declared.state !== 'ok' || declared.names.has(name)) return undefined;
  return { token: RefusalToken.ProfileUnknown, message: `profile "${name}" is not declared in waitgate-profiles` };
}

/**
 * wait-after-beyond-max: the instant lies further than `afterMaxMs` past `fromMs` (the
 * delivery). An unreadable instant is not this rule's business (it is wait-unreadable).
 */
export function afterBeyondMax(after: string, fromMs: number, afterMaxMs: number): Refusal | undefined {
  const p = parseInstant(after);
  if (!p.ok || p.epochMs - fromMs <= afterMaxMs) return undefined;
  return {
    token: RefusalToken.AfterBeyondMax,
    message: `after ${after} lies more than ${afterMaxMs} ms beyond the delivery at ${iso(fromMs)}`,
  };
}

/** The first refusal a trigger's conditions meet, in the order they are written. */
export function waitForRefusal(
  waitFor: readonly WaitCondition[] | undefined,
  declared: DeclaredProfiles,
  fromMs: number,
  afterMaxMs: number,
): Refusal | undefined {
  for (const c of waitFor ?? []) {
    // An approval refuses nothing at the door: who may say go is the admission policy's business.
    const r = 'profile' in c ? unknownProfile(c.profile, declared) : 'after' in c ? afterBeyondMax(c.after, fromMs, afterMaxMs) : undefined;
    if (r) return r;
  }
  return undefined;
}

/**
 * The status of a refused HeldJob: phase Refused, the token as status.reason; the Waiting
 * condition False, Finished True, Ready False and Stalled True, with the token's CamelCase
 * reason. `base` is the status it had (empty for a delivery refused at the door); `generation`
 * the HeldJob's metadata.generation.
 */
export function refusedStatus(base: HeldJobStatus, refusal: Refusal, now: number, generation: number | undefined): HeldJobStatus {
  const { token, message } = refusal;
  const reason = REFUSAL_REASONS[token];
  const conditions = setCondition(
    setCondition(base.conditions, { type: ConditionType.Waiting, status: 'False', reason, message }, now, generation),
    { type: ConditionType.Finished, status: 'True', reason, message },
    now,
    generation,
  );
  return withSummary({ ...base, phase: Phase.Refused, reason: token, message, finishedAt: iso(now), conditions }, now, generation);
}
