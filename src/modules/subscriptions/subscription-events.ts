import type { Queryable, Tx } from "../../db/client.js";
import { type EventType, recordEvent } from "../webhooks/index.js";
import type { PlanRow } from "./plans.repo.js";
import type { InvoiceRow, SubscriptionRow } from "./subscriptions.repo.js";

// The data of subscription.* events: the subscription in snake_case with amounts in cents, like
// the charge events, plus the invoice of the period concerned when there is one.
const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export interface InvoiceEventExtra {
  chargeId?: string | null;
  chargeStatus?: string | null;
  reason?: string | null;
  paymentDetails?: Record<string, unknown> | null;
}

export function invoiceData(inv: InvoiceRow, extra: InvoiceEventExtra = {}) {
  return {
    id: inv.id,
    period_start: iso(inv.periodStart),
    period_end: iso(inv.periodEnd),
    amount: inv.amount,
    currency: inv.currency,
    status: inv.status,
    attempt: inv.attempts,
    next_attempt_at: inv.status === "open" && !inv.currentChargeId ? iso(inv.nextAttemptAt) : null,
    due_at: inv.status === "open" && inv.currentChargeId ? iso(inv.nextAttemptAt) : null,
    charge_id: extra.chargeId ?? inv.currentChargeId,
    charge_status: extra.chargeStatus ?? null,
    failure_reason: extra.reason ?? null,
    payment_details: extra.paymentDetails ?? null,
  };
}

export function subscriptionData(s: SubscriptionRow, plan: PlanRow | null, customer: { id: string; name: string; email: string | null } | null) {
  return {
    id: s.id,
    status: s.status,
    plan_id: s.planId,
    next_plan_id: s.nextPlanId,
    plan: plan ? { name: plan.name, price: plan.price, currency: plan.currency, interval: plan.interval, interval_count: plan.intervalCount } : null,
    customer: customer ? { id: customer.id, name: customer.name, email: customer.email } : null,
    payment_method: s.paymentMethod,
    billing_day: s.billingDay,
    current_period_start: iso(s.currentPeriodStart),
    current_period_end: iso(s.currentPeriodEnd),
    trial_end: iso(s.trialEnd),
    cancel_at_period_end: s.cancelAtPeriodEnd,
    cancelled_at: iso(s.cancelledAt),
    cancellation_type: s.cancellationType,
    refunded: s.refunded,
    paused_at: iso(s.pausedAt),
    metadata: s.metadata,
    is_test: s.environment === "sandbox",
    created_at: iso(s.createdAt),
    updated_at: iso(s.updatedAt),
  };
}

export type EventContext = {
  plan: (q: Queryable, s: SubscriptionRow) => Promise<PlanRow | null>;
  customer: (q: Queryable, s: SubscriptionRow) => Promise<{ id: string; name: string; email: string | null } | null>;
};

/** Records a subscription event in the caller's transaction (the outbox delivers it). */
export async function emit(
  tx: Tx, ctx: EventContext, type: EventType, s: SubscriptionRow, invoice?: { row: InvoiceRow; extra?: InvoiceEventExtra },
): Promise<void> {
  const data: Record<string, unknown> = subscriptionData(s, await ctx.plan(tx, s), await ctx.customer(tx, s));
  if (invoice) data.invoice = invoiceData(invoice.row, invoice.extra);
  await recordEvent(tx, { merchantId: s.merchantId, environment: s.environment, type, objectId: s.id, data });
}
