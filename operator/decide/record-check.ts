// What one profile check's answer does to a hold. Pure, like decide().
import type { HeldJobObject, HeldJobStatus } from '../../api/heldjob-schema.js';
import { withHorizon } from './horizon.js';
import { ConditionReason, ConditionType, EventReason, EventType, RefusalToken, assertNever } from '../../api/vocabulary.js';
import { nextCheckDelayMs, slotDeniedDelayMs } from '../../api/cadence.js';
import type { Action, CheckRun, EventSpec } from './actions.js';
import type { DecideConfig } from './observed.js';
import type { HeldJobView } from './view.js';
import { findCondition, setCondition } from '../../api/conditions.js';
import { CHECK_SECRET_LABEL, CHECK_SECRET_LABEL_VALUE } from '../../api/check-secrets.js';
import { epochOf, iso } from '../../api/time.js';
import { refuse, updateStatus, waitStates, writeIfChanged } from './status.js';

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

const CHECK_EVENT_REASON = {
  [CheckVerdict.Go]: EventReason.CheckGo,
  [CheckVerdict.NotYet]: EventReason.CheckNotYet,
  [CheckVerdict.CouldNotTell]: EventReason.CheckCouldNotTell,
  [CheckVerdict.Never]: EventReason.CheckNever,
} as const satisfies { readonly [V in CheckVerdict]: EventReason };

/**
 * The Event a check's answer is worth: one when the profile's verdict differs from the one it
 * gave last (`previous`, from status.lastVerdicts), none when it repeats. A profile that says
 * "not yet" for a day leaves one Event, not one a check; its status still counts every check.
 */
export function checkEvent(previous: CheckVerdict | undefined, verdict: CheckVerdict, message: string): EventSpec | undefined {
  if (previous === verdict) return undefined;
  return {
    type: verdict === CheckVerdict.CouldNotTell ? EventType.Warning : EventType.Normal,
    reason: CHECK_EVENT_REASON[verdict],
    message,
  };
}

/**
 * What follows a check run: its answer recorded, or a later look when no slot could be had.
 * `basis`: the status the pass meant the check to start from (runCheck's), recorded with the
 * answer; undefined: the HeldJob's own.
 */
export function afterCheck(
  view: ReadyView,
  heldJob: HeldJobObject,
  config: DecideConfig,
  run: CheckRun,
  now: number,
  jitterUnit: number,
  basis?: HeldJobStatus,
): readonly Action[] {
  const recorded = basis ? { ...heldJob, status: basis } : heldJob;
  switch (run.kind) {
    case 'answered':
      return recordCheck(view, recorded, config, run.result, now, jitterUnit);
    case 'denied':
    case 'unavailable':
      // Nothing ran and nothing is counted: look again at a quarter of the cadence. The
      // same additive jitter as checks: denied holds do not come back in lockstep. The hold
      // itself (its first hold, the round's start) is recorded all the same.
      return [
        ...(basis ? writeIfChanged(heldJob.status ?? {}, basis, now, view.generation) : []),
        { type: 'wakeAt', at: now + slotDeniedDelayMs(recorded.status?.checks ?? 0, config.intervalMs, jitterUnit) },
      ];
    case 'cancelled':
      return [];
    case 'misconfigured':
      return paused(view, recorded, config, run, now);
    default:
      return assertNever(run);
  }
}

/**
 * A check whose Pod the cluster refused for the Secret it names (not labelled for checks): a
 * slip in configuration. The hold pauses with a Waiting condition and one Warning naming the
 * Secret, nothing is counted (no check, no fault), and it is tried again at the next interval,
 * or sooner when the profiles ConfigMap changes (which wakes every hold).
 */
