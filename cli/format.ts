// Small formatting helpers shared by the commands. Pure.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * An honest, compact duration: whole units, always rounded down, never more than two units.
 * `45s`, `8m`, `2h14m`, `3h`, `1d6h`. Under a minute it shows seconds; from a minute on,
 * seconds are dropped (a waited time is read in minutes). Negative or not finite reads 0s.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < MINUTE) return `${Math.max(0, Math.floor(Number.isFinite(ms) ? ms / SECOND : 0))}s`;
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)}m`;
  if (ms < DAY) return pair(Math.floor(ms / HOUR), 'h', Math.floor((ms % HOUR) / MINUTE), 'm');
  return pair(Math.floor(ms / DAY), 'd', Math.floor((ms % DAY) / HOUR), 'h');
}

/** Like formatDuration, but keeps the seconds under an hour (`4m46s`) and shows milliseconds under a second. */
export function formatSpan(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '0s';
  if (ms < SECOND) return `${Math.round(ms)}ms`;
  if (ms < MINUTE) return `${trimZero((Math.floor(ms / 100) / 10).toFixed(1))}s`;
  if (ms < HOUR) return pair(Math.floor(ms / MINUTE), 'm', Math.floor((ms % MINUTE) / SECOND), 's');
  return formatDuration(ms);
}

function pair(a: number, ua: string, b: number, ub: string): string {
  return b === 0 ? `${a}${ua}` : `${a}${ua}${b}${ub}`;
}

function trimZero(s: string): string {
  return s.endsWith('.0') ? s.slice(0, -2) : s;
}

const DURATION = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+)ms)?$/;

/** `30s`, `1m30s`, `500ms`, `2m`, `1h`, or a bare number of seconds. Undefined when it does not read. */
export function parseDuration(text: string): number | undefined {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * SECOND);
  const m = DURATION.exec(t);
  if (!m || t === '') return undefined;
  const [, h, mi, s, ms] = m;
  return Math.round(Number(h ?? 0) * HOUR + Number(mi ?? 0) * MINUTE + Number(s ?? 0) * SECOND + Number(ms ?? 0));
}

/**
 * Text from a cluster object made safe for one line of a terminal: control characters
 * (escape sequences, newlines) become '?', and it is cut at `max` characters.
 */
export function oneLine(text: string, max = 200): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '?');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** `1 profile`, `2 profiles`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
