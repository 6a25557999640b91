import { addDays, calendarDate, offsetMinutes } from "./calendar.js";

// The due days of a payout schedule: each due day at 06:00 Brasília time. Days are Brasília's
// calendar days (America/Sao_Paulo); weekDay is ISO 8601's 1 = Monday .. 7 = Sunday; monthDay
// stops at 28 so that every month has the day. Shared by feira's own scheduled payouts and the
// simulator's transfers in provider settlement, so both keep one calendar. Pure: no I/O.
export const PAYOUT_ZONE = "America/Sao_Paulo";
const DUE_HOUR = 6;
const MINUTE = 60_000;

/** What of a schedule decides its days. */
export interface DueDays {
  interval: "daily" | "weekly" | "monthly";
  weekDay: number | null;
  monthDay: number | null;
}

/** ISO weekday (1 = Monday .. 7 = Sunday) of a YYYY-MM-DD. */
function isoWeekDay(date: string): number {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay();
  return day === 0 ? 7 : day;
}

export function isDueDay(s: DueDays, date: string): boolean {
  if (s.interval === "daily") return true;
  if (s.interval === "weekly") return isoWeekDay(date) === s.weekDay;
  return Number(date.slice(8, 10)) === s.monthDay;
}

/** 06:00 of `date` on Brasília's wall clock, as an instant. */
export function dueInstant(date: string): Date {
  const [y, mo, d] = date.split("-").map(Number) as [number, number, number];
  const wall = Date.UTC(y, mo - 1, d, DUE_HOUR);
  return new Date(wall - offsetMinutes(new Date(wall), PAYOUT_ZONE) * MINUTE);
}

/** The first due 06:00 strictly after `after` (a monthly one is at most 31 days away). */
export function nextDueAt(s: DueDays, after: Date): Date {
  let date = calendarDate(after, PAYOUT_ZONE);
  for (let i = 0; i < 64; i++, date = addDays(date, 1)) {
    if (isDueDay(s, date) && dueInstant(date) > after) return dueInstant(date);
  }
  throw new Error(`no due day within 64 days of ${after.toISOString()}`);
}

/**
 * The latest due day whose 06:00 is at or before `now`: the day a run pays for. Days missed
 * while no worker ran are not paid one by one: the one run pays the whole balance under the
 * latest day's id, which is the same money.
 */
export function latestDueDay(s: DueDays, now: Date): string {
  let date = calendarDate(now, PAYOUT_ZONE);
  for (let i = 0; i < 64; i++, date = addDays(date, -1)) {
    if (isDueDay(s, date) && dueInstant(date) <= now) return date;
  }
  throw new Error(`no due day within 64 days before ${now.toISOString()}`);
}
