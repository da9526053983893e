// The confirm behind cancel_held_job, pure: the question put to the human through MCP
// elicitation, the form it comes with, and what an answer (or none) decides. Only an accepted
// answer that ticks `confirm` cancels; a decline, a dismissed form, a timeout, a failed
// request and a client that cannot ask all cancel nothing, and each says why.
//
// The question is built from what admission validated: the id-only target (checked against the
// target pattern), the namespace and name (DNS labels) and the conditions as spec.waitFor has
// them (an instant, or a profile name). status.waitLabel, which anyone allowed to write the
// status could set, is used only when the spec does not read, and then as bounded data.
import type { ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';
import { checkSpec, type HeldJobObject } from '../../api/heldjob-schema.js';
import { waitLabel } from '../../api/wait-label.js';
import { classify, type CancelKind } from '../cancel-heldjob.js';
import { formatDuration, formatSpan } from '../format.js';
import { heldRows, RowState } from '../held-panel.js';
import { dataText } from './data-text.js';

/** The longest conditions text a question carries. */
const CONDITIONS_MAX = 120;

/** The form the question comes with: one required yes/no. */
export const CONFIRM_SCHEMA: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    confirm: { type: 'boolean', title: 'Cancel it', description: 'Yes: cancel this HeldJob. It cannot be undone.' },
  },
  required: ['confirm'],
};

/** What became of the question. */
export const ConfirmOutcome = {
  /** Accepted, with confirm ticked: cancel. */
  Accepted: 'accepted',
  /** The human said no. */
  Declined: 'declined',
  /** The form was dismissed without an answer. */
  Dismissed: 'dismissed',
  /** Accepted, but confirm was not true. */
  NotConfirmed: 'not-confirmed',
  /** No answer in time. */
  TimedOut: 'timed-out',
  /** The request failed (the client broke off, or answered out of form). */
  Failed: 'failed',
  /** The client cannot be asked: it declared no elicitation. */
  NoElicitation: 'no-elicitation',
} as const;
export type ConfirmOutcome = (typeof ConfirmOutcome)[keyof typeof ConfirmOutcome];

/** What cancel_held_job answers: the confirm's outcome, or why nobody was asked or nothing was deleted. */
export const CancelToolOutcome = {
  ...ConfirmOutcome,
  /** There is no HeldJob of that name. */
  NotFound: 'not-found',
  /** A cancel had already been asked for. */
  AlreadyCancelling: 'already-cancelling',
  /** It went while the human was being asked. */
  Gone: 'gone',
  /** Another HeldJob took its name while the human was being asked: that one is not touched. */
  Replaced: 'replaced',
  /** It moved on (e.g. from held to running) while the human was being asked: ask again. */
  Changed: 'changed',
} as const;
export type CancelToolOutcome = (typeof CancelToolOutcome)[keyof typeof CancelToolOutcome];
export const CANCEL_TOOL_OUTCOMES = Object.values(CancelToolOutcome) as [CancelToolOutcome, ...CancelToolOutcome[]];

/** What happened when the question was put. */
export type ConfirmAnswer =
  | { readonly kind: 'answered'; readonly action: 'accept' | 'decline' | 'cancel'; readonly content?: Readonly<Record<string, unknown>> }
  | { readonly kind: 'timeout'; readonly afterMs: number }
  | { readonly kind: 'failed'; readonly error: string }
  | { readonly kind: 'unsupported' };

export type ConfirmDecision =
  | { readonly cancel: true; readonly outcome: typeof ConfirmOutcome.Accepted }
  | { readonly cancel: false; readonly outcome: Exclude<ConfirmOutcome, typeof ConfirmOutcome.Accepted>; readonly why: string };

const NOTHING = 'nothing was cancelled';

/** Cancel only on accept with confirm === true; everything else keeps the HeldJob, saying why. */
export function decideConfirm(answer: ConfirmAnswer): ConfirmDecision {
  switch (answer.kind) {
    case 'answered':
      switch (answer.action) {
        case 'accept':
          return answer.content?.['confirm'] === true
            ? { cancel: true, outcome: ConfirmOutcome.Accepted }
            : { cancel: false, outcome: ConfirmOutcome.NotConfirmed, why: `the answer was accept without confirm ticked: ${NOTHING}` };
        case 'decline':
          return { cancel: false, outcome: ConfirmOutcome.Declined, why: `the human declined: ${NOTHING}` };
        case 'cancel':
          return { cancel: false, outcome: ConfirmOutcome.Dismissed, why: `the question was dismissed without an answer: ${NOTHING}` };
      }
      break;
    case 'timeout':
      return {
        cancel: false,
        outcome: ConfirmOutcome.TimedOut,
        why: `no answer within ${formatSpan(answer.afterMs)}: ${NOTHING}`,
      };
    case 'failed':
      return {
        cancel: false,
        outcome: ConfirmOutcome.Failed,
        why: `the question could not be asked (${dataText(answer.error)}): ${NOTHING}`,
      };
    case 'unsupported':
      return {
        cancel: false,
        outcome: ConfirmOutcome.NoElicitation,
        why: `this MCP client declared no elicitation, so no human can be asked to confirm: ${NOTHING}. Cancel it with \`waitgate cancel\` or \`kubectl delete heldjob\` instead`,
      };
  }
  return { cancel: false, outcome: ConfirmOutcome.Failed, why: `an answer of an unknown kind: ${NOTHING}` };
}

/** The conditions, from the validated spec when it reads; else the status label, as bounded data. */
function conditionsOf(hj: HeldJobObject, fallback: string | undefined): string {
  const spec = checkSpec(hj.spec);
  const text = spec.ok ? waitLabel(spec.spec.waitFor ?? []) : (fallback ?? '-');
  return dataText(text, CONDITIONS_MAX);
}

/**
 * The question, one line: `Cancel acme/web#7 (team-a/web-7-deploy), waiting 2h14m for jira?`.
 * Held, queued, running and finished ones are each asked for what they are.
 */
export function confirmMessage(hj: HeldJobObject, nowMs: number): string {
  const subject = classify(hj);
  const who = `${subject.target ?? '(unreadable target)'} (${hj.metadata.namespace}/${hj.metadata.name})`;
  const row = heldRows([hj], nowMs)[0];
  const conditions = conditionsOf(hj, row?.conditions);
  const kind: CancelKind = subject.kind;
  switch (kind) {
    case 'held': {
      const waited = formatDuration((row?.waitedSeconds ?? 0) * 1000);
      return row?.state === RowState.ScopeQueued
        ? `Cancel ${who}, waiting ${waited}: ${conditions} cleared, it waits for a scope slot?`
        : `Cancel ${who}, waiting ${waited} for ${conditions}?`;
    }
    case 'queued':
      return `Cancel ${who}, queued and not held yet (it will wait for ${conditions})? It never ran.`;
    case 'running':
      return `Cancel ${who}, which is running? Its Job${subject.jobName ? ` ${dataText(subject.jobName, 63)}` : ''} is deleted with it.`;
    case 'finished':
      return `Delete the record of ${who}, which already finished (${dataText(subject.phase, 32)}${subject.reason ? `, ${dataText(subject.reason, 64)}` : ''})? Nothing is running.`;
  }
}
