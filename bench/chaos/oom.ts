// The OOM phase of make chaos: one operator, as the chart runs it (its NODE_OPTIONS, the
// image's allocator setting, in a memory cgroup with the chart's limit), holding 30,000
// HeldJobs. While the last of them launch, the group's limit is lowered to just over what the
// operator uses, so the kernel OOM-kills it for real in the middle of that work; the limit goes
// back and the operator is started again in the same group, as the kubelet restarts a container.
// It must come back under the limit (relisting every hold), not be killed again, launch each
// hold that came due exactly once and keep every other one held.
import * as k8s from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, HELDJOB_PLURAL, Phase } from '../../api/vocabulary.js';
import { createHeldJobs, heldJobBody, inParallel, listJobs, sleep } from '../common.js';
import { PhaseWatch, sampleProcess, until } from '../record/measure.js';
import { chartMemoryLimitMiB, startChartOperator, type RunningOperator } from '../record/operator.js';
import { MemoryCgroup } from './memory-cgroup.js';

export interface OomOptions {
  readonly kc: k8s.KubeConfig;
  /** Every hold; `due` of them come due while the operator is killed. */
  readonly holds: number;
  readonly due: number;
  readonly say: (line: string) => void;
}

export interface OomReport {
  readonly holds: number;
  readonly due: number;
  readonly limitMiB: number;
  /** Seconds to create the holds and for the operator to have them all Held. */
  readonly heldS: number;
  /** The group's peak with every hold held, before the kill, MiB. */
  readonly peakHeldMiB: number | undefined;
  /** How the operator died: the kernel's OOM killer in its group, or SIGKILL where the kernel would not. */
  readonly killedBy: 'kernel OOM killer' | 'SIGKILL (no OOM kill within 60 s)' | 'SIGKILL (no memory cgroup)';
  /** The operator's anonymous memory when its limit was lowered, MiB. */
  readonly usageAtKillMiB: number | undefined;
  /** From the restart to every due hold ended, s. */
  readonly recoveryS: number;
  /** The group's peak after the restart, MiB, and the restarted operator's own peak RSS. */
  readonly peakAfterMiB: number | undefined;
  readonly rssPeakAfterMiB: number;
  /** Deaths of the restarted operator (OOM or otherwise): none is the rule. */
  readonly deathsAfter: number;
  readonly violations: string[];
  readonly cgroupNote: string | undefined;
}

const MiB = 1024 * 1024;

/**
 * The group's limit down to just over what reclaim cannot take back. The kernel refuses (EBUSY)
 * a limit it cannot reclaim down to (cgroup v1 counts some kernel memory too): step up from the
 * anonymous memory until it takes one; the next burst of allocations then meets the OOM killer.
 */
function lowerToJustOver(cgroup: MemoryCgroup): void {
  const ceiling = cgroup.usageBytes() + 64 * MiB;
  for (let limit = cgroup.anonBytes() + 4 * MiB; ; limit += 4 * MiB) {
    try {
      cgroup.setLimitBytes(limit);
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'EBUSY' || limit > ceiling) throw err;
    }
  }
}

