import { addDays, calendarDate } from "../../lib/calendar.js";
import type { Db } from "../../db/client.js";
import * as repo from "./mail.repo.js";
import type { MailKind } from "./mail.templates.js";

// The time-driven e-mails: `reminder` from `daysBefore` the due date until it (unpaid), and
// `overdue` from the day after it (unpaid). Days are Brasília's calendar days, where boletos and
// Pix fall due; the sandbox's are its merchant's test clock's. Each is queued once per charge
// (the emails' unique charge and kind), so a run repeated by another worker, a restart or the
// clock's advance adds nothing. A reminder whose window has passed is not sent late: a
// charge that is already overdue gets only the overdue notice.

const ZONE = "America/Sao_Paulo";
const BATCH = 200;

/** Which time-driven e-mail a charge due on `due` needs `today`, given the merchant's settings. */
export function timedKind(c: repo.DueCharge, today: string): MailKind | undefined {
  if (today > c.due_date) return c.overdue && !c.has_overdue ? "overdue" : undefined;
  if (c.reminder_days_before === null || c.has_reminder) return undefined;
  return today >= addDays(c.due_date, -c.reminder_days_before) ? "reminder" : undefined;
}

export function createReminders(deps: { db: Db; queue(chargeId: string, kind: MailKind): Promise<boolean>; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  /** Queues what fell due; `merchantId`: only that merchant's sandbox. Answers how many it queued. */
  async function run(merchantId?: string): Promise<number> {
    let queued = 0;
    for (const c of await repo.dueCharges(deps.db, BATCH, merchantId)) {
      const today = calendarDate(new Date(now().getTime() + Number(c.offset_ms)), ZONE);
      const kind = timedKind(c, today);
      if (kind && (await deps.queue(c.id, kind))) queued++;
    }
    return queued;
  }
  return { run };
}
