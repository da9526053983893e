// The decision: what to do next with one HeldJob, from what was observed and the time.
// Pure: no I/O, no clock, no randomness. The reconciler carries out what it returns.
import { checkSpec, type HeldJobObject, type HeldJobStatus, type KubeCondition } from '../api/heldjob-schema.js';
import { parseInstant } from '../api/instant.js';
import { jobNameFor } from '../api/job-name.js';
import { Annotations, ConditionType, isRefusalToken, isTerminal, Phase, RefusalToken, assertNever } from '../api/vocabulary.js';
import { waitLabel } from '../api/wait-label.js';

/** What the Job informer knows of the HeldJob's Job. */
export const JobOutcome = { Active: 'Active', Succeeded: 'Succeeded', Failed: 'Failed' } as const;
export type JobOutcome = (typeof JobOutcome)[keyof typeof JobOutcome];

export interface ObservedJob {
  readonly name: string;
  readonly outcome: JobOutcome;
  /** Why a failed Job failed, when the Job says (BackoffLimitExceeded, DeadlineExceeded, ...). */
  readonly failureReason?: string;
}

export interface DecideConfig {
  /** The furthest an `after` may lie beyond the HeldJob's creation. */
  readonly afterMaxMs: number;
}

export interface Observed {
  readonly heldJob: HeldJobObject;
  /** The HeldJob's Job, if the Job informer has one. */
  readonly job: ObservedJob | undefined;
  readonly config: DecideConfig;
}

export interface EventSpec {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export type Action =
  /** Write this whole status. */
  | { readonly type: 'updateStatus'; readonly status: HeldJobStatus; readonly event?: EventSpec }
  /** Create the Job with this name (AlreadyExists counts as done). */
  | { readonly type: 'createJob'; readonly jobName: string }
  /** Look at this HeldJob again at this instant (epoch ms). */
  | { readonly type: 'wakeAt'; readonly at: number };

const iso = (ms: number): string => new Date(ms).toISOString();

function epochOf(t: string | Date | undefined): number | undefined {
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

function stopWaiting(status: HeldJobStatus, now: number): HeldJobStatus {
  const { waitingSince: _w, nextCheckAt: _n, ...rest } = status;
  const heldSince = epochOf(status.heldSince);
  return {
    ...rest,
    ...(heldSince !== undefined ? { waitedSeconds: Math.max(0, Math.round((now - heldSince) / 1000)) } : {}),
    conditions: setCondition(status.conditions, { type: ConditionType.Waiting, status: 'False', reason: 'Cleared' }, now),
  };
}

function refuse(status: HeldJobStatus, token: RefusalToken, message: string, now: number): Action[] {
  const base = status.waitingSince ? stopWaiting(status, now) : status;
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
    },
  ];
}

function finish(status: HeldJobStatus, job: ObservedJob, now: number): Action[] {
  const succeeded = job.outcome === JobOutcome.Succeeded;
  const phase = succeeded ? Phase.Succeeded : Phase.Failed;
  const message = succeeded
    ? `Job ${job.name} succeeded`
    : `Job ${job.name} failed${job.failureReason ? ` (${job.failureReason})` : ''}`;
  return [
    {
      type: 'updateStatus',
      status: {
        ...status,
        phase,
        message,
        finishedAt: iso(now),
        conditions: setCondition(status.conditions, { type: ConditionType.Finished, status: 'True', reason: phase, message }, now),
      },
      event: { type: succeeded ? 'Normal' : 'Warning', reason: phase, message },
    },
  ];
}

