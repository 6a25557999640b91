import { addDays, calendarDate, offsetMinutes } from "../../lib/calendar.js";
import { invalid } from "../../core/errors.js";

// A submerchant's payout schedule: on each due day at 06:00 Brasília
// time feira requests the payout of the whole available balance, if it reaches the minimum.
// Days are Brasília's calendar days (America/Sao_Paulo); weekDay is ISO 8601's 1 = Monday ..
// 7 = Sunday; monthDay stops at 28 so that every month has the day. Pure: no I/O.
export const PAYOUT_ZONE = "America/Sao_Paulo";
const DUE_HOUR = 6;
const MINUTE = 60_000;

export type PayoutInterval = "manual" | "daily" | "weekly" | "monthly";

/** As stored (null for manual) and shown (manual spelled out). */
export interface PayoutSchedule {
  interval: Exclude<PayoutInterval, "manual">;
  weekDay: number | null;
  monthDay: number | null;
  minimumAmount: number;
}

export interface PayoutScheduleInput {
  interval: PayoutInterval;
  weekDay?: number;
  monthDay?: number;
  minimumAmount?: number;
}

/**
 * The body's rules across fields (the schema checks each field alone): weekDay belongs to a
 * weekly schedule and is required there, monthDay to a monthly one. Null means manual.
 */
export function parseSchedule(input: PayoutScheduleInput): PayoutSchedule | null {
  const { interval, weekDay, monthDay } = input;
  if (interval === "weekly" && weekDay === undefined) throw invalid("payoutSchedule.weekDay is required when interval is weekly (1 = Monday .. 7 = Sunday)");
  if (interval !== "weekly" && weekDay !== undefined) throw invalid(`payoutSchedule.weekDay applies only to a weekly schedule, not ${interval}`);
  if (interval === "monthly" && monthDay === undefined) throw invalid("payoutSchedule.monthDay is required when interval is monthly (1 to 28)");
  if (interval !== "monthly" && monthDay !== undefined) throw invalid(`payoutSchedule.monthDay applies only to a monthly schedule, not ${interval}`);
  if (interval === "manual") {
    if (input.minimumAmount !== undefined) throw invalid("payoutSchedule.minimumAmount applies only to an automatic schedule, not manual");
    return null;
  }
  return { interval, weekDay: weekDay ?? null, monthDay: monthDay ?? null, minimumAmount: input.minimumAmount ?? 0 };
}

export const showSchedule = (s: PayoutSchedule | null) =>
  s ?? { interval: "manual" as const, weekDay: null, monthDay: null, minimumAmount: 0 };

/** ISO weekday (1 = Monday .. 7 = Sunday) of a YYYY-MM-DD. */
function isoWeekDay(date: string): number {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay();
  return day === 0 ? 7 : day;
}

export function isDueDay(s: PayoutSchedule, date: string): boolean {
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
export function nextDueAt(s: PayoutSchedule, after: Date): Date {
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
export function latestDueDay(s: PayoutSchedule, now: Date): string {
  let date = calendarDate(now, PAYOUT_ZONE);
  for (let i = 0; i < 64; i++, date = addDays(date, -1)) {
    if (isDueDay(s, date) && dueInstant(date) <= now) return date;
  }
  throw new Error(`no due day within 64 days before ${now.toISOString()}`);
}
