// The summary conditions tools read, derived from the phase and the other conditions, never
// set on their own: Ready (the API conventions' summary; Flux and its UIs read it) and the
// kstatus pair, Reconciling (True while the HeldJob can still change) and Stalled (True once it
// ended Failed or Refused). kstatus, which Flux's health checks and kpt use, computes from them
// InProgress while held or running, Current once succeeded, Failed once failed or refused.
// Reconciling and Stalled are abnormal-true: absent when False, as kstatus reads absence.
import { findCondition, removeCondition, setCondition, type ConditionInput } from './conditions.js';
import type { HeldJobStatus, KubeCondition } from './heldjob-schema.js';
import { assertNever, ConditionReason, ConditionType, isRefusalToken, Phase, REFUSAL_REASONS } from './vocabulary.js';

/** The summary of a status: the reason and message the summary conditions carry, and what it means. */
export interface Summary {
  readonly state: 'progressing' | 'succeeded' | 'stalled';
  readonly reason: string;
  readonly message: string;
}

export function summaryOf(status: HeldJobStatus): Summary {
  const phase = status.phase ?? Phase.Pending;
  switch (phase) {
    case Phase.Pending:
    case Phase.Held: {
      const waiting = findCondition(status.conditions, ConditionType.Waiting);
      if (waiting?.status === 'True' && waiting.reason) {
        return { state: 'progressing', reason: waiting.reason, message: waiting.message ?? 'waiting on its conditions' };
      }
      return phase === Phase.Held
        ? { state: 'progressing', reason: ConditionReason.Held, message: 'held on its wait conditions' }
        : { state: 'progressing', reason: ConditionReason.Pending, message: 'not held yet' };
    }
    case Phase.Running:
      return { state: 'progressing', reason: ConditionReason.JobRunning, message: `Job ${status.jobName ?? ''} is running`.trim() };
    case Phase.Succeeded:
      return { state: 'succeeded', reason: ConditionReason.Succeeded, message: status.message ?? 'the Job succeeded' };
    case Phase.Failed: {
      const finished = findCondition(status.conditions, ConditionType.Finished);
      return { state: 'stalled', reason: finished?.reason ?? ConditionReason.Failed, message: status.message ?? 'failed' };
    }
    case Phase.Refused: {
      const reason = isRefusalToken(status.reason) ? REFUSAL_REASONS[status.reason] : ConditionReason.WaitUnreadable;
      return { state: 'stalled', reason, message: status.message ?? 'refused' };
    }
    default:
      return assertNever(phase);
  }
}

/**
 * The status with its summary conditions set from its phase, each stamped with `generation`,
 * and status.observedGeneration set to it (kstatus calls a status whose observedGeneration
 * lags metadata.generation in progress).
 */
export function withSummary(status: HeldJobStatus, now: number, generation: number | undefined): HeldJobStatus {
  const s = summaryOf(status);
  const with_ = (list: KubeCondition[], c: ConditionInput) => setCondition(list, c, now, generation);
  let conditions = with_(status.conditions ? [...status.conditions] : [], {
    type: ConditionType.Ready,
    status: s.state === 'succeeded' ? 'True' : 'False',
    reason: s.reason,
    message: s.message,
  });
  const reconciling = { type: ConditionType.Reconciling, status: 'True', reason: s.reason, message: s.message } as const;
  const stalled = { type: ConditionType.Stalled, status: 'True', reason: s.reason, message: s.message } as const;
  conditions = s.state === 'progressing' ? with_(conditions, reconciling) : removeCondition(conditions, ConditionType.Reconciling);
  conditions = s.state === 'stalled' ? with_(conditions, stalled) : removeCondition(conditions, ConditionType.Stalled);
  return { ...status, ...(generation !== undefined ? { observedGeneration: generation } : {}), conditions };
}
