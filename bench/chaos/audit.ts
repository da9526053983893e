// The verdict of a chaos run, by counting: what the apiserver holds at the end, what was
// seen on the way (every Job, every phase, every check the scripts ran), and the most
// places the slot leases ever held. Pure: the run gathers, this judges.
import { clearedAt, HoldSource, type PlannedHold } from './population.js';

export interface SeenHeldJob {
  readonly name: string;
  readonly target: string;
  readonly phase: string | undefined;
  readonly reason: string | undefined;
  /** status.checks at the end: the checks whose answers were recorded. */
  readonly checks: number;
}

export interface SeenJob {
  readonly name: string;
  /** The HeldJob that owns it. */
  readonly owner: string;
  /** creationTimestamp, epoch ms (whole seconds, as the apiserver keeps it). */
  readonly createdAt: number;
  /** When it stopped running (completion, failure or our deletion, floored to the second); undefined while it runs. */
  readonly endedAt: number | undefined;
  /** When it completed (its completionTime), if it did: a Job that ran to its end. */
  readonly completedAt?: number | undefined;
  /** It was still there when the run ended. */
  readonly remained?: boolean;
}

export interface Limits {
  readonly checkSlots: number;
  readonly concurrency: number;
  readonly scope: number;
}

export interface SlotHighs {
  readonly checkSlots: number;
  readonly all: number;
  readonly scope: number;
  readonly samples: number;
}

export interface Observations {
  readonly plan: readonly PlannedHold[];
  readonly heldJobs: readonly SeenHeldJob[];
  /** Every terminal phase each HeldJob was ever seen in, by name. */
  readonly terminalPhasesSeen: ReadonlyMap<string, ReadonlySet<string>>;
  /** Every Job ever seen. */
  readonly jobs: readonly SeenJob[];
  /** When each check of a target began (its script ran, or its check Pod appeared), epoch ms, by target. */
  readonly checksRun: ReadonlyMap<string, readonly number[]>;
  /** When each crash or stall began and was over: leader kills (an instant), Valkey restarts, kube-apiserver restarts and freezes. */
  readonly faultSpans: readonly FaultSpan[];
  /** HeldJobs whose running Job the run deleted. */
  readonly jobsDeleted: ReadonlySet<string>;
  /**
   * Holds the run cancelled (deleted) in the middle of their launch: target -> when, epoch ms.
   * Each must be gone at the end, and no Job of it may run on: none left, none that completed
   * more than CANCEL_GRACE_MS after the cancel.
   */
  readonly cancelled?: ReadonlyMap<string, { readonly name: string; readonly at: number }>;
  /**
   * Holds whose spec the run edited in the middle of their launch (an unknown field, a changed
   * Job), by name. Each ends Succeeded with its one Job, launched as recorded; or, when the edit
   * landed before the Job was created, Refused wait-unreadable with no Job: nothing built from a
   * spec that no longer reads.
   */
  readonly edited?: ReadonlySet<string>;
  readonly slotHighs: SlotHighs;
  readonly limits: Limits;
  /** Redeliveries answered by the receiver, and those that made a second hold. */
  readonly redeliveries: { readonly sent: number; readonly answered2xx: number };
}

export interface Figures {
  holds: number;
  planned: number;
  ended: Record<string, number>;
  wedged: number;
  lost: number;
  duplicates: number;
  earlyLaunches: number;
  limitBreaches: number;
  checksRun: number;
  checksRecorded: number;
  checksLostMax: number;
  /** Checks lost over faults that had a check of that hold under way: at most 1 means one per fault. */
  checksLostPerFaultMax: number;
  checksLostTotal: number;
  /** Cancelled holds whose Job completed after the grace while a fault left no leader to act. */
  cancelsLeaderless: number;
  highs: SlotHighs & { jobsAtOnce: number; jobsPerScopeAtOnce: number };
}

export interface Verdict {
  readonly figures: Figures;
  readonly violations: string[];
}

const TERMINAL = new Set(['Succeeded', 'Failed', 'Refused']);
/** A check under way at a fault began at most this long before it: the check timeout and its kill grace, and slack. */
export const CHECK_SPAN_MS = 15_000;
/**
 * After an outage a leader may still run checks it cannot record, until it steps down: it
 * exits when it has not renewed its Lease for 10 s.
 */
export const STEP_DOWN_MS = 10_000;

/**
 * A kill is noted just before the signal is sent; the process may still start a check in the
 * moment before it dies (the chaos run of 2026-12-03 saw one begin 50 ms after the note).
 */
export const KILL_LANDS_MS = 1_000;

/** A cancelled hold's Job may still complete this long after the cancel: its Pod's run was under way. */
export const CANCEL_GRACE_MS = 10_000;
/**
 * A cancel is acted on by the leader; with none (killed, or cut off by an outage, until the
 * next one takes over: the Lease's 15 s and a loaded machine's restart) the Job runs on. A
 * fault that struck this long before the cancel, or after it and before the Job completed,
 * excuses the completion: the audit counts such cancels apart instead.
 */
