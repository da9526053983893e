// Pure helpers that build statuses for decide() and recordCheck().
import type { HeldJobStatus, KubeCondition, WaitCondition } from '../../api/heldjob-schema.js';
import { ConditionType, Phase, WaitState, type RefusalToken } from '../../api/vocabulary.js';
import type { Action } from './actions.js';
import { waitLabel } from '../../api/wait-label.js';

export const iso = (ms: number): string => new Date(ms).toISOString();

export function epochOf(t: string | Date | undefined): number | undefined {
  if (t === undefined) return undefined;
  const ms = t instanceof Date ? t.getTime() : Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Sets one Kubernetes condition, keeping lastTransitionTime when the status did not change. */
export function setCondition(
  conditions: readonly KubeCondition[] | undefined,
  next: Omit<KubeCondition, 'lastTransitionTime'>,
  now: number,
): KubeCondition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const prev = i >= 0 ? list[i] : undefined;
  const lastTransitionTime = prev && prev.status === next.status && prev.lastTransitionTime ? prev.lastTransitionTime : iso(now);
  const merged: KubeCondition = { ...next, lastTransitionTime };
  if (i >= 0) list[i] = merged;
  else list.push(merged);
  return list;
}

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

export function refuse(status: HeldJobStatus, token: RefusalToken, message: string, now: number): Action[] {
  const base = status.waitingSince ? stopWaiting(status, now, token) : status;
  const conditions = setCondition(
    setCondition(base.conditions, { type: ConditionType.Waiting, status: 'False', reason: token, message }, now),
    { type: ConditionType.Finished, status: 'True', reason: token, message },
    now,
  );
  return [
    {
      type: 'updateStatus',
      status: { ...base, phase: Phase.Refused, reason: token, message, finishedAt: iso(now), conditions },
      event: { type: 'Warning', reason: 'Refused', message: `${token}: ${message}` },
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
