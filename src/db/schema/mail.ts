import { boolean, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, ts, updatedAt } from "./columns.js";

// E-mails to buyers. One row per charge and kind, ever: the unique
// index is what makes "once per charge and kind" hold across retries, restarts and workers.
// The message is rendered when queued, so a retry sends the same bytes under the same
// Message-ID (derived from the charge and the kind).
export const emails = pgTable("emails", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  chargeId: text("charge_id").notNull(),
  kind: text("kind").notNull(),
  to: text("to_address").notNull(),
  fromName: text("from_name").notNull(),
  subject: text("subject").notNull(),
  text: text("text_body").notNull(),
  html: text("html_body").notNull(),
  messageId: text("message_id").notNull(),
  /** "queued", "sent" or "failed". */
  status: text("status").notNull().default("queued"),
  attempts: integer("attempts").notNull().default(0),
  nextAttemptAt: ts("next_attempt_at").notNull().defaultNow(),
  leaseUntil: ts("lease_until"),
  lastError: text("last_error"),
  sentAt: ts("sent_at"),
  createdAt: createdAt(),
}, (t) => [
  uniqueIndex("emails_charge_kind_idx").on(t.chargeId, t.kind),
  index("emails_scope_idx").on(t.merchantId, t.environment, t.id),
  index("emails_due_idx").on(t.status, t.nextAttemptAt),
]);

export const notificationSettings = pgTable("notification_settings", {
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  receipts: boolean("receipts").notNull().default(true),
  /** Days before the due date for the reminder; null: no reminder. */
  reminderDaysBefore: integer("reminder_days_before"),
  overdue: boolean("overdue").notNull().default(false),
  language: text("language").$type<"pt-BR" | "en">().notNull().default("pt-BR"),
  updatedAt: updatedAt(),
}, (t) => [primaryKey({ columns: [t.merchantId, t.environment] })]);
