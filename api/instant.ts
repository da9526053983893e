// Parsing of `after` instants: ISO 8601 with a zone of its own, nothing rolled forward.

export type InstantResult =
  | { readonly ok: true; readonly epochMs: number }
  | { readonly ok: false; readonly problem: 'zoneless' | 'invalid'; readonly detail: string };

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?$/;

/** The pattern the CRD enforces at admission: a date-time that ends in its own zone. */
export const INSTANT_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})$';

/** Date.UTC, without its habit of reading years 0-99 as 1900-1999. */
function utc(year: number, monthIndex: number, day: number, h = 0, m = 0, s = 0, ms = 0): number {
  const d = new Date(Date.UTC(2000, monthIndex, day, h, m, s, ms));
  d.setUTCFullYear(year, monthIndex, day);
  return d.getTime();
}

function daysInMonth(year: number, month: number): number {
  return new Date(utc(year, month, 0)).getUTCDate();
}

export function parseInstant(text: string): InstantResult {
  const m = INSTANT.exec(text);
  if (!m) {
    return { ok: false, problem: 'invalid', detail: `"${text}" is not an ISO 8601 instant (YYYY-MM-DDTHH:MM[:SS[.fff]] with Z or ±HH:MM)` };
  }
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = s === undefined ? 0 : Number(s);
  if (month < 1 || month > 12) return { ok: false, problem: 'invalid', detail: `month ${mo} does not exist` };
  if (day < 1 || day > daysInMonth(year, month)) {
    return { ok: false, problem: 'invalid', detail: `${y}-${mo}-${d} is not a date` };
  }
  if (hour > 23 || minute > 59 || second > 59) {
    return { ok: false, problem: 'invalid', detail: `${h}:${mi}${s === undefined ? '' : `:${s}`} is not a time of day` };
  }
  if (zone === undefined) {
    return { ok: false, problem: 'zoneless', detail: `"${text}" has no zone: add Z or an offset such as +02:00` };
  }
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const oh = Number(zone.slice(1, 3));
    const om = Number(zone.slice(4, 6));
    if (oh > 23 || om > 59) return { ok: false, problem: 'invalid', detail: `offset ${zone} is out of range` };
    offsetMinutes = sign * (oh * 60 + om);
  }
  const ms = frac === undefined ? 0 : Math.floor(Number(`0.${frac}`) * 1000);
  const epochMs = utc(year, month - 1, day, hour, minute, second, ms) - offsetMinutes * 60_000;
  return { ok: true, epochMs };
}
