// A HeldJob read once per pass: its spec checked, its instant parsed, its profiles, its scope
// key and its Job's name. Every decision of the pass works from this view.
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
    }
  | { readonly ok: false; readonly problem: string; readonly jobName: string };

export function viewOf(heldJob: HeldJobObject): HeldJobView {
  const jobName = heldJob.status?.jobName ?? jobNameFor(heldJob.metadata);
  const check = checkSpec(heldJob.spec);
  if (!check.ok) return { ok: false, problem: check.problems.join('; '), jobName };
  const conditions = check.spec.waitFor ?? [];
  let afterMs: number | undefined;
  const profiles: string[] = [];
  for (const c of conditions) {
    if ('profile' in c) {
      profiles.push(c.profile);
      continue;
    }
    const p = parseInstant(c.after);
    if (!p.ok) return { ok: false, problem: `after: ${p.detail}`, jobName };
    afterMs = p.epochMs;
  }
  return { ok: true, spec: check.spec, conditions, afterMs, profiles, scopeKey: scopeKeyOf(check.spec.target), jobName };
}