export const LEADERLESS_MS = 60_000;

export interface FaultSpan {
  readonly start: number;
  /** The same as start for a kill; when the server answered again for a restart or a freeze. */
  readonly end: number;
}

/**
 * The faults that may each have cost this hold one check: a kill with a check of its under way,
 * or an outage during which (or just before which, or before its leader stepped down) one began.
 */
export function faultsDuringChecks(checks: readonly number[], faults: readonly FaultSpan[]): number {
  return faults.filter((f) => {
    const after = f.end > f.start ? f.end + STEP_DOWN_MS : f.start + KILL_LANDS_MS;
    return checks.some((c) => c >= f.start - CHECK_SPAN_MS && c <= after);
  }).length;
}

/** The most intervals open at once; one that ends when another starts does not overlap it. */
export function mostAtOnce(intervals: readonly { start: number; end: number | undefined }[]): number {
  const edges: [number, number][] = [];
  for (const { start, end } of intervals) {
    edges.push([start, 1]);
    if (end !== undefined) edges.push([end, -1]);
  }
  // At equal times ends go first: second precision cannot order them, so no overlap is claimed.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, d] of edges) {
    open += d;
    most = Math.max(most, open);
  }
  return most;
}

export function audit(o: Observations): Verdict {
  const violations: string[] = [];
  const byTarget = new Map(o.plan.map((h) => [h.target, h]));
  const heldByName = new Map(o.heldJobs.map((h) => [h.name, h]));

  // Every delivery and every create ended as exactly one HeldJob, and no redelivery made another.
  const targetsSeen = new Map<string, number>();
  for (const h of o.heldJobs) targetsSeen.set(h.target, (targetsSeen.get(h.target) ?? 0) + 1);
  let lost = 0;
  let duplicates = 0;
  const cancelled = o.cancelled ?? new Map<string, { name: string; at: number }>();
  let cancelsLeaderless = 0;
  for (const h of o.plan) {
    const n = targetsSeen.get(h.target) ?? 0;
    const cancel = cancelled.get(h.target);
    if (cancel) {
      // Cancelled: gone, and nothing of it runs on.
      if (n > 0) violations.push(`${h.target}: cancelled at ${new Date(cancel.at).toISOString()}, still a HeldJob at the end`);
      for (const j of o.jobs.filter((x) => x.owner === cancel.name)) {
        if (j.remained) violations.push(`${cancel.name}: cancelled, its Job ${j.name} still there at the end`);
        if (j.completedAt === undefined || j.completedAt <= cancel.at + CANCEL_GRACE_MS) continue;
        const completed = j.completedAt;
        const leaderless = o.faultSpans.some((f) => f.start <= completed && f.end >= cancel.at - LEADERLESS_MS);
        if (leaderless) cancelsLeaderless++;
        else
          violations.push(
            `${cancel.name}: cancelled, its Job ${j.name} ran on and completed ${Math.round((completed - cancel.at) / 1000)}s later`,
          );
      }
      continue;
    }
    if (n === 0) {
      lost++;
      violations.push(`${h.target}: no HeldJob (lost)`);
    } else if (n > 1) {
      duplicates += n - 1;
      violations.push(`${h.target}: ${n} HeldJobs`);
    }
  }
  for (const h of o.heldJobs)
    if (!byTarget.has(h.target)) violations.push(`${h.name}: a HeldJob for ${h.target}, which the run never asked for`);

  // Exactly one terminal state, by the deadline, and the one expected.
  const ended: Record<string, number> = {};
  let wedged = 0;
  for (const h of o.heldJobs) {
    const key = h.reason ? `${h.phase ?? '-'} ${h.reason}` : (h.phase ?? 'no phase');
    ended[key] = (ended[key] ?? 0) + 1;
    if (!TERMINAL.has(h.phase ?? '')) {
      wedged++;
      violations.push(`${h.name} (${h.target}): still ${h.phase ?? 'without a phase'} at the deadline`);
      continue;
    }
    const seen = o.terminalPhasesSeen.get(h.name);
    if (seen && seen.size > 1) violations.push(`${h.name}: ended more than once (${[...seen].join(', ')})`);
    const noJob = !o.jobs.some((j) => j.owner === h.name);
    const expected = o.jobsDeleted.has(h.name)
      ? h.phase === 'Succeeded' || (h.phase === 'Failed' && h.reason === 'JobMissing')
      : h.phase === 'Succeeded' || (o.edited?.has(h.name) === true && h.phase === 'Refused' && h.reason === 'wait-unreadable' && noJob);
    if (!expected) {
      lost++;
      violations.push(`${h.name} (${h.target}): ended ${h.phase}${h.reason ? ` ${h.reason}` : ''}`);
    }
  }

  // At most one Job per hold, none before its conditions cleared.
  const jobsByOwner = new Map<string, SeenJob[]>();
  for (const j of o.jobs) jobsByOwner.set(j.owner, [...(jobsByOwner.get(j.owner) ?? []), j]);
  let earlyLaunches = 0;
  for (const [owner, jobs] of jobsByOwner) {
    if (jobs.length > 1) {
      duplicates += jobs.length - 1;
      violations.push(`${owner}: ${jobs.length} Jobs (${jobs.map((j) => j.name).join(', ')})`);
    }
    const held = heldByName.get(owner);
    const plan = held ? byTarget.get(held.target) : undefined;
    if (!plan) continue;
    for (const j of jobs) {
      if (j.createdAt < clearedAt(plan)) {
        earlyLaunches++;
        violations.push(
          `${owner}: Job ${j.name} created at ${new Date(j.createdAt).toISOString()}, before its conditions cleared at ${new Date(clearedAt(plan)).toISOString()}`,
        );
      }
    }
  }
  for (const h of o.heldJobs)
    if (h.phase === 'Succeeded' && !jobsByOwner.has(h.name)) violations.push(`${h.name}: Succeeded, but no Job of it was ever seen`);

  // The limits, from both sides: the leases' own high-water marks, and Jobs running at once.
  const cancelledTargets = new Map([...cancelled].map(([target, c]) => [c.name, target]));
  // The scope a Job counts against (api/target.ts scopeKeyOf): a repository's receiver-made holds
  // and the holds written by hand for it are two scopes, each with the limit of its own.
  const repoOf = (owner: string) => {
    const t = heldByName.get(owner)?.target ?? cancelledTargets.get(owner);
    const plan = t ? byTarget.get(t) : undefined;
    return plan ? `${plan.source === HoldSource.Delivery ? 'github' : 'by hand'}:${plan.repo}` : undefined;
  };
  const intervals = o.jobs.map((j) => ({ start: j.createdAt, end: j.endedAt, repo: repoOf(j.owner) }));
  const jobsAtOnce = mostAtOnce(intervals);
  let jobsPerScopeAtOnce = 0;
  const repos = new Set(intervals.map((i) => i.repo));
  for (const repo of repos) jobsPerScopeAtOnce = Math.max(jobsPerScopeAtOnce, mostAtOnce(intervals.filter((i) => i.repo === repo)));
  let limitBreaches = 0;
  const breach = (what: string, seen: number, limit: number) => {
    if (seen <= limit) return;
    limitBreaches++;
    violations.push(`${what}: ${seen} at once, over the limit of ${limit}`);
  };
  breach('check slots held', o.slotHighs.checkSlots, o.limits.checkSlots);
  breach('scope slots held (all)', o.slotHighs.all, o.limits.concurrency);
  breach('scope slots held (one scope)', o.slotHighs.scope, o.limits.scope);
  breach('Jobs running', jobsAtOnce, o.limits.concurrency);
  breach('Jobs running for one scope', jobsPerScopeAtOnce, o.limits.scope);

  // Checks lost to crashes: a check the script ran whose answer no status recorded.
  let checksRun = 0;
  let checksRecorded = 0;
  let checksLostMax = 0;
  let checksLostTotal = 0;
  let checksLostPerFaultMax = 0;
  for (const h of o.heldJobs) {
    const starts = o.checksRun.get(h.target) ?? [];
    const ran = starts.length;
    checksRun += ran;
    checksRecorded += h.checks;
    const lostChecks = ran - h.checks;
    if (lostChecks < 0) violations.push(`${h.name}: ${h.checks} checks recorded, only ${ran} run`);
    checksLostMax = Math.max(checksLostMax, lostChecks);
    checksLostTotal += Math.max(0, lostChecks);
    // At most one check per hold per fault: each lost check needs a fault of its own while one ran.
    const faults = faultsDuringChecks(starts, o.faultSpans);
    if (lostChecks > 0) checksLostPerFaultMax = Math.max(checksLostPerFaultMax, lostChecks / Math.max(1, faults));
    if (lostChecks > faults)
      violations.push(`${h.name}: lost ${lostChecks} checks (ran ${ran}, recorded ${h.checks}) with ${faults} faults during its checks`);
  }

  if (o.redeliveries.answered2xx < o.redeliveries.sent)
    violations.push(`redeliveries: ${o.redeliveries.sent - o.redeliveries.answered2xx} of ${o.redeliveries.sent} never answered 2xx`);

  return {
    figures: {
      holds: o.heldJobs.length,
      planned: o.plan.length,
      ended,
      wedged,
      lost,
      duplicates,
      earlyLaunches,
      limitBreaches,
      checksRun,
      checksRecorded,
      checksLostMax,
      checksLostTotal,
      checksLostPerFaultMax,
      cancelsLeaderless,
      highs: { ...o.slotHighs, jobsAtOnce, jobsPerScopeAtOnce },
    },
    violations,
  };
}
