// What an idle hold costs. One operator (as the chart runs it) holds a growing number of
// HeldJobs whose `after` is an hour ahead: at each step every one is Held, then the operator
// is left idle and its memory, its CPU and the apiserver's own request counters are read.
import * as k8s from '@kubernetes/client-node';
import { Phase } from '../../api/vocabulary.js';
import { createHeldJobs } from '../common.js';
import { perUnit, readApiserverRequests, requestsBetween, totalOf } from './apiserver-requests.js';
import { startCostMeter } from './cost-meter.js';
import type { Costs } from './costs.js';
import { deleteNamespaceAndWait, PhaseWatch, sampleProcess, until } from './measure.js';
import { chartMemoryLimitMiB, startChartOperator } from './operator.js';
import { Better, Target, type Row } from './report.js';

export interface HeldAtScaleOptions {
  readonly kc: k8s.KubeConfig;
  readonly kubeconfig: string;
  /** Ascending; the one equal to `recordCount` is idle for `idleS`, the others for `stepIdleS`. */
  readonly steps: readonly number[];
  readonly recordCount: number;
  readonly idleS: number;
  readonly stepIdleS: number;
  readonly log: (line: string) => void;
}

/** Resources an idle hold could cause requests to; WATCHes are counted when they start. */
const HOLD_RESOURCES = ['heldjobs', 'jobs', 'events', 'pods', 'configmaps'];

export interface StepFigures {
  readonly holds: number;
  readonly rssMiB: number;
  readonly cpuPercent: number;
  readonly requestsPerHold: number;
  /** WATCHes the informers renewed in the window: per informer, not per hold. */
  readonly watchesRenewed: number;
  readonly idleS: number;
  /** The idle window's requests per hold by verb and resource and CPU by process. */
  readonly costs?: Costs;
}

const MiB_LIMIT_AT_RECORD = 256;
const IDLE_CPU_LIMIT_PERCENT = 2;
const GOAL_100K_MiB = 1024;

export async function heldAtScaleRows(o: HeldAtScaleOptions): Promise<{ rows: Row[]; steps: StepFigures[] }> {
  const core = o.kc.makeApiClient(k8s.CoreV1Api);
  const custom = o.kc.makeApiClient(k8s.CustomObjectsApi);
  const ns = `bench-idle-${Date.now().toString(36)}`;
  await core.createNamespace({ body: { metadata: { name: ns } } });
  const operator = await startChartOperator(ns);
  const phases = new PhaseWatch(o.kc, ns);
  await phases.start();
  const steps: StepFigures[] = [];
  try {
    const after = new Date(Date.now() + 3_600_000 * 3).toISOString();
    let made = 0;
    for (const holds of o.steps) {
      await createHeldJobs(
        custom,
        ns,
        'i',
        Array.from({ length: holds - made }, (_, i) => made + i),
        () => [{ after }],
      );
      made = holds;
      const allHeld = await until(() => phases.count(Phase.Held) >= holds, Date.now() + 1_800_000, 500);
      if (!allHeld) throw new Error(`${holds} HeldJobs were not all Held within 30 minutes`);
      // Let the writes of the last holds settle before the idle window opens.
      await new Promise((r) => setTimeout(r, 10_000));
      const idleS = holds === o.recordCount ? o.idleS : o.stepIdleS;
      const read = async () => ({ proc: sampleProcess(operator.pid), requests: await readApiserverRequests(o.kubeconfig) });
      const before = await read();
      const meter = await startCostMeter({ processes: { operator: operator.pid }, apiserver: false });
      await new Promise((r) => setTimeout(r, idleS * 1000));
      const cpu = await meter.stop(holds, 'hold');
      const afterIdle = await read();
      // The two metric reads are themselves requests, to no resource (so not counted).
      const served = requestsBetween(before.requests, afterIdle.requests);
      const requests = totalOf(served, HOLD_RESOURCES);
      const watches = totalOf(served, HOLD_RESOURCES, 'watches');
      const step: StepFigures = {
        holds,
        rssMiB: afterIdle.proc.rssMiB,
        cpuPercent: ((afterIdle.proc.cpuS - before.proc.cpuS) / idleS) * 100,
        requestsPerHold: requests / holds,
        watchesRenewed: watches,
        idleS,
        costs: { ...cpu, requests: perUnit(served, holds) },
      };
      steps.push(step);
      o.log(
        `held: ${holds} Held; over ${idleS} s idle: RSS ${step.rssMiB.toFixed(0)} MiB, CPU ${step.cpuPercent.toFixed(2)} %, ${requests} apiserver requests besides ${watches} renewed watches`,
      );
    }
  } finally {
    phases.stop();
    // While the operator runs: it takes its finalizers off the HeldJobs the deletion removes.
    await deleteNamespaceAndWait(o.kc, ns);
    await operator.stop();
  }
  return { rows: rowsOf(steps, o.recordCount), steps };
}

