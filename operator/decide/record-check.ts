// What one profile check's answer does to a hold. Pure, like decide().
import type { HeldJobObject, HeldJobStatus } from '../../api/heldjob-schema.js';
import { ConditionReason, ConditionType, EventReason, EventType, RefusalToken, assertNever } from '../../api/vocabulary.js';
import { nextCheckDelayMs, slotDeniedDelayMs } from '../../api/cadence.js';
import type { Action, CheckRun } from './actions.js';
import type { DecideConfig } from './observed.js';
import type { HeldJobView } from './view.js';
import { setCondition } from '../../api/conditions.js';
import { epochOf, iso } from '../../api/time.js';
import { refuse, waitStates } from './status.js';

import { CheckVerdict } from '../../api/check-verdict.js';

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

type ReadyView = Extract<HeldJobView, { ok: true }>;

/** What follows a check run: its answer recorded, or a later look when no slot could be had. */
export function afterCheck(
  view: ReadyView,
  heldJob: HeldJobObject,
  config: DecideConfig,
  run: CheckRun,
  now: number,
  jitterUnit: number,
): readonly Action[] {
  switch (run.kind) {
    case 'answered':
      return recordCheck(view, heldJob, config, run.result, now, jitterUnit);
    case 'denied':
    case 'unavailable':
      // Nothing ran and nothing is counted: look again at a quarter of the cadence.
      // The same additive jitter as checks: denied holds do not come back in lockstep.
      return [{ type: 'wakeAt', at: now + slotDeniedDelayMs(heldJob.status?.checks ?? 0, config.intervalMs, jitterUnit) }];
    case 'cancelled':
      return [];
    default:
      return assertNever(run);
  }
}

/** The faults in a row already counted for `profile`; a status written before per-profile counts holds the last checked profile's. */
function priorFaults(status: HeldJobStatus, profile: string): number {
  if (status.profileFaults) return status.profileFaults[profile] ?? 0;
  return status.lastCheckProfile === undefined || status.lastCheckProfile === profile ? (status.faults ?? 0) : 0;
}

export function recordCheck(
  view: ReadyView,
  heldJob: HeldJobObject,
  config: DecideConfig,
  result: CheckResult,
  now: number,
  jitterUnit: number,
): readonly Action[] {
  const status: HeldJobStatus = heldJob.status ?? {};
  const checks = (status.checks ?? 0) + 1;
  // Faults in a row are counted per profile: one profile's go says nothing of another's script.
  const profileFaults = {
    ...(status.profileFaults ?? {}),
    [result.profile]: result.verdict === CheckVerdict.CouldNotTell ? priorFaults(status, result.profile) + 1 : 0,
  };
  const faults = profileFaults[result.profile] ?? 0;
  const expiresAt = epochOf(status.expiresAt) ?? now + config.maxMs;
  const base: HeldJobStatus = {
    ...status,
    checks,
    faults: Math.max(0, ...Object.values(profileFaults)),
    profileFaults,
    lastCheckAt: iso(now),
    lastCheckProfile: result.profile,
    ...(result.exitCode !== undefined ? { lastExitCode: result.exitCode } : {}),
  };
  const tally = `check ${checks}/${config.maxChecks}, ${faults}/${config.maxFaults} faults in a row`;
  const { conditions, afterMs } = view;

  // Every check leaves an Event, the last one of a hold too.
  const checkEvent = (reason: EventReason): Action => ({
    type: 'event',
    event: {
      type: result.verdict === CheckVerdict.CouldNotTell ? EventType.Warning : EventType.Normal,
      reason,
      message: `${describe(result)}; ${tally}`,
    },
  });

  switch (result.verdict) {
    case CheckVerdict.Never:
      return [
        checkEvent(EventReason.CheckNever),
        ...refuse(base, RefusalToken.Refused, `${describe(result)}: the check says this will never clear`, now),
      ];
    case CheckVerdict.Go: {
      const cleared = [...new Set([...(status.clearedProfiles ?? []), result.profile])];
      const { nextCheckAt: _n, ...rest } = base;
      const next: HeldJobStatus = { ...rest, clearedProfiles: cleared };
      return [
        {
          type: 'updateStatus',
          status: { ...next, waits: waitStates(conditions, next, afterMs, now) },
          event: { type: EventType.Normal, reason: EventReason.CheckGo, message: `${describe(result)}; ${tally}` },
        },
        // Straight on: the next profile, or the launch.
        { type: 'wakeAt', at: now },
      ];
    }
    case CheckVerdict.NotYet:
    case CheckVerdict.CouldNotTell: {
      const notYet = result.verdict === CheckVerdict.NotYet;
      const reason = notYet ? EventReason.CheckNotYet : EventReason.CheckCouldNotTell;
      if (result.verdict === CheckVerdict.CouldNotTell && faults >= config.maxFaults) {
        return [
          checkEvent(reason),
          ...refuse(
            base,
            RefusalToken.Unanswerable,
            `profile "${result.profile}" could not tell ${faults} times in a row (last: ${describe(result)}); exit 3 means "not yet", exit 1 is a fault`,
            now,
          ),
        ];
      }
      if (checks >= config.maxChecks) {
        return [
          checkEvent(reason),
          ...refuse(base, RefusalToken.Expired, `${checks} checks used without a go (last: ${describe(result)})`, now),
        ];
      }
      if (now >= expiresAt) {
        return [
          checkEvent(reason),
          ...refuse(base, RefusalToken.Expired, `the maximum wait of ${config.maxMs} ms ran out (last check: ${describe(result)})`, now),
        ];
      }
      const at =
        now + nextCheckDelayMs({ checksDone: checks, intervalMs: config.intervalMs, unit: jitterUnit, remainingMs: expiresAt - now });
      const next: HeldJobStatus = { ...base, clearedProfiles: [], nextCheckAt: iso(at) };
      const message = `${describe(result)}; ${tally}; next check ${iso(at)}`;
      return [
        {
          type: 'updateStatus',
          status: {
            ...next,
            waits: waitStates(conditions, next, afterMs, now),
            conditions: setCondition(
              next.conditions,
              {
                type: ConditionType.Waiting,
                status: 'True',
                reason: notYet ? ConditionReason.NotYet : ConditionReason.CouldNotTell,
                message,
              },
              now,
            ),
          },
          event: { type: notYet ? EventType.Normal : EventType.Warning, reason, message },
        },
        { type: 'wakeAt', at },
      ];
    }
    default:
      return assertNever(result.verdict);
  }
}
