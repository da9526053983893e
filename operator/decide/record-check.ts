// What one profile check's answer does to a hold. Pure, like decide().
import type { HeldJobObject, HeldJobStatus } from '../../api/heldjob-schema.js';
import { checkSpec } from '../../api/heldjob-schema.js';
import { parseInstant } from '../../api/instant.js';
import { ConditionType, RefusalToken, assertNever } from '../../api/vocabulary.js';
import { nextCheckDelayMs } from '../../api/cadence.js';
import type { Action } from './actions.js';
import type { DecideConfig } from './decide.js';
import { setCondition } from '../../api/conditions.js';
import { epochOf, iso } from '../../api/time.js';
import { refuse, waitStates } from './status.js';

import { CheckVerdict } from '../../api/check-verdict.js';

export { CheckVerdict } from '../../api/check-verdict.js';

export interface CheckResult {
  readonly profile: string;
  readonly verdict: CheckVerdict;
  /** The exit code, when the check exited; undefined for a signal, a timeout or a spawn error. */
  readonly exitCode: number | undefined;
  /** Why there is no exit code (timed out, killed by SIGSEGV, ENOENT, ...). */
  readonly detail?: string;
}

function describe(r: CheckResult): string {
  const code = r.exitCode !== undefined ? `exit ${r.exitCode}` : (r.detail ?? 'no exit code');
  return `${r.profile}: ${code} (${r.verdict})`;
}

export function recordCheck(
  heldJob: HeldJobObject,
  config: DecideConfig,
  result: CheckResult,
  now: number,
  jitterUnit: number,
): readonly Action[] {
  const status: HeldJobStatus = heldJob.status ?? {};
  const checks = (status.checks ?? 0) + 1;
  const faults = result.verdict === CheckVerdict.CouldNotTell ? (status.faults ?? 0) + 1 : 0;
  const expiresAt = epochOf(status.expiresAt) ?? now + config.maxMs;
  const base: HeldJobStatus = {
    ...status,
    checks,
    faults,
    lastCheckAt: iso(now),
    lastCheckProfile: result.profile,
    ...(result.exitCode !== undefined ? { lastExitCode: result.exitCode } : {}),
  };
  const tally = `check ${checks}/${config.maxChecks}, ${faults}/${config.maxFaults} faults in a row`;
  const spec = checkSpec(heldJob.spec);
  const conditions = spec.ok ? (spec.spec.waitFor ?? []) : [];
  const after = conditions.find((c) => 'after' in c);
  const afterMs = after && 'after' in after ? (parseInstant(after.after) as { epochMs?: number }).epochMs : undefined;

  // Every check leaves an Event, the last one of a hold too.
  const checkEvent = (reason: string): Action => ({
    type: 'event',
    event: { type: result.verdict === CheckVerdict.CouldNotTell ? 'Warning' : 'Normal', reason, message: `${describe(result)}; ${tally}` },
  });

  switch (result.verdict) {
    case CheckVerdict.Never:
      return [checkEvent('CheckNever'), ...refuse(base, RefusalToken.Refused, `${describe(result)}: the check says this will never clear`, now)];
    case CheckVerdict.Go: {
      const cleared = [...new Set([...(status.clearedProfiles ?? []), result.profile])];
      const { nextCheckAt: _n, ...rest } = base;
      const next: HeldJobStatus = { ...rest, clearedProfiles: cleared };
      return [
        { type: 'updateStatus', status: { ...next, waits: waitStates(conditions, next, afterMs, now) }, event: { type: 'Normal', reason: 'CheckGo', message: `${describe(result)}; ${tally}` } },
        // Straight on: the next profile, or the launch.
        { type: 'wakeAt', at: now },
      ];
    }
    case CheckVerdict.NotYet:
    case CheckVerdict.CouldNotTell: {
      const reason = result.verdict === CheckVerdict.NotYet ? 'CheckNotYet' : 'CheckCouldNotTell';
      if (result.verdict === CheckVerdict.CouldNotTell && faults >= config.maxFaults) {
        return [checkEvent(reason), ...refuse(base, RefusalToken.Unanswerable, `profile "${result.profile}" could not tell ${faults} times in a row (last: ${describe(result)}); exit 3 means "not yet", exit 1 is a fault`, now)];
      }
      if (checks >= config.maxChecks) {
        return [checkEvent(reason), ...refuse(base, RefusalToken.Expired, `${checks} checks used without a go (last: ${describe(result)})`, now)];
      }
      if (now >= expiresAt) {
        return [checkEvent(reason), ...refuse(base, RefusalToken.Expired, `the maximum wait of ${config.maxMs} ms ran out (last check: ${describe(result)})`, now)];
      }
      const at = now + nextCheckDelayMs({ checksDone: checks, intervalMs: config.intervalMs, unit: jitterUnit, remainingMs: expiresAt - now });
      const next: HeldJobStatus = { ...base, clearedProfiles: [], nextCheckAt: iso(at) };
      const message = `${describe(result)}; ${tally}; next check ${iso(at)}`;
      return [
        {
          type: 'updateStatus',
          status: {
            ...next,
            waits: waitStates(conditions, next, afterMs, now),
            conditions: setCondition(next.conditions, { type: ConditionType.Waiting, status: 'True', reason: result.verdict === CheckVerdict.NotYet ? 'NotYet' : 'CouldNotTell', message }, now),
          },
          event: { type: result.verdict === CheckVerdict.NotYet ? 'Normal' : 'Warning', reason: result.verdict === CheckVerdict.NotYet ? 'CheckNotYet' : 'CheckCouldNotTell', message },
        },
        { type: 'wakeAt', at },
      ];
    }
    default:
      return assertNever(result.verdict);
  }
}