function paused(
  view: ReadyView,
  heldJob: HeldJobObject,
  config: DecideConfig,
  run: Extract<CheckRun, { kind: 'misconfigured' }>,
  now: number,
): readonly Action[] {
  const before = heldJob.status ?? {};
  const at = now + config.intervalMs;
  const message = `profile "${run.profile}": its check Pod was refused because it names Secret "${run.secret}", which is not labelled ${CHECK_SECRET_LABEL}=${CHECK_SECRET_LABEL_VALUE}; label the Secret (or remove it from the profile), tried again at ${iso(at)}. Nothing is counted.`;
  const next: HeldJobStatus = {
    ...before,
    conditions: setCondition(
      before.conditions,
      { type: ConditionType.Waiting, status: 'True', reason: ConditionReason.CheckSecretRefused, message },
      now,
      view.generation,
    ),
  };
  // The Warning once, when the condition first says so (the retry time alone is no news).
  const was = findCondition(before.conditions, ConditionType.Waiting);
  const news = was?.reason !== ConditionReason.CheckSecretRefused || !(was.message ?? '').includes(`Secret "${run.secret}"`);
  const event = news ? { type: EventType.Warning, reason: EventReason.CheckSecretRefused, message } : undefined;
  return [updateStatus(next, now, view.generation, { event }), { type: 'wakeAt', at }];
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
  const { generation } = view;
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
    lastVerdicts: { ...(status.lastVerdicts ?? {}), [result.profile]: result.verdict },
    ...(result.exitCode !== undefined ? { lastExitCode: result.exitCode } : {}),
  };
  const tally = `check ${checks}/${config.maxChecks}, ${faults}/${config.maxFaults} faults in a row`;
  const { conditions, afterMs } = view;
  const previous = status.lastVerdicts?.[result.profile];
  const eventFor = (message: string) => checkEvent(previous, result.verdict, message);
  // The check's own Event, before the refusal it led to (which has its own).
  const before = (message: string): Action[] => {
    const event = eventFor(message);
    return event ? [{ type: 'event', event }] : [];
  };

  switch (result.verdict) {
    case CheckVerdict.Never:
      return [
        ...before(`${describe(result)}; ${tally}`),
        ...refuse(base, RefusalToken.Refused, `${describe(result)}: the check says this will never clear`, now, generation),
      ];
    case CheckVerdict.Go: {
      const cleared = [...new Set([...(status.clearedProfiles ?? []), result.profile])];
      const { nextCheckAt: _n, ...rest } = base;
      const next: HeldJobStatus = { ...rest, clearedProfiles: cleared };
      return [
        updateStatus(withHorizon({ ...next, waits: waitStates(conditions, next, afterMs, now) }, view, config), now, generation, {
          event: eventFor(`${describe(result)}; ${tally}`),
        }),
        // Straight on: the next profile, or the launch.
        { type: 'wakeAt', at: now },
      ];
    }
    case CheckVerdict.NotYet:
    case CheckVerdict.CouldNotTell: {
      const notYet = result.verdict === CheckVerdict.NotYet;
      const said = `${describe(result)}; ${tally}`;
      if (result.verdict === CheckVerdict.CouldNotTell && faults >= config.maxFaults) {
        return [
          ...before(said),
          ...refuse(
            base,
            RefusalToken.Unanswerable,
            `profile "${result.profile}" could not tell ${faults} times in a row (last: ${describe(result)}); exit 3 means "not yet", exit 1 is a fault`,
            now,
            generation,
          ),
        ];
      }
      if (checks >= config.maxChecks) {
        return [
          ...before(said),
          ...refuse(base, RefusalToken.Expired, `${checks} checks used without a go (last: ${describe(result)})`, now, generation),
        ];
      }
      if (now >= expiresAt) {
        return [
          ...before(said),
          ...refuse(
            base,
            RefusalToken.Expired,
            `the maximum wait of ${config.maxMs} ms ran out (last check: ${describe(result)})`,
            now,
            generation,
          ),
        ];
      }
      const at =
        now + nextCheckDelayMs({ checksDone: checks, intervalMs: config.intervalMs, unit: jitterUnit, remainingMs: expiresAt - now });
      const next: HeldJobStatus = { ...base, clearedProfiles: [], nextCheckAt: iso(at) };
      const message = `${describe(result)}; ${tally}; next check ${iso(at)}`;
      const held: HeldJobStatus = withHorizon(
        {
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
            generation,
          ),
        },
        view,
        config,
      );
      return [updateStatus(held, now, generation, { event: eventFor(message) }), { type: 'wakeAt', at }];
    }
    default:
      return assertNever(result.verdict);
  }
}
