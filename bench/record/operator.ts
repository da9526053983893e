// The operator as the chart runs it: its NODE_OPTIONS come from the chart's values and its
// allocator setting from the image, so the memory figures are those of an install.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { freePort, imageEnv, kube, startOperator } from '../common.js';
import { until } from './measure.js';

interface ChartOperatorValues {
  readonly nodeOptions?: string;
  readonly reconcileWorkers?: number;
  readonly resources?: { readonly limits?: { readonly memory?: string } };
}

function chartOperatorValues(): ChartOperatorValues {
  const values = parse(readFileSync('charts/waitgate/values.yaml', 'utf8')) as { operator?: ChartOperatorValues };
  return values.operator ?? {};
}

/** The chart's memory limit for the operator, MiB. */
export function chartMemoryLimitMiB(): number {
  const limit = chartOperatorValues().resources?.limits?.memory ?? '';
  const m = /^(\d+)(Mi|Gi)$/.exec(limit);
  if (!m) throw new Error(`charts/waitgate/values.yaml: operator.resources.limits.memory "${limit}" is not in Mi or Gi`);
  return Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1);
}

let currentSection = '';
/** The section of the benchmark now running: where its operators' CPU profiles go. */
export function enterSection(name: string): void {
  currentSection = name;
}

/**
 * BENCH_CPU_PROF=<dir>: each operator (and the deliveries' receiver) writes a V8 CPU profile
 * into <dir>/<section>[/<who>] when it stops (`node dist/bench/record/profile-summary.js <file>`
 * sums it up); BENCH_CPU_PROF_SECTIONS limits it to some sections (the memory rows are better
 * read without the profiler's samples). The NODE_OPTIONS flags for that, or '' when off.
 */
export function cpuProfileFlags(who?: string): string {
  const profileDir = process.env['BENCH_CPU_PROF'];
  const profiledSections = (process.env['BENCH_CPU_PROF_SECTIONS'] || '').split(',').filter(Boolean);
  const profiled = profileDir && (profiledSections.length === 0 || profiledSections.includes(currentSection));
  if (!profiled) return '';
  return `--cpu-prof --cpu-prof-dir=${join(profileDir, currentSection || 'bench', ...(who ? [who] : []))}`;
}

/** Operators still running, stopped if the benchmark itself is stopped or fails. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

export interface RunningOperator {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly metricsPort: number;
  readonly logPath: string;
  stop(): Promise<void>;
}

/**
 * The triggers file an install keeps beside its holds, naming the benchmark's trigger: without
 * it every hold would carry a "cannot compare with its trigger" Warning, as a hand-written
 * HeldJob naming no trigger of the file does, which is not what the receiver's holds cost.
 */
async function ensureBenchTriggers(namespace: string): Promise<void> {
  const { core } = kube();
  const triggers = [
    {
      name: 'bench',
      on: { type: 'label', any: ['bench:go'] },
      run: {
        kind: 'github',
        flow: 'bench',
        job: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
      },
    },
  ];
  await core
    .createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'waitgate-triggers' }, data: { 'triggers.json': JSON.stringify(triggers) } },
    })
    .catch((err: unknown) => {
      if ((err as { code?: number }).code !== 409) throw err;
    });
}

export async function startChartOperator(
  namespace: string,
  extraEnv: Record<string, string> = {},
  wrap?: (command: string[]) => string[],
): Promise<RunningOperator> {
  await ensureBenchTriggers(namespace);
  const logPath = join(mkdtempSync(join(tmpdir(), 'waitgate-bench-')), 'operator.log');
  const { nodeOptions, reconcileWorkers } = chartOperatorValues();
  const nodeOptionsAll = [nodeOptions, cpuProfileFlags()].filter(Boolean).join(' ');
  const metricsPort = await freePort();
  const child = startOperator(
    {
      ...imageEnv(),
      ...(nodeOptionsAll ? { NODE_OPTIONS: nodeOptionsAll } : {}),
      WAITGATE_WATCH_NAMESPACE: namespace,
      WAITGATE_NAMESPACE: namespace,
      WAITGATE_VALKEY_PREFIX: `bench-${namespace}`,
      ...(reconcileWorkers ? { WAITGATE_RECONCILE_WORKERS: String(reconcileWorkers) } : {}),
      // BENCH_LOG_LEVEL=info to see what the operator did (its log path is printed on a failure).
      WAITGATE_LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] || 'warn',
      WAITGATE_METRICS_PORT: String(metricsPort),
      // Launches are bounded by the scope limits; the benchmark's holds share none.
      WAITGATE_CONCURRENCY: '10000',
      WAITGATE_SCOPE_LIMIT: '10000',
      ...extraEnv,
    },
    logPath,
    wrap,
  );
  let exited = false;
  live.add(child);
  child.once('exit', () => {
    exited = true;
    live.delete(child);
  });
  const started = await until(
    async () => {
      if (exited) throw new Error(`the operator exited at start; see ${logPath}`);
      return fetch(`http://127.0.0.1:${String(metricsPort)}/metrics`).then(
        (r) => r.ok,
        () => false,
      );
    },
    Date.now() + 60_000,
    200,
  );
  if (!started) throw new Error(`the operator did not start within 60 s; see ${logPath}`);
  return {
    child,
    pid: child.pid as number,
    metricsPort,
    logPath,
    stop: async () => {
      if (exited) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await gone;
    },
  };
}
