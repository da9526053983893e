// make bench: the benchmark of record. Runs on the local cluster (hack/with-cluster.sh) and
// writes docs/benchmarks.md and docs/benchmarks.json. docs/benchmarking.md says how to run
// and read it.
//   BENCH_HELDJOBS   holds at the record scale (10000)
//   BENCH_STEPS      the cost-growth steps (1000,3000,10000,30000)
//   BENCH_IDLE_S     the idle window at the record scale (300); other steps idle 60 s
//   BENCH_ONLY       sections to run (held,restart,herd,after,bunched,checks,deliveries,slots); all when unset
//   BENCH_CHECKS     exec checks due at once (2000)
//   BENCH_DELIVERIES signed deliveries (5000)
//   BENCH_OUT        where the two files go (docs)
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { env, kube } from '../common.js';
import { heldAtScaleRows } from './held-at-scale.js';
import { bullmqLateness, cronJobLateness } from './peers.js';
import { checkDispatchRows } from './check-dispatch.js';
import { deliveryRows } from './deliveries.js';
import { herdRows } from './herd.js';
import { enterSection } from './operator.js';
import { restartRows } from './restart.js';
import { judge, renderJson, renderMarkdown, Better, Target, type Row, type Run } from './report.js';
import { slotLeaseRows } from './slot-leases.js';
import { bunched, measureAfterLateness, spread, type Lateness } from './wake-precision.js';

const SECTIONS = ['held', 'restart', 'herd', 'after', 'bunched', 'checks', 'deliveries', 'slots'] as const;
type Section = (typeof SECTIONS)[number];

function numberEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name}: "${raw}" is not a positive whole number`);
  return n;
}

function sectionsToRun(): Set<Section> {
  const raw = process.env['BENCH_ONLY'];
  if (!raw) return new Set(SECTIONS);
  const picked = raw.split(',').map((s) => s.trim());
  const unknown = picked.filter((s) => !(SECTIONS as readonly string[]).includes(s));
  if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown section ${unknown.join(', ')}; known: ${SECTIONS.join(', ')}`);
  return new Set(picked as Section[]);
}

function latenessRow(what: string, how: string, l: Lateness, limitMs: number): Row {
  return {
    what,
    how,
    figure: l.p99,
    unit: 'ms (p99)',
    against: { label: 'target', value: limitMs },
    better: Better.Lower,
    target: Target.lateness,
    note: `p50 ${l.p50.toFixed(0)} ms, p99 ${l.p99.toFixed(0)} ms, max ${l.max.toFixed(0)} ms over ${l.seen} Jobs${l.missing ? `; ${l.missing} never appeared` : ''}${l.wakes ? `; the operator's own wakes (before any write): ${l.wakes}` : ''}`,
    ...(l.costs ? { costs: l.costs } : {}),
  };
}

/**
 * Waitgate's p99 lateness beside a peer's; met when it is no later than the peer. With
 * `costs`, the row carries the launches' costs too (so a miss names its bound).
 */
function peerRow(what: string, how: string, ours: Lateness, peer: Lateness, peerName: string, costs: boolean): Row {
  return {
    what,
    how,
    figure: ours.p99,
    unit: 'ms (p99)',
    against: { label: peerName, value: peer.p99 },
    better: Better.Lower,
    target: Target.lateness,
    note: `${peerName}: p50 ${peer.p50.toFixed(0)} ms, p99 ${peer.p99.toFixed(0)} ms, max ${peer.max.toFixed(0)} ms over ${peer.seen}${peer.missing ? `; ${peer.missing} never ran` : ''}`,
    ...(costs && ours.costs ? { costs: ours.costs } : {}),
  };
}

