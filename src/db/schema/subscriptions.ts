import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { MandateStatus, StoredSplitRule, SubscriptionStatus } from "./statuses.js";
import { createdAt, money, ts, updatedAt } from "./columns.js";

// Subscriptions (src/modules/subscriptions). A plan's price is in minor units like a charge.
export const plans = pgTable("plans", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  name: text("name").notNull(),
  description: text("description"),
  price: money("price").notNull(),
  currency: text("currency").notNull(),
  interval: text("interval").$type<"day" | "week" | "month" | "year">().notNull(),
  intervalCount: integer("interval_count").notNull().default(1),
  trialDays: integer("trial_days").notNull().default(0),
  archivedAt: ts("archived_at"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [index("plans_scope_idx").on(t.merchantId, t.environment, t.id)]);

export const subscriptions = pgTable("subscriptions", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  planId: text("plan_id").notNull(),
  /** A plan change applies from the next period: the renewal swaps it in. */
  nextPlanId: text("next_plan_id"),
  customerId: text("customer_id").notNull(),
  /** {type: "credit_card", cardId} (a vault card) or {type: "pix" | "boleto"}. */
  paymentMethod: jsonb("payment_method").$type<{ type: string; cardId?: string }>().notNull(),
  status: text("status").$type<SubscriptionStatus>().notNull(),
  billingDay: integer("billing_day").notNull(),
  /** Periods are counted from here (start, trial end or resume date); `cycle` is the current one (-1: trial). */
  anchorAt: ts("anchor_at").notNull(),
  cycle: integer("cycle").notNull().default(0),
  currentPeriodStart: ts("current_period_start").notNull(),
  currentPeriodEnd: ts("current_period_end").notNull(),
  trialEnd: ts("trial_end"),
  cancelAtPeriodEnd: boolean("cancel_at_period_end").notNull().default(false),
  cancelledAt: ts("cancelled_at"),
  cancellationType: text("cancellation_type"),
  refunded: boolean("refunded").notNull().default(false),
  pausedAt: ts("paused_at"),
  openInvoiceId: text("open_invoice_id"),
  /** When the billing engine must look at it next (simulated time for sandbox clocks). */
  nextRunAt: ts("next_run_at"),
  /** A worker's claim: until then no other worker bills it. */
  claimedUntil: ts("claimed_until"),
  split: jsonb("split").$type<StoredSplitRule[]>(),
  metadata: jsonb("metadata").$type<Record<string, unknown>>(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  index("subscriptions_scope_idx").on(t.merchantId, t.environment, t.id),
  index("subscriptions_customer_idx").on(t.merchantId, t.environment, t.customerId),
  index("subscriptions_due_idx").on(t.nextRunAt),
  // The list's status filter: its page in id order.
  index("subscriptions_status_idx").on(t.merchantId, t.environment, t.status, t.id),
  // The list's exact total (meta.total) by an index-only scan: B-tree deduplication stores each
  // (owner, environment, status) once with its row pointers, a tenth of the pages of an index with the id.
  index("subscriptions_count_idx").on(t.merchantId, t.environment, t.status),
  // The search's subscriptions of the plans whose name matches (a plan is of one scope).
  index("subscriptions_plan_idx").on(t.planId),
]);

// One invoice per billed period; its attempts are charges (subscription_charges).
export const subscriptionInvoices = pgTable("subscription_invoices", {
  id: text("id").primaryKey(),
  subscriptionId: text("subscription_id").notNull(),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  cycle: integer("cycle").notNull(),
  periodStart: ts("period_start").notNull(),
  periodEnd: ts("period_end").notNull(),
  planId: text("plan_id").notNull(),
  amount: money("amount").notNull(),
  currency: text("currency").notNull(),
  /** open (being collected), paid, uncollectible (dunning exhausted) or void. */
  status: text("status").notNull(),
  attempts: integer("attempts").notNull().default(0),
  currentChargeId: text("current_charge_id"),
  /** A charge attempt is being made: its outcome is handled by the attempt itself (or its rerun). */
  inFlight: boolean("in_flight").notNull().default(false),
  /** Next retry, or the deadline of a Pix or boleto attempt. */
  nextAttemptAt: ts("next_attempt_at"),
  paidAt: ts("paid_at"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [uniqueIndex("subscription_invoices_period_uq").on(t.subscriptionId, t.periodStart)]);

/** Every charge made for a subscription: the attempts of its invoices, with their last status. */
export const subscriptionCharges = pgTable("subscription_charges", {
  chargeId: text("charge_id").primaryKey(),
  invoiceId: text("invoice_id").notNull(),
  subscriptionId: text("subscription_id").notNull(),
  attempt: integer("attempt").notNull(),
  status: text("status").notNull(),
  reason: text("reason"),
  createdAt: createdAt(),
}, (t) => [index("subscription_charges_sub_idx").on(t.subscriptionId, t.createdAt)]);

/** A merchant's dunning rules per environment; defaults (1, 3, 5 days, then expire) when absent. */
export const subscriptionSettings = pgTable("subscription_settings", {
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  retryDays: jsonb("retry_days").$type<number[]>().notNull(),
  onExhausted: text("on_exhausted").$type<"expire" | "cancel">().notNull(),
  updatedAt: updatedAt(),
}, (t) => [uniqueIndex("subscription_settings_uq").on(t.merchantId, t.environment)]);

/** The sandbox test clock: how far a merchant's sandbox time runs ahead of real time. */
export const sandboxClocks = pgTable("sandbox_clocks", {
  merchantId: text("merchant_id").primaryKey(),
  offsetMs: money("offset_ms").notNull().default(0),
  updatedAt: updatedAt(),
});

/**
 * A Pix Automático mandate (the Central Bank's recorrência): the payer's one-time authorization
 * of a subscription's debits, up to `maxAmount` per period. One per subscription.
 */
export const mandates = pgTable("mandates", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  subscriptionId: text("subscription_id").notNull(),
  status: text("status").$type<MandateStatus>().notNull(),
  /** qr_with_payment (journey 3: the QR pays the first period too) or qr (journey 2). */
  journey: text("journey").$type<"qr" | "qr_with_payment">().notNull(),
  retryPolicy: text("retry_policy").$type<"none" | "3_in_7_days">().notNull(),
  maxAmount: money("max_amount").notNull(),
  currency: text("currency").notNull(),
  qrCode: text("qr_code").notNull(),
  qrCodeImage: text("qr_code_image").notNull(),
  expiresAt: ts("expires_at").notNull(),
  /** Journey 3: the charge the QR pays. */
  firstChargeId: text("first_charge_id"),
  /** Debits the sandbox fails on purpose (fail-debits), counted down by each debit. */
  failDebits: integer("fail_debits").notNull().default(0),
  /** The provider's id of the recurrence (Efí's idRec); null in sandbox. */
  providerRef: text("provider_ref"),
  cancelledBy: text("cancelled_by").$type<"payer" | "merchant">(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  uniqueIndex("mandates_subscription_uq").on(t.subscriptionId),
  index("mandates_scope_idx").on(t.merchantId, t.environment, t.id),
]);
