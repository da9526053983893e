// A HeldJob read once per pass: its spec checked, its instant parsed, its profiles, its scope
// key, its Job's name and the generation all that was read at. Every decision of the pass
// works from this view.
//
// A spec that fails its check still gives what can be read without it: the Job's name (from
// the status, or the HeldJob's own name and uid), the scope its launch took (recorded in the
// status at the launch), and the target and trigger where they are well formed. That is all a
// launched hold needs to follow its Job to the end and give its place back, so an edit that
// breaks the spec of a running hold (the CRD keeps unknown fields) never wedges it.
import { checkSpec, type HeldJobObject, type HeldJobSpec, type WaitCondition } from '../../api/heldjob-schema.js';
import { parseInstant } from '../../api/instant.js';
import { jobNameFor } from '../../api/job-name.js';
import { receiverForgeOf } from '../../api/made-by.js';
import { scopeKeyOf, targetProblem, type ScopeOwner } from '../../api/target.js';

/** What is read of any HeldJob, whether or not its spec passes its check. */
interface Readable {
  readonly jobName: string;
  /** metadata.generation: the conditions this pass sets say they were set from it. */
  readonly generation: number | undefined;
  /**
   * The scope whose slot a launch takes and its Job holds: status.scope as recorded at the
   * launch, else the target's repository; undefined when neither can be read.
   */
  readonly scopeKey: string | undefined;
  /** spec.target when it is a well-formed target. */
  readonly target: string | undefined;
  /** spec.trigger when it is a trigger name. */
  readonly trigger: string | undefined;
}

export type HeldJobView =
  | (Readable & {
      readonly ok: true;
      readonly spec: HeldJobSpec;
      readonly conditions: readonly WaitCondition[];
      /** The `after` instant in epoch ms, if the HeldJob has one. */
      readonly afterMs: number | undefined;
      /** The profiles, in the order written. */
      readonly profiles: readonly string[];
      /** The group of the approval condition, if there is one. */
      readonly approval: string | undefined;
      readonly scopeKey: string;
      readonly target: string;
      readonly trigger: string;
    })
  | (Readable & { readonly ok: false; readonly problem: string });

/** The spec's target and trigger where each is well formed, whatever else the spec says. */
function readableFields(spec: unknown): { target: string | undefined; trigger: string | undefined } {
  const s = typeof spec === 'object' && spec !== null ? (spec as { target?: unknown; trigger?: unknown }) : {};
  const target = typeof s.target === 'string' && targetProblem(s.target) === undefined ? s.target : undefined;
  const trigger = typeof s.trigger === 'string' && s.trigger.length > 0 && s.trigger.length <= 253 ? s.trigger : undefined;
  return { target, trigger };
}

const ownerOf = (heldJob: HeldJobObject): ScopeOwner => ({ forge: receiverForgeOf(heldJob), namespace: heldJob.metadata.namespace });

/**
 * The scope a HeldJob's place is under: the one recorded at its launch (status.scope: a hold
 * launched by an older operator keeps the repository-only key it took), else its target's
 * repository on its forge or in its namespace (api/target.ts), read leniently. Cheap (no spec check): the scope-lease sweep asks it of
 * every HeldJob.
 */
export function scopeOf(heldJob: HeldJobObject): string | undefined {
  const recorded = heldJob.status?.scope;
  if (typeof recorded === 'string' && recorded.length > 0) return recorded;
  const { target } = readableFields(heldJob.spec);
  return target === undefined ? undefined : scopeKeyOf(target, ownerOf(heldJob));
}

export function viewOf(heldJob: HeldJobObject): HeldJobView {
  const jobName = heldJob.status?.jobName ?? jobNameFor(heldJob.metadata);
  const generation = heldJob.metadata.generation;
  const readable: Readable = { jobName, generation, scopeKey: scopeOf(heldJob), ...readableFields(heldJob.spec) };
  const check = checkSpec(heldJob.spec);
  if (!check.ok) return { ...readable, ok: false, problem: check.problems.join('; ') };
  const conditions = check.spec.waitFor ?? [];
  let afterMs: number | undefined;
  const profiles: string[] = [];
  let approval: string | undefined;
  for (const c of conditions) {
    if ('profile' in c) {
      profiles.push(c.profile);
      continue;
    }
    if ('approval' in c) {
      approval = c.approval;
      continue;
    }
    const p = parseInstant(c.after);
    if (!p.ok) return { ...readable, ok: false, problem: `after: ${p.detail}` };
    afterMs = p.epochMs;
  }
  const { spec } = check;
  return {
    ...readable,
    ok: true,
    spec,
    conditions,
    afterMs,
    profiles,
    approval,
    scopeKey: readable.scopeKey ?? scopeKeyOf(spec.target, ownerOf(heldJob)),
    target: spec.target,
    trigger: spec.trigger,
  };
}
