// The benchmark of record's table: each row is a figure measured beside its limit or its peer
// in the same run, and the ratio between them is what is judged (these machines are noisy;
// a ratio taken in one run is not). Pure: rendering and judging only.
import { boundOf, costLines, type Costs } from './costs.js';

/** How a row's ratio is judged against its target. */
export const Better = {
  /** The figure must stay at or under the target ratio of its limit (memory, lateness). */
  Lower: 'lower',
  /** The figure must reach at least the target ratio of its peer (throughput). */
  Higher: 'higher',
} as const;
export type Better = (typeof Better)[keyof typeof Better];

/**
 * The ratio each row must reach (issue 23): a rate at least this share of its peer's, a time
 * or a lateness at most this multiple of its limit or its peer's.
 */
export const Target = {
  /** Every hold Held within 2.5 × the raw creates: the floor is two writes, the create and the Held status. */
  timeToHold: 2.5,
  /** Launches a second, ≥ 0.8 of a plain loop's Job create + status write. */
  herd: 0.8,
  /** From the instant until every hold says Launched=True: the same bar as the herd's, as a time (1 ÷ 0.8). */
  herdLaunched: 1.25,
  /** p99 lateness at or under its limit (50 ms for `after`, 100 ms bunched) and no later than a peer's. */
  lateness: 1,
  /** Holds checked a second, ≥ 0.8 of bare spawns of the same script. */
  checks: 0.8,
  /** HeldJobs made a second from deliveries, ≥ 0.8 of raw creates. */
  deliveries: 0.8,
  /** Slot acquire + release pairs a second, ≥ 1.0 of redis-semaphore's Semaphore. */
  slots: 1,
  /** Memory per hold of the later stretch at most 1.1 × the earlier's (growth at most linear). */
  growth: 1.1,
  /** Fixed limits: at or under (memory, idle CPU, restart times, GitHub's timeout). */
  limit: 1,
  /** A count that must be none (idle requests, repeated checks). */
  none: 0,
} as const;

export interface Row {
  readonly what: string;
  /** How it was measured, in a few words. */
  readonly how: string;
  readonly figure: number;
  readonly unit: string;
  /** The limit or the peer it is compared with, measured or fixed. */
  readonly against: { readonly label: string; readonly value: number };
  readonly better: Better;
  /** The ratio figure/against that meets the target (e.g. 1 for "≤ limit", 0.8 for "≥ 0.8 of peer"). */
  readonly target: number;
  /** Anything a reader needs beside the numbers (a second peer, percentiles). */
  readonly note?: string;
  /** What the figure's work cost: apiserver requests per unit by verb and resource, CPU per process. */
  readonly costs?: Costs;
  /** The same for the peer's work, where the peer used the same apiserver or the same server. */
  readonly peerCosts?: Costs;
}

export interface Judged extends Row {
  readonly ratio: number;
  readonly met: boolean;
  /** For a row that misses its target and has its costs: what bounds it, from the run's own counts. */
  readonly bound?: string;
}

export interface Run {
  readonly date: string;
  readonly commit: string;
  readonly machine: string;
  readonly durationS: number;
  readonly rows: readonly Judged[];
}

export function judge(row: Row): Judged {
  const ratio = row.against.value === 0 ? (row.figure === 0 ? 0 : Infinity) : row.figure / row.against.value;
  const met = row.better === Better.Lower ? ratio <= row.target : ratio >= row.target;
  const bound = !met && row.costs ? boundOf(row.costs, row.peerCosts, row.better === Better.Higher) : undefined;
  return { ...row, ratio, met, ...(bound ? { bound } : {}) };
}

/** A row's notes as Markdown lines: its own, then its costs and its peer's, and for a miss what bounds it; none when it has none. */
export function notesOf(r: Judged): string[] {
  const under = [
    ...(r.costs ? costLines(r.costs) : []),
    ...(r.peerCosts ? costLines(r.peerCosts).map((l) => `the peer: ${l}`) : []),
    ...(r.bound ? [`**bound**: ${r.bound}`] : []),
  ];
  if (!r.note && under.length === 0) return [];
  return [`- **${r.what}**${r.note ? `: ${r.note}` : ''}`, ...under.map((l) => `  - ${l}`)];
}

function num(n: number): string {
  if (!Number.isFinite(n)) return '∞';
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US');
  if (Math.abs(n) >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

function targetText(r: Judged): string {
  return r.better === Better.Lower ? `≤ ${num(r.target)}` : `≥ ${num(r.target)}`;
}

export function renderMarkdown(run: Run): string {
  const lines = [
    '<!-- Written by `make bench` (bench/record/main.ts); do not edit by hand. -->',
    '# Benchmarks of record',
    '',
    `Run on ${run.date} at commit \`${run.commit}\`, on ${run.machine}; the run took ${Math.round(run.durationS / 60)} min.`,
    'Each figure is measured beside its limit or its peer in the same run; the ratio is what is judged.',
    "Under the table, each row's costs: the apiserver's requests per unit of work by verb and resource, and CPU seconds by process; a missed row's bound is named from those counts.",
    'How to run and read it, and what the CPU profiles showed for each target missed: docs/benchmarking.md.',
    '',
    '| what | figure | limit or peer (same run) | ratio | target | met | how |',
    '|---|---|---|---|---|---|---|',
    ...run.rows.map(
      (r) =>
        `| ${r.what} | ${num(r.figure)} ${r.unit} | ${r.against.label}: ${num(r.against.value)} ${r.unit} | ${num(r.ratio)} | ${targetText(r)} | ${r.met ? 'yes' : '**no**'} | ${r.how} |`,
    ),
    '',
  ];
  const notes = run.rows.flatMap(notesOf);
  if (notes.length > 0) lines.push('## Notes', '', ...notes, '');
  return lines.join('\n');
}

export function renderJson(run: Run): string {
  return `${JSON.stringify(run, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2)}\n`;
}

/** The p-th percentile (0..100) of `values`, nearest rank; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}
