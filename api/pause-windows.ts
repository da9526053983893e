// Pause windows (quiet hours): daily spans of local time, in an IANA zone, during which
// nothing starts and no check runs. Pure: the instant comes in.
import { z } from 'zod';

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM, 00:00 to 23:59');
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

export const pauseWindowSchema = z
  .object({
    start: hhmm,
    end: hhmm,
    timeZone: z.string().refine((tz) => {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    }, 'must be an IANA time zone such as Europe/Berlin'),
    /** Days on which the window starts; every day when absent. */
    days: z.array(z.enum(DAYS)).min(1).optional(),
  })
  .strict()
  .refine((w) => w.start !== w.end, 'start and end must differ');
export type PauseWindow = z.infer<typeof pauseWindowSchema>;
export const pauseWindowsSchema = z.array(pauseWindowSchema);

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** A date on the calendar, with no time and no zone. */
interface CivilDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** What the wall clock in `timeZone` reads at `epochMs`, to the second, as if it were UTC. */
function wallClockAt(epochMs: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const p of formatterOf(timeZone).formatToParts(new Date(epochMs))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  const n = (type: string) => parts[type] ?? 0;
  return Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
}

/** The zone's offset from UTC at `epochMs` (wall clock minus UTC), in milliseconds. */
function offsetAt(epochMs: number, timeZone: string): number {
  return wallClockAt(epochMs, timeZone) - Math.floor(epochMs / 1000) * 1000;
}

function civilDateOf(wallMs: number): CivilDate {
  const d = new Date(wallMs);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

const addDays = (date: CivilDate, days: number): CivilDate => civilDateOf(Date.UTC(date.year, date.month - 1, date.day + days));
const weekdayOf = (date: CivilDate): (typeof DAYS)[number] => DAYS[new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay()]!;

const instants = new Map<string, number>();
const INSTANTS_KEPT = 4096;

/**
 * The instant at which the wall clock in `timeZone` reads `minuteOfDay` (minutes after
 * midnight) on `date`. When it reads that twice (the hour repeated when clocks go back), the
 * first time; when it never does (the hour skipped when clocks go forward), the first instant
 * after the gap. Remembered, since every pass over a waiting HeldJob asks the same few.
 */
function instantOf(date: CivilDate, minuteOfDay: number, timeZone: string): number {
  const key = `${timeZone} ${date.year}-${date.month}-${date.day} ${minuteOfDay}`;
  const known = instants.get(key);
  if (known !== undefined) return known;
  const wall = Date.UTC(date.year, date.month - 1, date.day) + minuteOfDay * MINUTE_MS;
  // Every offset in force within a day either side: the one before and the one after a change.
  const before = offsetAt(wall - DAY_MS, timeZone);
  const after = offsetAt(wall + DAY_MS, timeZone);
  const readsWall = [...new Set([before, offsetAt(wall, timeZone), after])]
    .map((offset) => wall - offset)
    .filter((t) => wallClockAt(t, timeZone) === wall);
  let at: number;
  if (readsWall.length > 0) at = Math.min(...readsWall);
  else if (after > before) at = endOfGap(wall - after, wall - before, after, timeZone);
  else at = wall - before; // Not a gap either: a zone this cannot place; keep to the earlier offset.
  if (instants.size >= INSTANTS_KEPT) instants.clear();
  instants.set(key, at);
  return at;
}

/** The first instant, to the second, in (lo, hi] at which `after` is the offset in force. */
function endOfGap(lo: number, hi: number, after: number, timeZone: string): number {
  let loS = Math.floor(lo / 1000);
  let hiS = Math.ceil(hi / 1000);
  while (hiS - loS > 1) {
    const mid = Math.floor((loS + hiS) / 2);
    if (offsetAt(mid * 1000, timeZone) === after) hiS = mid;
    else loS = mid;
  }
  return hiS * 1000;
}

const toMinutes = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));

/** If `now` falls in a window, when that window (or the run of overlapping ones) ends. */
export function pausedUntil(now: number, windows: readonly PauseWindow[]): number | undefined {
  let until: number | undefined;
  let t = now;
  // Follow overlapping or back-to-back windows to the end of the whole pause (bounded).
  for (let hop = 0; hop < 8; hop++) {
    const end = windowEndAt(t, windows);
    if (end === undefined || (until !== undefined && end <= until)) break;
    until = end;
    t = end;
  }
  return until;
}

/**
 * The latest end of the windows `now` falls in. A window is the span from the instant its
 * start reads on the wall clock of a day it starts on, to the instant its end reads (on the
 * next day, when it crosses midnight): each edge found on its own, so a change of offset in
 * between moves neither.
 */
function windowEndAt(now: number, windows: readonly PauseWindow[]): number | undefined {
  let latest: number | undefined;
  for (const w of windows) {
    const start = toMinutes(w.start);
    const end = toMinutes(w.end);
    const crossesMidnight = start > end;
    const today = civilDateOf(wallClockAt(now, w.timeZone));
    // The window that started yesterday may still be on; so, where clocks go back across
    // midnight, may tomorrow's.
    for (const startDate of [addDays(today, -1), today, addDays(today, 1)]) {
      if (w.days && !w.days.includes(weekdayOf(startDate))) continue;
      const startAt = instantOf(startDate, start, w.timeZone);
      const endAt = instantOf(crossesMidnight ? addDays(startDate, 1) : startDate, end, w.timeZone);
      if (startAt <= now && now < endAt && (latest === undefined || endAt > latest)) latest = endAt;
    }
  }
  return latest;
}
