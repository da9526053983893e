// What to tell the forge about a HeldJob, from its status alone: one report per transition the
// settings name, once the status records that transition, and never again once status.reports
// records it. Pure; an adapter posts (operator/forge/reporter.ts), beside the launch path.
import { supersedingHoldOf } from '../../api/superseded-hold.js';
import { commentBody, reportMarker, reportRefusal, type ReportSubject, type ReportTransition } from '../../api/forge-reports.js';
import type { HeldJobStatus } from '../../api/heldjob-schema.js';
import { epochOf, iso } from '../../api/time.js';
import { placeOfTarget } from '../../api/forges.js';
import { madeByReceiver } from '../../api/made-by.js';
import {
  Annotations,
  ConditionType,
  FailureReason,
  isFailureReason,
  isRefusalToken,
  Labels,
  Phase,
  type Forge,
} from '../../api/vocabulary.js';
import type { Action } from './actions.js';
import type { ObservedHeldJob } from './observed.js';

/** A transition older than this is not reported (reporting switched on later does not comment on old holds). */
export const REPORT_MAX_AGE_MS = 24 * 60 * 60_000;

/** How far before the transition an earlier post is looked for: room for clocks that disagree. */
export const MARKER_LOOKBACK_MS = 10 * 60_000;

/** Which transitions are reported, to which forges (those with credentials), for which HeldJobs. */
export interface ReportSettings {
  readonly transitions: readonly ReportTransition[];
  readonly forges: readonly Forge[];
  /** Namespaces reported whoever made their HeldJobs (WAITGATE_FORGE_REPORT_NAMESPACES); elsewhere only the receiver's. */
  readonly namespaces: readonly string[];
}

/** Where a comment goes: an issue, work item or GitHub pull request (`#`), or a merge request (`!`: GitLab's, or an Azure DevOps pull request). */
export interface ForgeTarget {
  readonly forge: Forge;
  /** `owner/repo`, a GitLab project path `group/sub/project`, or an Azure DevOps `project/repository`. */
  readonly repository: string;
  readonly number: number;
  readonly mergeRequest: boolean;
}

/** One comment to make, with everything the adapter needs and nothing it must decide. */
export interface ReportRequest {
  readonly heldJob: { readonly name: string; readonly namespace: string; readonly uid: string };
  readonly transition: ReportTransition;
  readonly target: ForgeTarget;
  readonly body: string;
  readonly marker: string;
  /** A little before the transition happened: an earlier post of this comment is not older. */
  readonly since: string;
  /**
   * Set when the transition is not to be reported (reportRefusal): the reporter sends nothing
   * and records the transition Skipped, with this reason.
   */
  readonly skipped?: string;
}

/**
 * The forge and place of a HeldJob's target, by the one rule of api/forges.ts: the receiver's
 * forge label where it agrees with the target, else what the target's shape alone settles.
 * Nothing when the forge cannot be told (an unlabelled `#` or `!`): a comment is never sent to a
 * forge guessed at.
 */
export function forgeTargetOf(heldJob: ObservedHeldJob, target: string): ForgeTarget | undefined {
  const place = placeOfTarget(target, {
    forge: heldJob.metadata.labels?.[Labels.forge],
    kind: heldJob.metadata.annotations?.[Annotations.targetKind],
  });
  if (!place?.forge) return undefined;
  const { parts } = place;
  return { forge: place.forge, repository: parts.repository, number: Number(parts.number), mergeRequest: parts.separator === '!' };
}

/** The subject of a transition and when it happened, if the status shows it happened. */
function transitionIn(status: HeldJobStatus, transition: ReportTransition): { subject: ReportSubject; at: string } | undefined {
  switch (transition) {
    case 'refused':
      if (status.phase !== Phase.Refused || !isRefusalToken(status.reason) || !status.finishedAt) return undefined;
      return { subject: { transition, token: status.reason }, at: status.finishedAt };
    case 'launched': {
      const created = status.conditions?.some((c) => c.type === ConditionType.Launched && c.status === 'True');
      if (!created || !status.jobName || !status.launchedAt) return undefined;
      const approvedBy = status.approval?.by;
      return { subject: { transition, jobName: status.jobName, ...(approvedBy ? { approvedBy } : {}) }, at: status.launchedAt };
    }
    case 'finished': {
      if ((status.phase !== Phase.Succeeded && status.phase !== Phase.Failed) || !status.finishedAt) return undefined;
      const reason = isFailureReason(status.reason) ? status.reason : undefined;
      return { subject: { transition, succeeded: status.phase === Phase.Succeeded, failureReason: reason }, at: status.finishedAt };
    }
    default: {
      const never: never = transition;
      return never;
    }
  }
}

const isUnbound = (reason: HeldJobStatus['reason']): boolean =>
  reason === FailureReason.TriggerUndeclared || reason === FailureReason.JobNotTrigger;

/** The reports due for this HeldJob now: at most one per configured transition not yet recorded. */
export function nextReports(
  heldJob: ObservedHeldJob,
  target: string | undefined,
  settings: ReportSettings | undefined,
  now: number,
): Action[] {
  if (!settings || settings.transitions.length === 0 || heldJob.metadata.deletionTimestamp || target === undefined) return [];
  const place = forgeTargetOf(heldJob, target);
  if (!place || !settings.forges.includes(place.forge)) return [];
  const status = heldJob.status ?? {};
  const done = new Set((status.reports ?? []).map((r) => r.transition));
  const { name, namespace, uid } = heldJob.metadata;
  const skipped = reportRefusal(
    { madeByReceiver: madeByReceiver(heldJob), unbound: isUnbound(status.reason), namespace },
    settings.namespaces,
  );
  const actions: Action[] = [];
  for (const transition of settings.transitions) {
    if (done.has(transition)) continue;
    // A pending hold the newest delivery replaced says nothing: the hold that replaced it reports.
    if (transition === 'refused' && supersedingHoldOf(heldJob) !== undefined) continue;
    const found = transitionIn(status, transition);
    const at = epochOf(found?.at);
    if (!found || at === undefined || now - at > REPORT_MAX_AGE_MS) continue;
    const ref = { name, namespace, uid };
    actions.push({
      type: 'report',
      report: {
        heldJob: ref,
        transition,
        target: place,
        body: commentBody({ heldJob: ref, subject: found.subject }),
        marker: reportMarker(uid, transition),
        since: iso(at - MARKER_LOOKBACK_MS),
        ...(skipped !== undefined ? { skipped } : {}),
      },
    });
  }
  return actions;
}