/** The rows from the measured steps (pure). */
export function rowsOf(steps: readonly StepFigures[], recordCount: number): Row[] {
  const at = steps.find((s) => s.holds === recordCount);
  const first = steps[0];
  const last = steps[steps.length - 1];
  const rows: Row[] = [];
  const n = recordCount.toLocaleString('en-US');
  if (at) {
    rows.push(
      {
        what: `held at scale: operator RSS (${n} held)`,
        how: `RSS after ${at.idleS} s idle; the operator runs with the chart's NODE_OPTIONS and the image's allocator setting`,
        figure: at.rssMiB,
        unit: 'MiB',
        against: { label: 'target', value: MiB_LIMIT_AT_RECORD },
        better: Better.Lower,
        target: Target.limit,
        note: `the chart's memory limit is ${chartMemoryLimitMiB()} MiB: ${((chartMemoryLimitMiB() / at.rssMiB - 1) * 100).toFixed(0)} % headroom over this figure`,
      },
      {
        what: `held at scale: idle CPU (${n} held)`,
        how: `user + system CPU of the operator over ${at.idleS} s idle, % of one core`,
        figure: at.cpuPercent,
        unit: '% of a core',
        against: { label: 'limit', value: IDLE_CPU_LIMIT_PERCENT },
        better: Better.Lower,
        target: Target.limit,
      },
      {
        what: `held at scale: apiserver requests per idle hold (${n} held)`,
        how: `apiserver_request_total from the apiserver's /metrics (${HOLD_RESOURCES.join(', ')}; every verb but WATCH) over ${at.idleS} s idle, divided by the holds`,
        figure: at.requestsPerHold,
        unit: 'requests',
        against: { label: 'limit', value: 0 },
        better: Better.Lower,
        target: Target.none,
        note: `besides, ${at.watchesRenewed} watches were renewed in the window (the informers', whatever the number of holds); every resource's requests below, all of the apiserver's`,
        ...(at.costs ? { costs: at.costs } : {}),
      },
    );
  }
  if (first && last && last.holds > first.holds) {
    const perHoldKiB = ((last.rssMiB - first.rssMiB) / (last.holds - first.holds)) * 1024;
    const mid = steps.find((s) => s.holds > first.holds && s.holds < last.holds);
    // Linear or better: the cost per hold of the last stretch is no more than the first's.
    const early = mid ? (mid.rssMiB - first.rssMiB) / (mid.holds - first.holds) : perHoldKiB / 1024;
    const late = mid ? (last.rssMiB - mid.rssMiB) / (last.holds - mid.holds) : perHoldKiB / 1024;
    const at100k = first.rssMiB + (perHoldKiB / 1024) * (100_000 - first.holds);
    rows.push(
      {
        what: `cost growth: memory per hold, ${mid ? `${mid.holds.toLocaleString('en-US')}→` : ''}${last.holds.toLocaleString('en-US')} beside ${first.holds.toLocaleString('en-US')}→${(mid ?? last).holds.toLocaleString('en-US')}`,
        how: `RSS growth per hold at ${steps.map((s) => s.holds.toLocaleString('en-US')).join(' / ')} held; at most linear means the later stretch costs no more per hold`,
        figure: late * 1024,
        unit: 'KiB/hold',
        against: { label: 'earlier stretch', value: early * 1024 },
        better: Better.Lower,
        target: Target.growth,
        note: `steps: ${steps.map((s) => `${s.holds.toLocaleString('en-US')} held: ${s.rssMiB.toFixed(0)} MiB, ${s.cpuPercent.toFixed(2)} % CPU idle`).join('; ')}`,
      },
      {
        what: 'cost growth: RSS projected at 100,000 held',
        how: `the smallest step's RSS plus ${perHoldKiB.toFixed(1)} KiB per hold (its growth from ${first.holds.toLocaleString('en-US')} to ${last.holds.toLocaleString('en-US')})`,
        figure: at100k,
        unit: 'MiB',
        against: { label: 'goal', value: GOAL_100K_MiB },
        better: Better.Lower,
        target: Target.limit,
      },
    );
  }
  return rows;
}