function machine(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`;
}

/** The commit the run's code was built from: read once, at the start (commits made while it runs are not its code). */
const COMMIT = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();

/** Writes the two files with the rows so far (after each section, so a failed run keeps them). */
function write(rows: readonly Row[], started: number): { run: Run; path: string } {
  const run: Run = {
    date: new Date().toISOString().slice(0, 10),
    commit: COMMIT,
    machine: machine(),
    durationS: (Date.now() - started) / 1000,
    rows: rows.map(judge),
  };
  const out = process.env['BENCH_OUT'] || 'docs';
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'benchmarks.md'), renderMarkdown(run));
  writeFileSync(join(out, 'benchmarks.json'), renderJson(run));
  return { run, path: join(out, 'benchmarks.md') };
}

async function main(): Promise<void> {
  const started = Date.now();
  const kubeconfig = env('KUBECONFIG');
  const valkeyUrl = env('VALKEY_URL');
  const count = numberEnv('BENCH_HELDJOBS', 10_000);
  const steps = (process.env['BENCH_STEPS'] || `1000,3000,${count},30000`)
    .split(',')
    .map((s) => Number(s))
    .sort((a, b) => a - b);
  const only = sectionsToRun();
  const { kc } = kube();
  const log = (line: string) => console.log(`bench: ${line}`);
  const rows: Row[] = [];

  if (only.has('held')) {
    enterSection('held');
    const r = await heldAtScaleRows({
      kc,
      kubeconfig,
      steps,
      recordCount: count,
      idleS: numberEnv('BENCH_IDLE_S', 300),
      stepIdleS: 60,
      log,
    });
    rows.push(...r.rows);
    write(rows, started);
  }
  if (only.has('restart')) {
    enterSection('restart');
    rows.push(...(await restartRows({ kc, count, checking: 100, log })));
    write(rows, started);
  }
  if (only.has('herd')) {
    enterSection('herd');
    rows.push(...(await herdRows({ kc, count, width: 32, log })));
    write(rows, started);
  }
  if (only.has('after')) {
    enterSection('after');
    const l = await measureAfterLateness(kc, 'after', 1000, spread(1000, 60_000));
    log(`after: p50 ${l.p50} ms, p99 ${l.p99} ms`);
    rows.push(
      latenessRow('`after` precision (1,000 over 60 s)', 'Job seen by a watcher minus its instant; instants milliseconds apart', l, 50),
    );
    const bull = await bullmqLateness(valkeyUrl, 1000, 60_000);
    log(`after, BullMQ: p50 ${bull.p50} ms, p99 ${bull.p99} ms`);
    rows.push(
      peerRow(
        '`after` precision beside BullMQ delayed jobs',
        'p99 lateness beside BullMQ: 1,000 delayed jobs over 60 s on the same redis-server, a worker of concurrency 50',
        l,
        bull,
        'BullMQ',
        true,
      ),
    );
    const cron = await cronJobLateness(kc, 100);
    log(`after, CronJobs: p50 ${cron.p50} ms, p99 ${cron.p99} ms`);
    rows.push(
      peerRow(
        '`after` precision beside CronJobs',
        'p99 lateness beside 100 CronJobs due at one minute, run by the local kube-controller-manager',
        l,
        cron,
        'CronJob',
        false,
      ),
    );
    write(rows, started);
  }
  if (only.has('bunched')) {
    enterSection('bunched');
    const l = await measureAfterLateness(kc, 'bunched', 1000, bunched(1000, 10));
    log(`bunched: p50 ${l.p50} ms, p99 ${l.p99} ms`);
    rows.push(latenessRow('bunched wakes (1,000, ten to a second)', 'Job seen by a watcher minus its instant', l, 100));
    write(rows, started);
  }
  if (only.has('checks')) {
    enterSection('checks');
    rows.push(...(await checkDispatchRows({ kc, count: numberEnv('BENCH_CHECKS', 2000), width: 16, log })));
    write(rows, started);
  }
  if (only.has('deliveries')) {
    enterSection('deliveries');
    rows.push(...(await deliveryRows({ kc, count: numberEnv('BENCH_DELIVERIES', 5000), log })));
    write(rows, started);
  }
  if (only.has('slots')) rows.push(...(await slotLeaseRows(valkeyUrl, 20_000, 16, log)));

  const written = write(rows, started);
  console.log(renderMarkdown(written.run));
  log(`wrote ${written.path} and benchmarks.json in ${Math.round(written.run.durationS / 60)} min`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
