// The held panel: what is waiting, as `waitgate held` prints it. Pure.
//
//   held · 3 waiting · 1 queued for a scope slot · 1 pending
//     ○ acme/web#7 · after 2026-09-01T09:00Z + jira · waited 2h14m
//     ○ acme/web#31 · jira · cleared, queued for a scope slot · waited 41m
//     ○ acme/api#5 · ci · waited 8m
//     ↓ 2 more
//
// The section is hidden (no line at all) when nothing waits and nothing is pending. Three
// kinds are counted apart: holds whose conditions are being watched (waiting), holds whose
// conditions have all cleared and that wait for a place in their scope (the Waiting
// condition's reason ScopeQueued), and pending ones (queued in a pause window, not held yet),
// which are listed after the others.
//
// Every cell comes from what waitgate itself wrote: the id-only target (checked against the
// target pattern), the operator's condition label, and the time since the first hold. Nothing
// else of a HeldJob (no annotation, no message, no name) reaches a row.
import { checkSpec, TARGET_PATTERN, type HeldJobObject } from '../api/heldjob-schema.js';
import { findCondition } from '../api/conditions.js';
import { assertNever, ConditionReason, ConditionType, Phase } from '../api/vocabulary.js';
import { waitLabel } from '../api/wait-label.js';
import { formatDuration, oneLine } from './format.js';

/** Rows the panel shows before it says how many more there are. */
export const PANEL_ROWS = 3;

/** What a row is waiting on. */
export const RowState = {
  /** Phase Held: its conditions are being watched. */
  Watching: 'watching',
  /** Phase Held, every condition cleared: it waits for a place in its scope (Waiting reason ScopeQueued). */
  ScopeQueued: 'scope-queued',
  /** Phase Pending, or no status yet: queued in a pause window, its hold not begun. */
  Pending: 'pending',
} as const;
export type RowState = (typeof RowState)[keyof typeof RowState];

export interface HeldRow {
  readonly namespace: string;
  readonly name: string;
  /** The HeldJob's uid: a cancel deletes exactly this one. */
  readonly uid: string;
  /** The id-only target, or undefined when the HeldJob's target does not read as one. */
  readonly target: string | undefined;
  /** The conditions in one line (status.waitLabel, or the same label built from spec.waitFor). */
  readonly conditions: string;
  /** Held: its hold has begun. Pending: queued (a pause window) and not held yet. */
  readonly phase: typeof Phase.Held | typeof Phase.Pending;
  /** What it waits on: its conditions, a scope slot, or the start of its hold. */
  readonly state: RowState;
  /** When the first hold began; undefined while Pending. */
  readonly heldSince: string | undefined;
  /** Whole seconds since heldSince (0 while Pending). */
  readonly waitedSeconds: number;
  /** status.releaseAt: when its after releases it. */
  readonly releaseAt?: string | undefined;
  /** status.givesUpAt: the latest it gives up if nothing clears it. */
  readonly givesUpAt?: string | undefined;
  /** status.nextCheckAt: when the operator looks at it next. */
  readonly nextCheckAt?: string | undefined;
  /** Whole seconds from now to releaseAt and to givesUpAt (0 once passed); undefined without one. */
  readonly releasesInSeconds?: number | undefined;
  readonly givesUpInSeconds?: number | undefined;
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
      uid: hj.metadata.uid,
      target,
      conditions: conditionsOf(hj),
      phase,
      state: stateOf(hj, phase),
      heldSince,
      waitedSeconds: heldSince === undefined ? 0 : Math.max(0, Math.floor((nowMs - heldMs) / 1000)),
      ...horizonOf(hj, nowMs),
    });
  }
  const since = (r: HeldRow) => (r.heldSince === undefined ? Infinity : Date.parse(r.heldSince));
  return rows.sort((a, b) => since(a) - since(b) || a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
}

/** An instant of the status, re-written as ISO (a garbled one reads as none), and the seconds to it. */
function instantOf(value: unknown, nowMs: number): { at: string | undefined; inSeconds: number | undefined } {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) return { at: undefined, inSeconds: undefined };
  return { at: new Date(ms).toISOString(), inSeconds: Math.max(0, Math.ceil((ms - nowMs) / 1000)) };
}

