// The benchmark of record's table: each row is a figure measured beside its limit or its peer
// in the same run, and the ratio between them is what is judged (these machines are noisy;
// a ratio taken in one run is not). Pure: rendering and judging only.

/** How a row's ratio is judged against its target. */
export const Better = {
  /** The figure must stay at or under the target ratio of its limit (memory, lateness). */
  Lower: 'lower',
  /** The figure must reach at least the target ratio of its peer (throughput). */
  Higher: 'higher',
} as const;
export type Better = (typeof Better)[keyof typeof Better];

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
  /** Anything a reader needs beside the numbers (what bounds a miss, a second peer). */
  readonly note?: string;
}

export interface Judged extends Row {
  readonly ratio: number;
  readonly met: boolean;
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
  return { ...row, ratio, met };
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
  const notes = run.rows.filter((r) => r.note);
  if (notes.length > 0) {
    lines.push('## Notes', '', ...notes.map((r) => `- **${r.what}**: ${r.note}`), '');
  }
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
