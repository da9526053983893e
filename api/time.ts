// Instants as the status writes them (RFC 3339 in UTC) and reads them back.

export const iso = (ms: number): string => new Date(ms).toISOString();

/** Epoch milliseconds of a status or metadata time; undefined when absent or unreadable. */
export function epochOf(t: string | Date | undefined): number | undefined {
  if (t === undefined) return undefined;
  const ms = t instanceof Date ? t.getTime() : Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}
