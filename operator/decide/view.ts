// A HeldJob read once per pass: its spec checked, its instant parsed, its profiles, its scope
// key, its Job's name and the generation all that was read at. Every decision of the pass
// works from this view.
import { checkSpec, type HeldJobObject, type HeldJobSpec, type WaitCondition } from '../../api/heldjob-schema.js';
import { parseInstant } from '../../api/instant.js';
import { jobNameFor } from '../../api/job-name.js';
import { scopeKeyOf } from '../../api/target.js';

export type HeldJobView =
  | {
      readonly ok: true;
      readonly spec: HeldJobSpec;
      readonly conditions: readonly WaitCondition[];
      /** The `after` instant in epoch ms, if the HeldJob has one. */
      readonly afterMs: number | undefined;
      /** The profiles, in the order written. */
      readonly profiles: readonly string[];
      readonly scopeKey: string;
      readonly jobName: string;
      /** metadata.generation: the conditions this pass sets say they were set from it. */
      readonly generation: number | undefined;
    }
  | { readonly ok: false; readonly problem: string; readonly jobName: string; readonly generation: number | undefined };

export function viewOf(heldJob: HeldJobObject): HeldJobView {
  const jobName = heldJob.status?.jobName ?? jobNameFor(heldJob.metadata);
  const generation = heldJob.metadata.generation;
  const check = checkSpec(heldJob.spec);
  if (!check.ok) return { ok: false, problem: check.problems.join('; '), jobName, generation };
  const conditions = check.spec.waitFor ?? [];
  let afterMs: number | undefined;
  const profiles: string[] = [];
  for (const c of conditions) {
    if ('profile' in c) {
      profiles.push(c.profile);
      continue;
    }
    const p = parseInstant(c.after);
    if (!p.ok) return { ok: false, problem: `after: ${p.detail}`, jobName, generation };
    afterMs = p.epochMs;
  }
  return { ok: true, spec: check.spec, conditions, afterMs, profiles, scopeKey: scopeKeyOf(check.spec.target), jobName, generation };
}