export function decide(observed: Observed, now: number): readonly Action[] {
  const { heldJob, job, config } = observed;
  const status: HeldJobStatus = heldJob.status ?? {};
  // Deletion is cancellation: the garbage collector removes a launched Job through its
  // ownerReference, and a held one simply never starts.
  if (heldJob.metadata.deletionTimestamp) return [];
  const phase = status.phase;
  if (isTerminal(phase)) return [];

  if (phase === Phase.Running) {
    if (job && job.outcome !== JobOutcome.Active) return finish(status, job, now);
    return [];
  }

  // A record of a delivery the receiver refused: it never holds and never runs.
  const refusal = heldJob.metadata.annotations?.[Annotations.refusal];
  if (refusal !== undefined && job === undefined) {
    const message = heldJob.metadata.annotations?.[Annotations.refusalMessage] ?? 'refused by the receiver';
    return isRefusalToken(refusal)
      ? refuse(status, refusal, message, now)
      : refuse(status, RefusalToken.Unreadable, `unknown refusal token "${refusal}"`, now);
  }

  // Pending, Held or new: the HeldJob has not launched yet (or launched and crashed before
  // recording it, which the Job's existence tells).
  const check = checkSpec(heldJob.spec);
  if (!check.ok) return refuse(status, RefusalToken.Unreadable, check.problems.join('; '), now);
  const conditions = check.spec.waitFor ?? [];

  let afterMs: number | undefined;
  for (const c of conditions) {
    if ('profile' in c) {
      return refuse(status, RefusalToken.Unreadable, `profile "${c.profile}": this operator cannot run profile checks yet`, now);
    }
    const p = parseInstant(c.after);
    if (!p.ok) return refuse(status, RefusalToken.Unreadable, `after: ${p.detail}`, now);
    afterMs = p.epochMs;
  }

  const createdMs = epochOf(heldJob.metadata.creationTimestamp) ?? now;
  if (afterMs !== undefined && afterMs - createdMs > config.afterMaxMs) {
    return refuse(
      status,
      RefusalToken.AfterBeyondMax,
      `after ${iso(afterMs)} lies more than ${config.afterMaxMs} ms beyond the delivery at ${iso(createdMs)}`,
      now,
    );
  }

  const jobName = status.jobName ?? jobNameFor(heldJob.metadata);
  let held: HeldJobStatus = status;
  const actions: Action[] = [];
  if (phase !== Phase.Held) {
    held = {
      ...status,
      phase: Phase.Held,
      reason: '',
      waitLabel: waitLabel(conditions),
      heldSince: iso(now),
      waitingSince: iso(now),
      jobName,
      observedGeneration: heldJob.metadata.generation,
      conditions: setCondition(
        status.conditions,
        { type: ConditionType.Waiting, status: 'True', reason: 'Held', message: `waiting on ${waitLabel(conditions)}` },
        now,
      ),
    };
  }

  const cleared = afterMs === undefined || now >= afterMs;
  if (!cleared && job === undefined) {
    const nextCheckAt = iso(afterMs as number);
    if (held.nextCheckAt !== nextCheckAt || held !== status) {
      actions.push({ type: 'updateStatus', status: { ...held, nextCheckAt } });
    }
    actions.push({ type: 'wakeAt', at: afterMs as number });
    return actions;
  }

  // Every condition has cleared (or the Job already exists): launch, exactly once.
  if (job === undefined) actions.push({ type: 'createJob', jobName });
  const released = stopWaiting(held, now);
  const launched: HeldJobStatus = {
    ...released,
    phase: Phase.Running,
    jobName,
    launchedAt: iso(now),
    conditions: setCondition(
      released.conditions,
      { type: ConditionType.Launched, status: 'True', reason: 'JobCreated', message: `created Job ${jobName}` },
      now,
    ),
  };
  if (job && job.outcome !== JobOutcome.Active) {
    // Launched before a restart and already over: record both in one write.
    actions.push(...finish(launched, job, now));
  } else {
    actions.push({
      type: 'updateStatus',
      status: launched,
      event: { type: 'Normal', reason: 'Launched', message: `Created Job ${jobName}` },
    });
  }
  return actions;
}

/** For exhaustive handling of actions elsewhere. */
export function describeAction(a: Action): string {
  switch (a.type) {
    case 'updateStatus':
      return `status ${a.status.phase ?? ''}`;
    case 'createJob':
      return `create Job ${a.jobName}`;
    case 'wakeAt':
      return `wake at ${iso(a.at)}`;
    default:
      return assertNever(a);
  }
}
