// The approval condition, between the `after` and the profile checks: it spends nothing (no
// check slot, no finalizer) and polls nothing. A member of its group writes the record on the
// HeldJob (waitgate approve / reject: annotations, api/approval.ts), and that write is a watch
// event that wakes the hold; the only timer is the deadline, at which it gives up. Pure.
import { withHorizon } from './horizon.js';
import { approvalDeadline, describeApproval, readApprovalRecord } from '../../api/approval.js';
import { setCondition } from '../../api/conditions.js';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { epochOf, iso } from '../../api/time.js';
import { ConditionReason, ConditionType, EventReason, EventType, RefusalToken } from '../../api/vocabulary.js';
import type { Action } from './actions.js';
import type { Observed } from './observed.js';
import { refuse, updateStatus, waitStates, writeIfChanged } from './status.js';

export type ApprovalDecision =
  /** This pass ends here: its record written, or refused. */
  | { readonly kind: 'done'; readonly actions: Action[] }
  /** Approved, recorded by an earlier pass: on to the profile checks and the launch. */
  | { readonly kind: 'cleared' }
  /** Nobody has said yet: held for it once the after has cleared (awaitApproval). */
  | { readonly kind: 'awaiting' };

/**
 * What the record says, asked as soon as the hold is held (before its `after`, so a no or a
 * go is acted on and said when it is written, not at the instant). `held` is the status this
 * pass has built so far (the hold recorded). Called only for a hold whose spec has an approval.
 */
export function decideApproval(o: Observed, held: HeldJobStatus, group: string, now: number): ApprovalDecision {
  const { view, heldJob } = o;
  if (!view.ok) return { kind: 'done', actions: [] };
  const { generation, conditions, afterMs } = view;
  // Recorded: the write that recorded it said the Event; nothing more to ask.
  if (held.approval !== undefined) return { kind: 'cleared' };

  const record = readApprovalRecord(heldJob.metadata.annotations);
  switch (record.state) {
    case 'rejected':
      return { kind: 'done', actions: refuse(held, RefusalToken.Refused, describeApproval(record), now, generation) };
    case 'approved': {
      // Recorded in a write of its own, with its Event; that write wakes the next pass, which
      // goes on to the checks and the launch (whose Job is told who approved, from here).
      const approved: HeldJobStatus = {
        ...held,
        approval: { by: record.by, at: iso(now), ...(record.reason ? { reason: record.reason } : {}) },
      };
      const next: HeldJobStatus = { ...approved, waits: waitStates(conditions, approved, afterMs, now) };
      const message = `${describeApproval(record)} (a member of ${group})`;
      return {
        kind: 'done',
        actions: [updateStatus(next, now, generation, { event: { type: EventType.Normal, reason: EventReason.Approved, message } })],
      };
    }
    case 'none':
      return { kind: 'awaiting' };
  }
}

/**
 * Held for the approval, the after (if any) cleared: Waiting True, AwaitingApproval, and no
 * timer but the deadline (approvalDeadline), where it ends wait-expired. `status` is the
 * HeldJob's status as read, `held` the one this pass has built.
 */
export function awaitApproval(o: Observed, status: HeldJobStatus, held: HeldJobStatus, group: string, now: number): Action[] {
  const { view, config } = o;
  if (!view.ok) return [];
  const { generation, conditions, afterMs } = view;
  const heldSince = epochOf(held.heldSince) ?? now;
  const deadline = approvalDeadline(heldSince, config.afterMaxMs);
  if (now >= deadline) {
    const message = `no member of ${group} approved within ${config.afterMaxMs} ms of the first hold at ${iso(heldSince)}`;
    return refuse(held, RefusalToken.Expired, message, now, generation);
  }
  const next: HeldJobStatus = withHorizon(
    {
      ...held,
      nextCheckAt: iso(deadline),
      waits: waitStates(conditions, held, afterMs, now),
      conditions: setCondition(
        held.conditions,
        {
          type: ConditionType.Waiting,
          status: 'True',
          reason: ConditionReason.AwaitingApproval,
          message: `waiting for a member of ${group} to approve (waitgate approve); gives up at ${iso(deadline)}`,
        },
        now,
        generation,
      ),
    },
    view,
    config,
  );
  return [...writeIfChanged(status, next, now, generation), { type: 'wakeAt', at: deadline }];
}