function horizonOf(
  hj: HeldJobObject,
  nowMs: number,
): Pick<HeldRow, 'releaseAt' | 'givesUpAt' | 'nextCheckAt' | 'releasesInSeconds' | 'givesUpInSeconds'> {
  const release = instantOf(hj.status?.releaseAt, nowMs);
  const givesUp = instantOf(hj.status?.givesUpAt, nowMs);
  return {
    releaseAt: release.at,
    givesUpAt: givesUp.at,
    nextCheckAt: instantOf(hj.status?.nextCheckAt, nowMs).at,
    releasesInSeconds: release.inSeconds,
    givesUpInSeconds: givesUp.inSeconds,
  };
}

function stateOf(hj: HeldJobObject, phase: HeldRow['phase']): RowState {
  if (phase === Phase.Pending) return RowState.Pending;
  const waiting = findCondition(hj.status?.conditions, ConditionType.Waiting);
  return waiting?.status === 'True' && waiting.reason === ConditionReason.ScopeQueued ? RowState.ScopeQueued : RowState.Watching;
}

function conditionsOf(hj: HeldJobObject): string {
  const label = hj.status?.waitLabel;
  if (typeof label === 'string' && label !== '') return oneLine(label);
  const spec = checkSpec(hj.spec);
  return spec.ok ? oneLine(waitLabel(spec.spec.waitFor ?? [])) : '-';
}

export interface PanelCounts {
  /** Held, its conditions being watched. */
  readonly waiting: number;
  /** Held, its conditions cleared, waiting for a scope slot. */
  readonly scopeQueued: number;
  /** Not held yet. */
  readonly pending: number;
}

/** How many rows wait on their conditions, how many on a scope slot, and how many are not held yet. */
export function panelCounts(rows: readonly HeldRow[]): PanelCounts {
  const count = (state: RowState) => rows.filter((r) => r.state === state).length;
  return { waiting: count(RowState.Watching), scopeQueued: count(RowState.ScopeQueued), pending: count(RowState.Pending) };
}

/** The section's first line: `held · 3 waiting · 1 queued for a scope slot · 1 pending`; the counts that are 0 left out but waiting's. */
export function panelHeader(rows: readonly HeldRow[]): string {
  const { waiting, scopeQueued, pending } = panelCounts(rows);
  return [
    `held · ${waiting} waiting`,
    ...(scopeQueued > 0 ? [`${scopeQueued} queued for a scope slot`] : []),
    ...(pending > 0 ? [`${pending} pending`] : []),
  ].join(' · ');
}

/**
 * The panel's lines: nothing at all when no row is there (the section is hidden); otherwise
 * the counts, up to three rows (all with `all`), and how many more. `keys` is added to the
 * first line (the live panel's `h view`).
 */
export function renderPanel(rows: readonly HeldRow[], opts: { all?: boolean; keys?: string } = {}): string[] {
  if (rows.length === 0) return [];
  const lines = [`${panelHeader(rows)}${opts.keys ? ` · ${opts.keys}` : ''}`];
  const shown = opts.all ? rows : rows.slice(0, PANEL_ROWS);
  // The panel is the three rows as the reference draws them; the whole list also says when.
  for (const r of shown) lines.push(`  ${rowText(r, { when: opts.all === true })}`);
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
    state: r.state,
    heldSince: r.heldSince ?? null,
    waitedSeconds: r.waitedSeconds,
    releaseAt: r.releaseAt ?? null,
    givesUpAt: r.givesUpAt ?? null,
    nextCheckAt: r.nextCheckAt ?? null,
  };
}

/** A row as a line; `when` adds when it releases and when it gives up at the latest. */
export function rowText(r: HeldRow, opts: { when?: boolean } = {}): string {
  const line = `○ ${r.target ?? '(unreadable target)'} · ${r.conditions} · ${rowTail(r)}`;
  return opts.when ? `${line}${whenText(r)}` : line;
}

/** ` · releases in 40m · gives up in 19h 43m`, the parts that are known. */
export function whenText(r: HeldRow): string {
  const parts: string[] = [];
  if (r.releasesInSeconds !== undefined) parts.push(`releases in ${formatDuration(r.releasesInSeconds * 1000)}`);
  if (r.givesUpInSeconds !== undefined) parts.push(`gives up in ${formatDuration(r.givesUpInSeconds * 1000)}`);
  return parts.map((p) => ` · ${p}`).join('');
}

function rowTail(r: HeldRow): string {
  const waited = `waited ${formatDuration(r.waitedSeconds * 1000)}`;
  switch (r.state) {
    case RowState.Watching:
      return waited;
    case RowState.ScopeQueued:
      return `cleared, queued for a scope slot · ${waited}`;
    case RowState.Pending:
      return 'queued, not held yet';
    default:
      return assertNever(r.state);
  }
}
