// The approval condition's rules, once: which group a hold waits for, what its annotations
// record (approved, rejected, nothing yet), how long it may wait, and what the record says.
// The CLI writes the annotations (waitgate approve / reject), the admission policy holds each
// name to the user who wrote it, and the operator reads them here.
import type { WaitCondition } from './heldjob-schema.js';
import { Annotations } from './vocabulary.js';

/** The most characters of an approval's or a rejection's reason; the CLI refuses a longer one. */
export const APPROVAL_REASON_MAX = 256;
/** The most characters of a user name the record keeps (a longer one is cut, marked with …). */
export const APPROVER_NAME_MAX = 253;

/** The group of the hold's approval condition, if it has one (the schema allows one at most). */
export function approvalGroupOf(conditions: readonly WaitCondition[]): string | undefined {
  for (const c of conditions) if ('approval' in c) return c.approval;
  return undefined;
}

export type ApprovalRecord =
  | { readonly state: 'none' }
  | { readonly state: 'approved'; readonly by: string; readonly reason?: string }
  | { readonly state: 'rejected'; readonly by: string; readonly reason?: string };

// eslint-disable-next-line no-control-regex -- control characters are what it replaces, on purpose
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** A name or reason as the record says it: one line, control characters as `?`, cut to `max`. */
export function recordText(text: string, max: number): string {
  const line = text.replace(CONTROL, '?').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * What the annotations say. A rejection wins over an approval (the admission policy lets
 * only one be set; without it, no would stop a hold rather than start it). An empty name is
 * no record.
 */
export function readApprovalRecord(annotations: Readonly<Record<string, string>> | undefined): ApprovalRecord {
  const a = annotations ?? {};
  const pick = (byKey: string, reasonKey: string) => {
    const by = a[byKey] === undefined ? '' : recordText(a[byKey], APPROVER_NAME_MAX);
    if (by === '') return undefined;
    const reason = a[reasonKey] === undefined ? '' : recordText(a[reasonKey], APPROVAL_REASON_MAX);
    return { by, ...(reason !== '' ? { reason } : {}) };
  };
  const rejected = pick(Annotations.rejectedBy, Annotations.rejectionReason);
  if (rejected) return { state: 'rejected', ...rejected };
  const approved = pick(Annotations.approvedBy, Annotations.approvalReason);
  if (approved) return { state: 'approved', ...approved };
  return { state: 'none' };
}

/**
 * When a hold waiting for approval gives up (wait-expired): as far from its first hold as an
 * `after` may lie from its delivery (WAITGATE_WAIT_AFTER_MAX_MS), so nothing waits for ever.
 */
export function approvalDeadline(heldSinceMs: number, afterMaxMs: number): number {
  return heldSinceMs + afterMaxMs;
}

/** `approved by alice` / `rejected by bob: not this week`. */
export function describeApproval(record: Exclude<ApprovalRecord, { state: 'none' }>): string {
  return `${record.state} by ${record.by}${record.reason ? `: ${record.reason}` : ''}`;
}

/** The cancel's record: who the `waitgate.dev/cancelled-by` annotation names, if anyone. */
export function cancelledByOf(annotations: Readonly<Record<string, string>> | undefined): string | undefined {
  const v = annotations?.[Annotations.cancelledBy];
  const by = v === undefined ? '' : recordText(v, APPROVER_NAME_MAX);
  return by === '' ? undefined : by;
}

/** How a cancel names its author in an Event and the record. */
export function cancelledByText(annotations: Readonly<Record<string, string>> | undefined): string {
  const by = cancelledByOf(annotations);
  return by === undefined ? 'the delete did not say who cancelled' : `cancelled by ${by}`;
}
