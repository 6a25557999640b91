import { toMajor } from "../../lib/money.js";
import type { SubscriptionStatus } from "./subscription-status.js";
import type { PlanRow } from "./plans.repo.js";
import type { InvoiceRow, ListRow, SubscriptionRow } from "./subscriptions.repo.js";

// Rows to the wire: amounts in currency units (like charges), dates as ISO 8601.
const iso = (d: Date | string) => new Date(d).toISOString();
const isoOrNull = (d: Date | string | null) => (d ? iso(d) : null);

export function toListItem(r: ListRow) {
  return {
    id: r.id,
    status: r.status as SubscriptionStatus,
    currentPeriodStart: iso(r.current_period_start),
    currentPeriodEnd: iso(r.current_period_end),
    billingDay: r.billing_day,
    cancelledAt: isoOrNull(r.cancelled_at),
    cancellationType: r.cancellation_type,
    refunded: r.refunded,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    plan: { name: r.plan_name, price: toMajor(Number(r.plan_price), r.plan_currency), currency: r.plan_currency },
    customer: { name: r.customer_name, email: r.customer_email },
  };
}

export function toSubscription(
  s: SubscriptionRow, plan: PlanRow, customer: { name: string; email: string | null } | null,
  charges: { chargeId: string; attempt: number; status: string; reason: string | null; createdAt: Date; periodStart: Date; periodEnd: Date }[],
  open: InvoiceRow | null,
) {
  return {
    id: s.id,
    livemode: s.environment === "production",
    status: s.status,
    currentPeriodStart: iso(s.currentPeriodStart),
    currentPeriodEnd: iso(s.currentPeriodEnd),
    billingDay: s.billingDay,
    cancelledAt: isoOrNull(s.cancelledAt),
    cancellationType: s.cancellationType,
    refunded: s.refunded,
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
    plan: { name: plan.name, price: toMajor(plan.price, plan.currency), currency: plan.currency },
    customer: { name: customer?.name ?? "", email: customer?.email ?? null },
    planId: s.planId,
    nextPlanId: s.nextPlanId,
    customerId: s.customerId,
    paymentMethod: s.paymentMethod,
    trialEnd: isoOrNull(s.trialEnd),
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    pausedAt: isoOrNull(s.pausedAt),
    nextBillingAt: isoOrNull(s.nextRunAt),
    unpaidInvoice: open && open.status === "open" && open.attempts > 0 && !open.inFlight && s.status === "active"
      ? {
        periodStart: iso(open.periodStart), periodEnd: iso(open.periodEnd), amount: toMajor(open.amount, open.currency),
        attempts: open.attempts, nextAttemptAt: open.currentChargeId ? null : isoOrNull(open.nextAttemptAt),
      }
      : null,
    split: s.split,
    metadata: s.metadata,
    charges: charges.map((c) => ({
      chargeId: c.chargeId, periodStart: iso(c.periodStart), periodEnd: iso(c.periodEnd), attempt: c.attempt,
      status: c.status, reason: c.reason, createdAt: iso(c.createdAt),
    })),
  };
}
