// Restart: one operator holds N HeldJobs (most waiting on an `after` hours ahead, some on an
// exec profile checked every 30 s whose script logs each run), is SIGKILLed, and is started
// again. Figures: how long until the new process has a wake armed for every hold (its
// `waitgate_wakes_armed` gauge), how long until the first check due since the kill has run,
// and how many checks ran again before they were due (none should).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { Phase } from '../../api/vocabulary.js';
import { createHeldJobs } from '../common.js';
import { scrape, seriesIn } from '../metrics-text.js';
import { startCostMeter } from './cost-meter.js';
import { deleteNamespaceAndWait, PhaseWatch, until } from './measure.js';
import { startChartOperator, type RunningOperator } from './operator.js';
import { Better, Target, type Row } from './report.js';

const PROFILE = 'bench';
const INTERVAL_MS = 30_000;
const CHECK_SLOTS = 16;
const LIMIT_S = 10;

export interface RestartOptions {
  readonly kc: k8s.KubeConfig;
  readonly count: number;
  /** How many of the holds wait on the profile (the rest on an `after`). */
  readonly checking: number;
  readonly log: (line: string) => void;
}

/** Logs `<epoch ms> <target>` for each run, then says "not yet". */
function loggingScript(runs: string): string {
  return `#!/bin/sh\nprintf '%s %s\\n' "$(date +%s%3N)" "$1" >> '${runs}'\nexit 3\n`;
}

interface Run {
  readonly at: number;
  readonly target: string;
}

function readRuns(path: string): Run[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [at, target] = line.split(' ');
      return { at: Number(at), target: target ?? '' };
    });
}

/**
 * Runs of one target closer together than half the interval: a check run again before it was
 * due. A run begun within `graceMs` before the kill may be lost with the process and rightly
 * run again; those are counted apart.
 */
export function repeatedChecks(
  runs: readonly Run[],
  intervalMs: number,
  killAt: number,
  graceMs: number,
): { repeated: number; retriedAfterKill: number } {
  const byTarget = new Map<string, number[]>();
  for (const r of runs) byTarget.set(r.target, [...(byTarget.get(r.target) ?? []), r.at]);
  let repeated = 0;
  let retriedAfterKill = 0;
  for (const times of byTarget.values()) {
    times.sort((a, b) => a - b);
    for (let i = 1; i < times.length; i++) {
      const prev = times[i - 1] as number;
      if ((times[i] as number) - prev >= intervalMs / 2) continue;
      if (prev <= killAt && prev >= killAt - graceMs) retriedAfterKill++;
      else repeated++;
    }
  }
  return { repeated, retriedAfterKill };
}

async function gauge(port: number, name: string): Promise<number> {
  const text = await scrape(`http://127.0.0.1:${String(port)}`).catch(() => '');
  return seriesIn(text, name) ?? 0;
}

