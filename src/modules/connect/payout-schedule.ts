import { invalid } from "../../core/errors.js";

// A submerchant's payout schedule: on each due day at 06:00 Brasília
// time feira requests the payout of the whole available balance, if it reaches the minimum.
// The calendar of due days is src/lib/due-days.ts. Pure: no I/O.
export { PAYOUT_ZONE } from "../../lib/due-days.js";

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

export { dueInstant, isDueDay, latestDueDay, nextDueAt } from "../../lib/due-days.js";
