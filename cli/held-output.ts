// `waitgate held -o wide|name|yaml`: the waiting rows in the forms kubectl users reach for.
// Pure. `-o json` stays rowData as JSON (held.ts); yaml is the same rows as YAML, so a script
// can read either; wide is a table; name is `heldjob.waitgate.dev/NAME`, one a line, what
// `kubectl` and `waitgate cancel` take.
import { stringify } from 'yaml';
import { API_GROUP, assertNever, HELDJOB_SINGULAR } from '../api/vocabulary.js';
import { formatDuration, oneLine } from './format.js';
import { rowData, type HeldRow } from './held-panel.js';

/** The -o formats held prints beyond text (the panel) and json. */
export const HeldOutput = { Wide: 'wide', Name: 'name', Yaml: 'yaml' } as const;
export type HeldOutput = (typeof HeldOutput)[keyof typeof HeldOutput];
export const HELD_OUTPUTS: readonly string[] = Object.values(HeldOutput);

/** `heldjob.waitgate.dev/NAME`. */
export function resourceName(name: string): string {
  return `${HELDJOB_SINGULAR}.${API_GROUP}/${name}`;
}

/** When the operator looks next: `in 4m`, `due` once passed, `-` without one. */
export function nextCheckText(nextCheckAt: string | undefined, nowMs: number): string {
  const at = nextCheckAt === undefined ? NaN : Date.parse(nextCheckAt);
  if (!Number.isFinite(at)) return '-';
  return at <= nowMs ? 'due' : `in ${formatDuration(at - nowMs)}`;
}

const WIDE_HEADER = ['NAMESPACE', 'NAME', 'TARGET', 'STATE', 'WAITED', 'NEXT CHECK'] as const;

/** The wide table: a header, then one aligned line a row (the last column unpadded). */
export function wideLines(rows: readonly HeldRow[], nowMs: number): string[] {
  const cells = rows.map((r) => [
    oneLine(r.namespace, 63),
    oneLine(r.name, 253),
    r.target ?? '-',
    r.state,
    r.heldSince === undefined ? '-' : formatDuration(r.waitedSeconds * 1000),
    nextCheckText(r.nextCheckAt, nowMs),
  ]);
  const table = [[...WIDE_HEADER], ...cells];
  const widths = WIDE_HEADER.map((_, i) => Math.max(...table.map((line) => (line[i] as string).length)));
  return table.map((line) => line.map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i] as number))).join('   '));
}

/** The lines `held -o FORMAT` prints for one of HeldOutput. */
export function heldOutputLines(format: HeldOutput, rows: readonly HeldRow[], nowMs: number): string[] {
  switch (format) {
    case HeldOutput.Wide:
      return wideLines(rows, nowMs);
    case HeldOutput.Name:
      return rows.map((r) => resourceName(r.name));
    case HeldOutput.Yaml:
      return [stringify(rows.map(rowData)).trimEnd()];
    default:
      return assertNever(format);
  }
}
