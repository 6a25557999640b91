// Period arithmetic and the billing schedule, as pure functions of dates (UTC throughout).
//
// A subscription's periods are counted from its anchor (the start, or the trial's end, or the
// resume date). Period k runs from boundary(k) to boundary(k + 1), except period 0, which starts
// at the anchor itself. For month and year plans the boundaries fall on `billingDay`, clamped to
// the month's last day per month (so the 31st gives Feb 28, then Mar 31: the clamp never sticks);
// for day and week plans they are whole intervals after the anchor, at the anchor's time of day.

export type Interval = "day" | "week" | "month" | "year";

export interface Cadence {
  interval: Interval;
  intervalCount: number;
}

const DAY_MS = 86_400_000;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/** The instant at which period k begins (k >= 1), or the anchor for k = 0. */
export function boundary(anchor: Date, billingDay: number, c: Cadence, k: number): Date {
  if (k === 0) return new Date(anchor);
  if (c.interval === "day" || c.interval === "week") {
    const step = (c.interval === "day" ? 1 : 7) * c.intervalCount * DAY_MS;
    return new Date(anchor.getTime() + k * step);
  }
  const months = (c.interval === "month" ? 1 : 12) * c.intervalCount * k;
  const total = anchor.getUTCFullYear() * 12 + anchor.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total % 12;
  const day = Math.min(billingDay, daysInMonth(year, month));
  return new Date(Date.UTC(year, month, day, anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds()));
}

export function periodBounds(anchor: Date, billingDay: number, c: Cadence, k: number): { start: Date; end: Date } {
  return { start: boundary(anchor, billingDay, c, k), end: boundary(anchor, billingDay, c, k + 1) };
}

/** billingDay only means something for month and year plans; the others bill on the anchor's cadence. */
export function usesBillingDay(c: Cadence): boolean {
  return c.interval === "month" || c.interval === "year";
}

export function addDays(at: Date, days: number): Date {
  return new Date(at.getTime() + days * DAY_MS);
}

export const DEFAULT_RETRY_DAYS = [1, 3, 5];
/** How long an unpaid first payment keeps a subscription pending_activation (Stripe: 23 h). */
export const ACTIVATION_WINDOW_MS = 23 * 60 * 60 * 1000;
/** Days a Pix or boleto renewal stays payable before it counts as a failed attempt. */
export const PAYER_PAID_DUE_DAYS = 3;

/**
 * Pix Automático: each period's charge is sent to the payer's bank 2 to 10 days before its due
 * date (the period's start), as the Central Bank requires. feira issues it 5 days before (or at
 * the period's start when the period is shorter), so a worker late by up to 3 days still lands
 * inside the window; a charge the window has passed is never sent (`outsideWindow`).
 */
export const PIX_AUTO_WINDOW_DAYS = { earliest: 10, issue: 5, latest: 2 };

export function pixAutoIssueAt(s: { currentPeriodStart: Date; currentPeriodEnd: Date }): Date {
  const at = addDays(s.currentPeriodEnd, -PIX_AUTO_WINDOW_DAYS.issue);
  return at > s.currentPeriodStart ? at : s.currentPeriodStart;
}

export function outsideWindow(dueAt: Date, at: Date): boolean {
  const days = (dueAt.getTime() - at.getTime()) / DAY_MS;
  return days < PIX_AUTO_WINDOW_DAYS.latest || days > PIX_AUTO_WINDOW_DAYS.earliest;
}

/**
 * The mandate's retry policy as delays between attempts: PERMITE_3R_7D allows up to 3 more
 * attempts within 7 days of the due date (days 1, 3 and 6 here); NAO_PERMITE none. It takes
 * the place of the merchant's retryDays; once spent, the merchant's onExhausted applies.
 */
export const PIX_AUTO_RETRY_DAYS: Readonly<Record<"none" | "3_in_7_days", number[]>> = { none: [], "3_in_7_days": [1, 2, 3] };

/**
 * When the retry after the `failedAttempts`-th failure falls, or null when the schedule is
 * exhausted. Each delay counts from the previous attempt, as in Stripe's custom schedule.
 */
export function nextRetryAt(failedAt: Date, failedAttempts: number, retryDays: number[]): Date | null {
  const delay = retryDays[failedAttempts - 1];
  return delay === undefined ? null : addDays(failedAt, delay);
}

export interface BillingState {
  status: string;
  createdAt: Date;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  cancelAtPeriodEnd: boolean;
  /** A Pix Automático subscription: pending_activation lasts until its mandate is authorized, and periods are issued ahead. */
  pixAutomatico?: boolean;
  /** The unpaid invoice's next attempt or payment deadline, when one is open. */
  openInvoiceDueAt: Date | null;
}

/** When the billing engine must next look at the subscription; null when never (by itself). */
export function nextRunAt(s: BillingState): Date | null {
  if (s.status === "pending_activation") return s.pixAutomatico ? null : new Date(s.createdAt.getTime() + ACTIVATION_WINDOW_MS);
  if (s.status !== "active") return null;
  // A Pix Automático period's charge is issued ahead of its due date, inside the window.
  if (!s.openInvoiceDueAt) return s.pixAutomatico && !s.cancelAtPeriodEnd ? pixAutoIssueAt(s) : s.currentPeriodEnd;
  // While an invoice is unpaid no new period starts; a cancel at period end still happens.
  if (s.cancelAtPeriodEnd && s.currentPeriodEnd < s.openInvoiceDueAt) return s.currentPeriodEnd;
  return s.openInvoiceDueAt;
}
