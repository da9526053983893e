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

const formatters = new Map<string, Intl.DateTimeFormat>();
function localParts(epochMs: number, timeZone: string): { day: number; minute: number; second: number } {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  const parts = Object.fromEntries(f.formatToParts(new Date(epochMs)).map((p) => [p.type, p.value]));
  const day = DAYS.indexOf(String(parts['weekday']).toLowerCase().slice(0, 3) as (typeof DAYS)[number]);
  return { day, minute: Number(parts['hour']) * 60 + Number(parts['minute']), second: Number(parts['second']) };
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

function windowEndAt(now: number, windows: readonly PauseWindow[]): number | undefined {
  let latest: number | undefined;
  for (const w of windows) {
    const { day, minute, second } = localParts(now, w.timeZone);
    const start = toMinutes(w.start);
    const end = toMinutes(w.end);
    const crossesMidnight = start > end;
    const inside = crossesMidnight ? minute >= start || minute < end : minute >= start && minute < end;
    if (!inside) continue;
    if (w.days) {
      // The day the window started on: yesterday, when we are past midnight in a crossing window.
      const startDay = crossesMidnight && minute < end ? (day + 6) % 7 : day;
      if (!w.days.includes(DAYS[startDay] as (typeof DAYS)[number])) continue;
    }
    const minutesLeft = (end - minute + 1440) % 1440;
    const endAt = now + minutesLeft * 60_000 - second * 1000 - (now % 1000);
    if (latest === undefined || endAt > latest) latest = endAt;
  }
  return latest;
}
