// A HeldJob the receiver made is bound to its trigger: it names a trigger the triggers
// ConfigMap declares, for its forge and repository, and carries exactly what the receiver
// renders from that trigger (heldJobSpecOf, which the receiver itself uses). A HeldJob written
// by hand (no made-by label) is bound to nothing here: whoever may write it answers for it.
import { isDeepStrictEqual } from 'node:util';
import type { HeldJobObject, HeldJobSpec } from './heldjob-schema.js';
import { isForge } from './forges.js';
import { targetParts } from './target.js';
import { jobSpecOf } from './triggers/job-spec.js';
import { repositoryAllowed } from './triggers/repositories.js';
import type { Trigger } from './triggers/types.js';
import { FailureReason, Labels } from './vocabulary.js';

export { madeByReceiver } from './made-by.js';

/** The trigger of that name in the loaded triggers file, if it declares one. */
export function declaredTriggerOf(triggers: ReadonlyMap<string, Trigger>, name: string): Trigger | undefined {
  return triggers.get(name);
}

/**
 * The spec the receiver writes for a hold of `trigger` on `target`: the one home of that
 * rendering (receiver/delivery/plan.ts builds its HeldJobs with it; the operator compares with it).
 * `revision`: the commit the labeller saw, for a trigger that pins it.
 */
export function heldJobSpecOf(trigger: Trigger, target: string, revision?: string): Record<string, unknown> {
  return {
    target,
    trigger: trigger.name,
    ...(trigger.run.waitFor && trigger.run.waitFor.length > 0 ? { waitFor: trigger.run.waitFor } : {}),
    job: jobSpecOf(trigger.run),
    ...(revision !== undefined ? { revision } : {}),
  };
}

/** Canonical JSON equality: the same values, whatever order keys were written in. */
export function sameJson(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(canonical(a), canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = canonical(x);
    }
    return out;
  }
  return v;
}

export interface BindingProblem {
  readonly reason: typeof FailureReason.TriggerUndeclared | typeof FailureReason.JobNotTrigger;
  readonly message: string;
}

/**
 * Why a receiver-made HeldJob is not bound to its trigger, or undefined when it is. `declared`
 * is its trigger as the triggers file declares it (declaredTriggerOf), undefined when none.
 * The revision's value is the forge's and cannot be compared; whether there is one is the trigger's.
 */
export function bindingProblem(
  heldJob: Pick<HeldJobObject, 'metadata'>,
  spec: HeldJobSpec,
  declared: Trigger | undefined,
): BindingProblem | undefined {
  if (declared === undefined) {
    return { reason: FailureReason.TriggerUndeclared, message: `trigger "${spec.trigger}" is not declared in waitgate-triggers` };
  }
  const forge = heldJob.metadata.labels?.[Labels.forge];
  const repository = targetParts(spec.target)?.repository;
  if (forge === undefined || !isForge(forge)) {
    return { reason: FailureReason.TriggerUndeclared, message: `trigger "${spec.trigger}" fires for a forge, and this HeldJob names none` };
  }
  if (isForge(declared.run.kind) && declared.run.kind !== forge) {
    return {
      reason: FailureReason.TriggerUndeclared,
      message: `trigger "${spec.trigger}" is declared for ${declared.run.kind}, not ${forge}`,
    };
  }
  if (repository === undefined || !repositoryAllowed(declared.on.repositories, forge, repository)) {
    return {
      reason: FailureReason.TriggerUndeclared,
      message: `trigger "${spec.trigger}" is not declared for ${forge} repository ${repository ?? '?'}`,
    };
  }
  const pins = declared.run.pinRevision === true;
  if (pins !== (spec.revision !== undefined)) {
    return {
      reason: FailureReason.JobNotTrigger,
      message: pins
        ? `trigger "${spec.trigger}" pins the revision and this HeldJob records none`
        : `trigger "${spec.trigger}" pins no revision and this HeldJob records one`,
    };
  }
  const expected = heldJobSpecOf(declared, spec.target, spec.revision);
  for (const field of ['job', 'waitFor'] as const) {
    if (!sameJson(spec[field], expected[field])) {
      return { reason: FailureReason.JobNotTrigger, message: `spec.${field} is not what trigger "${spec.trigger}" renders` };
    }
  }
  return undefined;
}
