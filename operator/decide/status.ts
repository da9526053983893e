// Pure helpers that build statuses for decide() and recordCheck().
import { setCondition } from '../../api/conditions.js';
import type { HeldJobStatus, WaitCondition } from '../../api/heldjob-schema.js';
import { refusedStatus } from '../../api/refusal-rules.js';
import { epochOf } from '../../api/time.js';
import { ConditionType, EventReason, EventType, WaitState, type RefusalToken } from '../../api/vocabulary.js';
import type { Action } from './actions.js';
import { waitLabel } from '../../api/wait-label.js';

/** The status once the HeldJob stops waiting: WAITED stops counting, the wait is recorded. */
export function stopWaiting(status: HeldJobStatus, now: number, reason: string): HeldJobStatus {
  const { waitingSince: _w, nextCheckAt: _n, ...rest } = status;
  const heldSince = epochOf(status.heldSince);
  return {
    ...rest,
    ...(heldSince !== undefined ? { waitedSeconds: Math.max(0, Math.round((now - heldSince) / 1000)) } : {}),
    conditions: setCondition(status.conditions, { type: ConditionType.Waiting, status: 'False', reason }, now),
  };
}

/** Refuses the HeldJob for good: one status write with its Event, and the refusal metric. */
export function refuse(status: HeldJobStatus, token: RefusalToken, message: string, now: number): Action[] {
  const base = status.waitingSince ? stopWaiting(status, now, token) : status;
  return [
    {
      type: 'updateStatus',
      status: refusedStatus(base, { token, message }, now),
      event: { type: EventType.Warning, reason: EventReason.Refused, message: `${token}: ${message}` },
      refusal: token,
    },
  ];
}

/** Each condition and how it stands, for `kubectl describe`. */
export function waitStates(
  conditions: readonly WaitCondition[],
  status: HeldJobStatus,
  afterMs: number | undefined,
  now: number,
): NonNullable<HeldJobStatus['waits']> {
  const cleared = new Set(status.clearedProfiles ?? []);
  return conditions.map((c) => {
    if ('after' in c) {
      const done = afterMs !== undefined && now >= afterMs;
      return { condition: waitLabel([c]), state: done ? WaitState.Cleared : WaitState.Waiting };
    }
    if (cleared.has(c.profile)) return { condition: c.profile, state: WaitState.Cleared, detail: 'answered go in this round' };
    if (status.lastCheckProfile === c.profile && status.lastExitCode !== undefined) {
      return { condition: c.profile, state: WaitState.Waiting, detail: `last exit code ${status.lastExitCode}` };
    }
    return { condition: c.profile, state: WaitState.NotChecked };
  });
}
