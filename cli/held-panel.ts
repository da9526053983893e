// The held panel: what is waiting, as `waitgate held` prints it. Pure.
//
//   held · 4 waiting · 1 pending
//     ○ acme/web#7 · after 2026-09-01T09:00Z + jira · waited 2h14m
//     ○ acme/web#31 · jira · waited 41m
//     ○ acme/api#5 · ci · waited 8m
//     ↓ 2 more
//
// The section is hidden (no line at all) when nothing waits and nothing is pending. Pending
// holds (queued in a pause window, not held yet) are counted apart from the waiting ones and
// listed after them.
//
// Every cell comes from what waitgate itself wrote: the id-only target (checked against the
// target pattern), the operator's condition label, and the time since the first hold. Nothing
// else of a HeldJob (no annotation, no message, no name) reaches a row.
import { checkSpec, TARGET_PATTERN, type HeldJobObject } from '../api/heldjob-schema.js';
import { Phase } from '../api/vocabulary.js';
import { waitLabel } from '../api/wait-label.js';
import { formatDuration, oneLine } from './format.js';

/** Rows the panel shows before it says how many more there are. */
export const PANEL_ROWS = 3;

export interface HeldRow {
  readonly namespace: string;
  readonly name: string;
  /** The id-only target, or undefined when the HeldJob's target does not read as one. */
  readonly target: string | undefined;
  /** The conditions in one line (status.waitLabel, or the same label built from spec.waitFor). */
  readonly conditions: string;
  /** Held: waiting on its conditions. Pending: queued (a pause window) and not held yet. */
  readonly phase: typeof Phase.Held | typeof Phase.Pending;
  /** When the first hold began; undefined while Pending. */
  readonly heldSince: string | undefined;
  /** Whole seconds since heldSince (0 while Pending). */
  readonly waitedSeconds: number;
}

const TARGET = new RegExp(TARGET_PATTERN);

/**
 * The HeldJobs that are waiting (phase Held or Pending, or no status yet, and not being
 * deleted), longest-waiting first; queued ones after the held ones.
 */
export function heldRows(items: readonly HeldJobObject[], nowMs: number): HeldRow[] {
  const rows: HeldRow[] = [];
  for (const hj of items) {
    const phase = hj.status?.phase ?? Phase.Pending;
    if (phase !== Phase.Held && phase !== Phase.Pending) continue;
    if (hj.metadata.deletionTimestamp) continue; // being cancelled: no longer waiting
    const spec = (hj.spec ?? {}) as { target?: unknown };
    const target = typeof spec.target === 'string' && spec.target.length <= 256 && TARGET.test(spec.target) ? spec.target : undefined;
    const heldMs = phase === Phase.Held && hj.status?.heldSince ? Date.parse(hj.status.heldSince) : NaN;
    const heldSince = Number.isFinite(heldMs) ? new Date(heldMs).toISOString() : undefined;
    rows.push({
      namespace: hj.metadata.namespace,
      name: hj.metadata.name,
      target,
      conditions: conditionsOf(hj),
      phase,
      heldSince,
      waitedSeconds: heldSince === undefined ? 0 : Math.max(0, Math.floor((nowMs - heldMs) / 1000)),
    });
  }
  const since = (r: HeldRow) => (r.heldSince === undefined ? Infinity : Date.parse(r.heldSince));
  return rows.sort((a, b) => since(a) - since(b) || a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
}

function conditionsOf(hj: HeldJobObject): string {
  const label = hj.status?.waitLabel;
  if (typeof label === 'string' && label !== '') return oneLine(label);
  const spec = checkSpec(hj.spec);
  return spec.ok ? oneLine(waitLabel(spec.spec.waitFor ?? [])) : '-';
}

/** How many rows are held (waiting on their conditions) and how many pending (not held yet). */
export function panelCounts(rows: readonly HeldRow[]): { readonly waiting: number; readonly pending: number } {
  const waiting = rows.filter((r) => r.phase === Phase.Held).length;
  return { waiting, pending: rows.length - waiting };
}

/**
 * The panel's lines: nothing at all when no row is there (the section is hidden); otherwise
 * the counts, up to three rows (all with `all`), and how many more.
 */
export function renderPanel(rows: readonly HeldRow[], opts: { all?: boolean } = {}): string[] {
  if (rows.length === 0) return [];
  const { waiting, pending } = panelCounts(rows);
  const lines = [`held · ${waiting} waiting${pending > 0 ? ` · ${pending} pending` : ''}`];
  const shown = opts.all ? rows : rows.slice(0, PANEL_ROWS);
  for (const r of shown) lines.push(`  ${rowText(r)}`);
  if (shown.length < rows.length) lines.push(`  ↓ ${rows.length - shown.length} more`);
  return lines;
}

/** A row as data (`-o json`): every key always present, null where there is no value. */
export function rowData(r: HeldRow): Record<string, string | number | null> {
  return {
    namespace: r.namespace,
    name: r.name,
    target: r.target ?? null,
    conditions: r.conditions,
    phase: r.phase,
    heldSince: r.heldSince ?? null,
    waitedSeconds: r.waitedSeconds,
  };
}

export function rowText(r: HeldRow): string {
  const waited = r.phase === Phase.Held ? `waited ${formatDuration(r.waitedSeconds * 1000)}` : 'queued, not held yet';
  return `○ ${r.target ?? '(unreadable target)'} · ${r.conditions} · ${waited}`;
}
