// What the operator tells the forge about a hold: which transitions it reports, and the words of
// each comment. Only fixed sentences, tokens and names: never a script's output, a title or a body.
import { refusalText } from './refusal-texts.js';
import { FailureReason, type RefusalToken } from './vocabulary.js';
import { isDnsLabel } from './object-name.js';

/** The transitions of a hold that may be reported (WAITGATE_FORGE_REPORT lists the ones that are). */
export const ReportTransition = { Refused: 'refused', Launched: 'launched', Finished: 'finished' } as const;
export type ReportTransition = (typeof ReportTransition)[keyof typeof ReportTransition];
export const REPORT_TRANSITIONS = Object.values(ReportTransition);

/** How one report ended, as status.reports records it. */
export const ReportOutcome = {
  /** The comment is on the forge (posted now, or found there from an earlier try). */
  Posted: 'Posted',
  /** The forge kept failing or refused the comment; not tried again. */
  GaveUp: 'GaveUp',
  /**
   * Not reported, by the rule of mayReport: nothing was sent to the forge, so the record says
   * nothing of the repository (whether it exists, whether the install can write there).
   */
  Skipped: 'Skipped',
} as const;
export type ReportOutcome = (typeof ReportOutcome)[keyof typeof ReportOutcome];
export const REPORT_OUTCOMES = Object.values(ReportOutcome);

/**
 * The hidden line that makes a comment recognisable: a retry after a crash looks for it before
 * posting, so one transition of one HeldJob is never commented twice.
 */
export function reportMarker(heldJobUid: string, transition: ReportTransition): string {
  return `<!-- waitgate:${heldJobUid}:${transition} -->`;
}

/** What a comment is about. Names and tokens only. */
export type ReportSubject =
  | { readonly transition: 'refused'; readonly token: RefusalToken }
  /** approvedBy: the cluster user who said go to its approval condition (a name, never their reason). */
  | { readonly transition: 'launched'; readonly jobName: string; readonly approvedBy?: string }
  | { readonly transition: 'finished'; readonly succeeded: boolean; readonly failureReason?: FailureReason | undefined };

export interface CommentInput {
  readonly heldJob: { readonly name: string; readonly namespace: string; readonly uid: string };
  readonly subject: ReportSubject;
}

function finishedText(s: Extract<ReportSubject, { transition: 'finished' }>): string {
  if (s.succeeded) return 'The job ran and succeeded.';
  switch (s.failureReason) {
    case undefined:
      return 'The job ran and failed; the operators can read its logs in the cluster.';
    case FailureReason.JobRejected:
      return 'The cluster refused to create the job, so it never ran; ask the operators to look at the trigger’s job template.';
    case FailureReason.JobMissing:
      return 'The job disappeared from the cluster before it could be seen finishing; it is not started again.';
    case FailureReason.TriggerUndeclared:
    case FailureReason.JobNotTrigger:
      return 'The job was not the one its trigger declares, so it never ran; ask the operators to look at the HeldJob’s Events.';
    default: {
      const never: never = s.failureReason;
      return never;
    }
  }
}

/** The first line of a comment: what happened, with the token where there is one. */
function headline(s: ReportSubject): string {
  switch (s.transition) {
    case 'refused':
      return `**waitgate refused this job:** \`${s.token}\``;
    case 'launched':
      return `**waitgate launched this job:** its wait conditions cleared${s.approvedBy ? `, approved by \`${s.approvedBy.replaceAll('`', "'")}\`,` : ''} and Job \`${s.jobName}\` was created.`;
    case 'finished':
      return s.succeeded ? '**waitgate: this job succeeded.**' : '**waitgate: this job failed.**';
    default: {
      const never: never = s;
      return never;
    }
  }
}

/** The whole comment: headline, the sentence of what it means, the HeldJob, the marker. */
export function commentBody(input: CommentInput): string {
  const { heldJob, subject } = input;
  const meaning =
    subject.transition === 'refused'
      ? refusalText(subject.token)
      : subject.transition === 'finished'
        ? finishedText(subject)
        : 'Nothing to do; a further comment follows when it finishes, if this installation reports that.';
  return [
    headline(subject),
    '',
    meaning,
    '',
    `HeldJob \`${heldJob.name}\` in namespace \`${heldJob.namespace}\` (\`kubectl describe heldjob ${heldJob.name} -n ${heldJob.namespace}\`).`,
    '',
    reportMarker(heldJob.uid, subject.transition),
  ].join('\n');
}

/** Parses WAITGATE_FORGE_REPORT: transitions, comma separated, each once. */
export function parseReportTransitions(text: string): { ok: true; transitions: ReportTransition[] } | { ok: false; problem: string } {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) return { ok: false, problem: `must list one or more of ${REPORT_TRANSITIONS.join(', ')}` };
  const out: ReportTransition[] = [];
  for (const p of parts) {
    if (!(REPORT_TRANSITIONS as readonly string[]).includes(p)) {
      return { ok: false, problem: `"${p}" is not a transition (${REPORT_TRANSITIONS.join(', ')})` };
    }
    if (out.includes(p as ReportTransition)) return { ok: false, problem: `"${p}" is listed twice` };
    out.push(p as ReportTransition);
  }
  return { ok: true, transitions: out };
}

/** Parses WAITGATE_FORGE_REPORT_NAMESPACES: namespace names, comma separated, each once; empty is none. */
export function parseReportNamespaces(text: string): { ok: true; namespaces: string[] } | { ok: false; problem: string } {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const out: string[] = [];
  for (const p of parts) {
    if (!isDnsLabel(p)) return { ok: false, problem: `"${p}" is not a namespace name` };
    if (out.includes(p)) return { ok: false, problem: `"${p}" is listed twice` };
    out.push(p);
  }
  return { ok: true, namespaces: out };
}

/** What the reporting rule reads of a HeldJob. */
export interface ReportOrigin {
  /** It carries the receiver's made-by label (api/made-by.ts). */
  readonly madeByReceiver: boolean;
  /** It failed its binding to its trigger (TriggerUndeclared, JobNotTrigger): the label is not to be believed. */
  readonly unbound: boolean;
  readonly namespace: string;
}

/**
 * Whether the install's forge credential may speak about a HeldJob: one the receiver made for a
 * delivery (and bound to its trigger), or one in a namespace WAITGATE_FORGE_REPORT_NAMESPACES
 * lists. Anyone else who may write HeldJobs could otherwise have the operator comment on any
 * repository its credential reaches, and learn from status.reports whether a private one exists.
 * The reason it may not, or undefined when it may.
 */
export function reportRefusal(origin: ReportOrigin, namespaces: readonly string[]): string | undefined {
  if (namespaces.includes(origin.namespace)) return undefined;
  if (origin.madeByReceiver && !origin.unbound) return undefined;
  const who = origin.madeByReceiver ? 'not bound to its trigger' : 'not made by the receiver';
  return `not reported: ${who}, and namespace ${origin.namespace} is not one WAITGATE_FORGE_REPORT_NAMESPACES lets report`;
}
