// The decision: what to do next with one HeldJob, from what was observed and the time.
// Pure: no I/O, no clock, no randomness. Each phase has its own decision.
import { Annotations, isRefusalToken, isTerminal, Phase, RefusalToken } from '../../api/vocabulary.js';
import type { Action } from './actions.js';
import { decideDeleting, decideRunning, decideTerminal } from './finished.js';
import type { Observed } from './observed.js';
import { nextReports } from './report.js';
import { refuse } from './status.js';
import { buildJob, dryRunKey } from './job.js';
import { decideWaiting } from './waiting.js';

export function decide(o: Observed, now: number): readonly Action[] {
  // Reports first: they only hand work to the reporter, and a later action may end the pass.
  const reports = nextReports(o.heldJob, targetOf(o), o.config.reports, now);
  const actions = decidePhase(o, now);
  return reports.length === 0 ? actions : [...reports, ...actions];
}

/** The target to report to: the checked spec's, or a well-formed one from a spec that failed its check. */
function targetOf(o: Observed): string | undefined {
  return o.view.target;
}

function decidePhase(o: Observed, now: number): readonly Action[] {
  const { heldJob } = o;
  const phase = heldJob.status?.phase;
  if (heldJob.metadata.deletionTimestamp) return decideDeleting(o, now);
  if (isTerminal(phase)) return decideTerminal(o, now);
  if (phase === Phase.Running) return decideRunning(o, now);
  if (heldJob.metadata.annotations?.[Annotations.refusal] !== undefined && o.job === undefined) return decideRefusalRecord(o, now);
  return dryRunFirst(o, decideWaiting(o, now));
}

/**
 * The first hold asks the apiserver whether its Job could be created at all (a server-side
 * dry run): a job that can never be valid ends the hold now, not at its launch a day later. A
 * hold that launches at once asks nothing first: the create itself answers.
 */
function dryRunFirst(o: Observed, actions: readonly Action[]): readonly Action[] {
  if (!o.view.ok || o.heldJob.status?.heldSince !== undefined) return actions;
  if (actions.some((a) => a.type === 'acquireScope')) return actions;
  const holds = actions.some((a) => a.type === 'runCheck' || (a.type === 'updateStatus' && a.status.phase === Phase.Held));
  if (!holds) return actions;
  const job = buildJob(o.heldJob, o.view.spec, o.view.jobName);
  return [{ type: 'dryRunJob', job, reuseKey: dryRunKey(o.heldJob.metadata.namespace, o.view.spec.job), then: actions }];
}

/** A record of a delivery the receiver refused: it never holds and never runs. */
function decideRefusalRecord(o: Observed, now: number): Action[] {
  const annotations = o.heldJob.metadata.annotations ?? {};
  const token = annotations[Annotations.refusal];
  const status = o.heldJob.status ?? {};
  const message = annotations[Annotations.refusalMessage] ?? 'refused by the receiver';
  const generation = o.view.generation;
  return isRefusalToken(token)
    ? refuse(status, token, message, now, generation)
    : refuse(status, RefusalToken.Unreadable, `unknown refusal token "${token}"`, now, generation);
}