export async function runOomPhase(o: OomOptions): Promise<OomReport> {
  const core = o.kc.makeApiClient(k8s.CoreV1Api);
  const batch = o.kc.makeApiClient(k8s.BatchV1Api);
  const custom = o.kc.makeApiClient(k8s.CustomObjectsApi);
  const limitMiB = chartMemoryLimitMiB();
  const group = MemoryCgroup.create(`waitgate-chaos-oom-${process.pid}`, limitMiB);
  const cgroup = typeof group === 'string' ? undefined : group;
  const cgroupNote = typeof group === 'string' ? group : undefined;
  if (cgroupNote) o.say(`chaos oom: ${cgroupNote}; the operator runs without a limit and is killed with SIGKILL`);
  const wrap = cgroup ? (c: string[]) => cgroup.wrap(c) : undefined;
  const ns = `chaos-oom-${Date.now().toString(36)}`;
  await core.createNamespace({ body: { metadata: { name: ns } } });
  const phases = new PhaseWatch(o.kc, ns);
  await phases.start();
  const violations: string[] = [];
  const far = o.holds - o.due;
  let operator: RunningOperator | undefined;
  let deathsAfter = 0;
  try {
    operator = await startChartOperator(ns, {}, wrap);
    const t0 = Date.now();
    // The held ones: a day ahead. Suspended Jobs, should one launch by mistake.
    const inADay = new Date(Date.now() + 86_400_000).toISOString();
    await createHeldJobs(
      custom,
      ns,
      'held',
      Array.from({ length: far }, (_, i) => i),
      () => [{ after: inADay }],
    );
    const allHeld = await until(() => phases.count(Phase.Held) >= far, Date.now() + 1_800_000, 1_000);
    if (!allHeld) throw new Error(`${far} holds were not all Held within 30 minutes (operator log ${operator.logPath})`);
    const heldS = (Date.now() - t0) / 1000;
    const peakHeldMiB = cgroup?.peakMiB();
    o.say(
      `chaos oom: ${far} holds Held in ${heldS.toFixed(0)}s; the operator's group peaked at ${peakHeldMiB?.toFixed(0) ?? '?'} MiB of ${limitMiB}`,
    );

    // The due ones: distinct repositories, a Job that ends at once, all due a minute from now.
    const dueAt = new Date(Math.ceil((Date.now() + 60_000) / 1000) * 1000).toISOString();
    await inParallel(
      Array.from({ length: o.due }, (_, i) => i),
      32,
      async (i) => {
        await custom.createNamespacedCustomObject({
          group: API_GROUP,
          version: API_VERSION,
          plural: HELDJOB_PLURAL,
          namespace: ns,
          body: heldJobBody(`due-${i}`, `acme/due-${i}#1`, [{ after: dueAt }], false),
        });
      },
    );
    await until(() => phases.count(Phase.Held) >= o.holds, Date.now() + 600_000, 500);
    o.say(`chaos oom: ${o.due} more holds due at ${dueAt}`);

    // The kill: a moment before the due ones come due, the limit drops to just over the
    // operator's anonymous memory, so the burst of launches that follows meets the OOM killer.
    await sleep(Math.max(0, Date.parse(dueAt) - 1_000 - Date.now()));
    const victim = operator;
    const died = new Promise<NodeJS.Signals | null>((resolve) => victim.child.once('exit', (_code, signal) => resolve(signal)));
    let killedBy: OomReport['killedBy'];
    let usageAtKillMiB: number | undefined;
    if (cgroup) {
      const before = cgroup.oomKills();
      usageAtKillMiB = cgroup.anonBytes() / MiB;
      lowerToJustOver(cgroup);
      const signal = await Promise.race([died, sleep(60_000).then(() => 'timeout' as const)]);
      if (signal === 'timeout') {
        victim.child.kill('SIGKILL');
        await died;
        killedBy = 'SIGKILL (no OOM kill within 60 s)';
      } else {
        killedBy = cgroup.oomKills() > before ? 'kernel OOM killer' : 'SIGKILL (no OOM kill within 60 s)';
      }
      cgroup.setLimitBytes(limitMiB * MiB);
      cgroup.resetPeak();
    } else {
      victim.child.kill('SIGKILL');
      await died;
      killedBy = 'SIGKILL (no memory cgroup)';
    }
    const launchedAtKill = phases.count(Phase.Running) + phases.count(Phase.Succeeded);
    o.say(
      `chaos oom: operator killed by the ${killedBy} at ${usageAtKillMiB?.toFixed(0) ?? '?'} MiB, ${launchedAtKill} of ${o.due} due holds launched`,
    );

    // The restart, as a kubelet would: the same limit, again and again if it dies.
    const restartedAt = Date.now();
    operator = await startChartOperator(ns, {}, wrap);
    let rssPeakAfterMiB = 0;
    let current = operator;
    const watchDeaths = (op: RunningOperator) =>
      op.child.once('exit', () => {
        deathsAfter++;
      });
    watchDeaths(current);
    const recovered = await until(
      async () => {
        if (current.child.exitCode !== null || current.child.signalCode !== null) {
          current = await startChartOperator(ns, {}, wrap);
          watchDeaths(current);
          operator = current;
        }
        try {
          rssPeakAfterMiB = Math.max(rssPeakAfterMiB, sampleProcess(current.pid).peakRssMiB);
        } catch {
          // between a death and its restart
        }
        const list = phases.list();
        const dueEnded = list.filter((h) => h.metadata.name.startsWith('due-') && h.status?.phase === Phase.Succeeded).length;
        return dueEnded >= o.due;
      },
      Date.now() + 900_000,
      500,
    );
    const recoveryS = (Date.now() - restartedAt) / 1000;
    // A while longer under the limit: the restarted operator must stay up with every hold.
    await sleep(30_000);
    try {
      rssPeakAfterMiB = Math.max(rssPeakAfterMiB, sampleProcess(current.pid).peakRssMiB);
    } catch {
      // it died: counted
    }
    const peakAfterMiB = cgroup?.peakMiB();

    // The audit.
    const holds = phases.list();
    if (holds.length !== o.holds) violations.push(`${holds.length} HeldJobs, not ${o.holds}`);
    if (!recovered) violations.push(`not every due hold ended within 15 minutes of the restart`);
    const jobs = await listJobs(batch, ns);
    const jobsOf = new Map<string, number>();
    for (const j of jobs) {
      const owner = j.metadata?.ownerReferences?.find((r) => r.kind === 'HeldJob')?.name ?? '?';
      jobsOf.set(owner, (jobsOf.get(owner) ?? 0) + 1);
    }
    for (const h of holds) {
      const n = jobsOf.get(h.metadata.name) ?? 0;
      if (h.metadata.name.startsWith('due-')) {
        if (h.status?.phase !== Phase.Succeeded) violations.push(`${h.metadata.name}: ${h.status?.phase ?? 'no phase'}, not Succeeded`);
        if (n !== 1) violations.push(`${h.metadata.name}: ${n} Jobs`);
      } else {
        if (h.status?.phase !== Phase.Held) violations.push(`${h.metadata.name}: ${h.status?.phase ?? 'no phase'}, not Held`);
        if (n !== 0) violations.push(`${h.metadata.name}: ${n} Jobs, though not due`);
      }
    }
    if (deathsAfter > 0) violations.push(`the restarted operator died ${deathsAfter} time(s) under the chart's ${limitMiB} MiB`);
    if (peakAfterMiB !== undefined && peakAfterMiB >= limitMiB) violations.push(`the group peaked at its limit after the restart`);
    return {
      holds: o.holds,
      due: o.due,
      limitMiB,
      heldS,
      peakHeldMiB,
      killedBy,
      usageAtKillMiB,
      recoveryS,
      peakAfterMiB,
      rssPeakAfterMiB,
      deathsAfter,
      violations,
      cgroupNote,
    };
  } finally {
    await operator?.stop();
    phases.stop();
    cgroup?.remove();
    // Thousands of HeldJobs with the operator's finalizer: the cluster goes with the run (make
    // chaos's cluster is its own), so the namespace is left to it rather than emptied one by one.
  }
}

export function formatOom(r: OomReport): string {
  const mib = (n: number | undefined) => (n === undefined ? '?' : `${n.toFixed(0)} MiB`);
  return [
    `chaos oom: ${r.violations.length === 0 ? 'PASS' : 'FAIL'}`,
    `  holds        ${r.holds} (${r.due} due while the operator was killed); all held in ${r.heldS.toFixed(0)}s`,
    `  memory       limit ${r.limitMiB} MiB (the chart's); group peak ${mib(r.peakHeldMiB)} with every hold held, ${mib(r.peakAfterMiB)} after the restart (its RSS peak ${mib(r.rssPeakAfterMiB)})${r.cgroupNote ? ` [${r.cgroupNote}]` : ''}`,
    `  kill         by the ${r.killedBy}, at ${mib(r.usageAtKillMiB)}`,
    `  recovery     every due hold ended ${r.recoveryS.toFixed(0)}s after the restart; ${r.deathsAfter} deaths after it`,
    ...r.violations.slice(0, 20).map((v) => `  VIOLATION ${v}`),
    ...(r.violations.length > 20 ? [`  ... and ${r.violations.length - 20} more`] : []),
  ].join('\n');
}