export async function restartRows(o: RestartOptions): Promise<Row[]> {
  const core = o.kc.makeApiClient(k8s.CoreV1Api);
  const custom = o.kc.makeApiClient(k8s.CustomObjectsApi);
  const ns = `bench-restart-${Date.now().toString(36)}`;
  const runs = join(mkdtempSync(join(tmpdir(), 'waitgate-bench-restart-')), 'runs');
  await core.createNamespace({ body: { metadata: { name: ns } } });
  await core.createNamespacedConfigMap({
    namespace: ns,
    body: {
      metadata: { name: 'waitgate-profiles' },
      data: { 'profiles.json': JSON.stringify({ [PROFILE]: { mode: 'exec', script: 'log.sh' } }), 'log.sh': loggingScript(runs) },
    },
  });
  const env = { WAITGATE_WAIT_CHECK_SLOTS: String(CHECK_SLOTS), WAITGATE_WAIT_INTERVAL_MS: String(INTERVAL_MS) };
  let operator: RunningOperator = await startChartOperator(ns, env);
  const phases = new PhaseWatch(o.kc, ns);
  await phases.start();
  try {
    const after = new Date(Date.now() + 3 * 3_600_000).toISOString();
    await createHeldJobs(
      custom,
      ns,
      'r',
      Array.from({ length: o.count }, (_, i) => i),
      (i) => (i < o.checking ? [{ profile: PROFILE }] : [{ after }]),
    );
    const allHeld = await until(() => phases.count(Phase.Held) >= o.count, Date.now() + 1_800_000, 500);
    if (!allHeld) throw new Error(`restart: ${o.count} HeldJobs were not all Held within 30 minutes`);
    // Every checking hold has run a check and waits for its next one.
    await until(() => new Set(readRuns(runs).map((r) => r.target)).size >= o.checking, Date.now() + 300_000, 500);
    const armedBefore = await gauge(operator.metricsPort, 'waitgate_wakes_armed');
    // Kill a second before the next check is due, so it comes due while no operator runs.
    const nextDue = (): number =>
      Math.min(
        ...phases
          .list()
          .map((h) => Date.parse(h.status?.nextCheckAt ?? ''))
          .filter((t) => Number.isFinite(t) && t > Date.now() + 2_000),
      );
    const due = nextDue();
    if (!Number.isFinite(due)) throw new Error('restart: no check is due next');
    await new Promise((r) => setTimeout(r, due - 1_000 - Date.now()));
    const killAt = Date.now();
    operator.child.kill('SIGKILL');
    await new Promise<void>((resolve) =>
      operator.child.exitCode !== null || operator.child.signalCode !== null ? resolve() : operator.child.once('exit', () => resolve()),
    );
    const meter = await startCostMeter();
    const restartAt = Date.now();
    operator = await startChartOperator(ns, env);
    meter.add('operator', operator.pid);
    // A hold whose check is running has no wake armed meanwhile: at most one per check slot.
    const everyWake = o.count - CHECK_SLOTS;
    let armedAt = 0;
    const armed = await until(
      async () => {
        const n = await gauge(operator.metricsPort, 'waitgate_wakes_armed');
        if (n >= everyWake) armedAt = Date.now();
        return n >= everyWake;
      },
      restartAt + 120_000,
      100,
    );
    const rearmS = armed ? (armedAt - restartAt) / 1000 : NaN;
    const rearmCosts = await meter.stop(o.count, 'hold');
    const firstDue = await until(() => readRuns(runs).some((r) => r.at > restartAt), restartAt + 120_000, 100);
    const firstRun = Math.min(
      ...readRuns(runs)
        .filter((r) => r.at > restartAt)
        .map((r) => r.at),
    );
    const firstCheckS = firstDue ? (firstRun - restartAt) / 1000 : NaN;
    // Two more intervals, to see every checking hold's next run after the restart.
    await new Promise((r) => setTimeout(r, 2 * INTERVAL_MS + 5_000));
    const all = readRuns(runs);
    const { repeated, retriedAfterKill } = repeatedChecks(all, INTERVAL_MS, killAt, 2_000);
    o.log(
      `restart: ${armedBefore} wakes armed before the kill; after it ${armed ? `${rearmS.toFixed(1)} s` : 'never'} to re-arm ${everyWake}+, a check due ${((due - restartAt) / 1000).toFixed(1)} s after the restart, the first run ${firstCheckS.toFixed(1)} s after it; ${repeated} checks repeated (${retriedAfterKill} lost with the process and run again); ${all.length} runs in all`,
    );
    const n = o.count.toLocaleString('en-US');
    return [
      {
        what: `restart: every wake re-armed (${n} held, SIGKILL)`,
        how: `from the new process's start until its waitgate_wakes_armed gauge reaches the holds less the ${CHECK_SLOTS} check slots (a hold whose check runs has no wake armed)`,
        figure: rearmS,
        unit: 's',
        against: { label: 'limit', value: LIMIT_S },
        better: Better.Lower,
        target: Target.limit,
        note: `${armedBefore} wakes were armed before the kill; the costs are from the new process's start until every wake was armed`,
        costs: rearmCosts,
      },
      {
        what: `restart: first due check run (${n} held, ${o.checking} checking every ${INTERVAL_MS / 1000} s)`,
        how: "from the new process's start until the first check run since, from the script's own log",
        figure: firstCheckS,
        unit: 's',
        against: { label: 'limit', value: LIMIT_S },
        better: Better.Lower,
        target: Target.limit,
        note: `the first check was due ${((due - restartAt) / 1000).toFixed(1)} s after the new process started and ran ${((firstRun - due) / 1000).toFixed(1)} s after it was due`,
      },
      {
        what: 'restart: checks repeated',
        how: `runs of one hold's check less than half an interval apart, over two intervals after the restart (a run begun within 2 s before the kill and run again is counted apart)`,
        figure: repeated,
        unit: 'checks',
        against: { label: 'limit', value: 0 },
        better: Better.Lower,
        target: Target.none,
        note: `${retriedAfterKill} runs begun just before the kill were run again after it; ${all.length} runs in all`,
      },
    ];
  } finally {
    phases.stop();
    // While the operator runs: it takes its finalizers off the HeldJobs the deletion removes.
    await deleteNamespaceAndWait(o.kc, ns);
    await operator.stop();
  }
}
