import { Type, type Static } from "typebox";
import { Metadata } from "../../http/schemas.js";
import { ChargeCustomer, discriminatedByType, SplitRule } from "../charges/index.js";
import type { MandateStatus } from "../../db/schema/statuses.js";
import { SplitRuleView } from "../ledger/index.js";
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from "./subscription-status.js";

const Status = Type.Unsafe<SubscriptionStatus>({ type: "string", enum: [...SUBSCRIPTION_STATUSES] });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const DateTime = Type.String({ format: "date-time" });

const CardMethod = Type.Object({
  type: Type.Literal("credit_card"),
  number: Type.Optional(Type.String({ minLength: 12, maxLength: 23, description: "Card number; the card is saved in the customer's vault for the renewals." })),
  holderName: Type.Optional(Type.String({ minLength: 2, maxLength: 100 })),
  expirationMonth: Type.Optional(Type.String({ pattern: "^(0?[1-9]|1[0-2])$" })),
  expirationYear: Type.Optional(Type.String({ pattern: "^([0-9]{2}|[0-9]{4})$" })),
  cvv: Type.Optional(Type.String({ pattern: "^[0-9]{3,4}$", description: "Used for the first payment only; never stored." })),
  cardId: Type.Optional(Type.String({ maxLength: 64, description: "A card already saved for this customer, instead of number, holder and expiry." })),
  threeDSMode: Type.Optional(Type.Union([Type.Literal("managed"), Type.Literal("none")], { description: "3-D Secure for the first payment." })),
}, { $id: "SubscriptionCreditCardMethod", additionalProperties: false });
const PixMethod = Type.Object({ type: Type.Literal("pix") }, { $id: "SubscriptionPixMethod", additionalProperties: false, description: "Each period's charge is a Pix BR Code, sent in the subscription.renewed event. BRL." });
const BoletoMethod = Type.Object({ type: Type.Literal("boleto") }, { $id: "SubscriptionBoletoMethod", additionalProperties: false, description: "Each period's charge is a boleto due 3 days after the period starts. BRL." });

const PixAutomaticoMethod = Type.Object({
  type: Type.Literal("pix_automatico"),
  retryPolicy: Type.Optional(Type.Union([Type.Literal("none"), Type.Literal("3_in_7_days")], { default: "3_in_7_days", description: "After a failed debit: none, or up to 3 more attempts within 7 days (the Central Bank's PERMITE_3R_7D); then the subscription's dunning." })),
}, {
  $id: "SubscriptionPixAutomaticoMethod", additionalProperties: false,
  description: "Pix Automático (BRL): the payer authorizes a mandate once, by the QR in `mandate`, and each later period is a pix_automatico charge (paymentDetails.dueDate, in Brasília time), issued 2 to 10 days before its due date and debited on it; a failed debit is refused with insufficient_funds. The customer needs a CPF or CNPJ. Without a trial the QR also pays the first period (journey 3); with one it authorizes only (journey 2).",
});

const methods = Type.Union([CardMethod, PixMethod, BoletoMethod, PixAutomaticoMethod]);
/** The variants as named components of the document (app.ts adds them). */
export const SUBSCRIPTION_METHOD_COMPONENTS = [CardMethod, PixMethod, BoletoMethod, PixAutomaticoMethod];
export const SubscriptionMethodInput = discriminatedByType<Static<typeof methods>>(SUBSCRIPTION_METHOD_COMPONENTS,
  "credit_card (a new card, saved in the vault, or a saved cardId), pix, boleto or pix_automatico.");

const mandateExample = {
  id: "mdt_01jd3k2m4n7a8b9c0d1e2f3g4h", livemode: false, subscriptionId: "sub_01jd3k2m4n7a8b9c0d1e2f3g4h", status: "pending", journey: "qr_with_payment",
  qrCode: "00020101021226...6304ABCD", qrCodeImage: "data:image/png;base64,iVBORw0KGgo...", expiresAt: "2026-11-26T12:00:00.000Z", retryPolicy: "3_in_7_days",
  maxAmount: 29.9, currency: "BRL", cancelledBy: null, createdAt: "2026-11-23T12:00:00.000Z", updatedAt: "2026-11-23T12:00:00.000Z",
};

export const Mandate = Type.Object({
  id: Type.String(),
  livemode: Type.Boolean(),
  subscriptionId: Type.String(),
  status: Type.Unsafe<MandateStatus>({ type: "string", enum: ["pending", "active", "rejected", "expired", "cancelled"], description: "The Central Bank's recorrência: CRIADA, APROVADA, REJEITADA, EXPIRADA, CANCELADA." }),
  journey: Type.Union([Type.Literal("qr_with_payment"), Type.Literal("qr")], { description: "qr_with_payment: the QR pays the first period and authorizes the rest (journey 3); qr: authorization only (journey 2, with a trial)." }),
  qrCode: Type.String({ description: "Pix copia-e-cola for the payer's bank app." }),
  qrCodeImage: Type.String({ description: "The QR as a PNG data URL." }),
  expiresAt: DateTime,
  retryPolicy: Type.String({ description: "none or 3_in_7_days." }),
  maxAmount: Type.Number({ description: "The most a period may debit (currency units): the plan's price at sign-up. A plan change above it is refused (a new mandate is needed)." }),
  currency: Type.String(),
  cancelledBy: Nullable(Type.String({ description: "payer (in the bank app) or merchant (the subscription's cancel)." })),
  createdAt: DateTime,
  updatedAt: DateTime,
}, { examples: [mandateExample] });

export const FailDebitsBody = Type.Object({
  count: Type.Integer({ minimum: 0, maximum: 100, description: "How many of the next debits fail (0 stops failing them)." }),
}, { additionalProperties: false, examples: [{ count: 2 }] });

export const CreateSubscriptionBody = Type.Object({
  planId: Type.String({ minLength: 1, maxLength: 64 }),
  customer: ChargeCustomer,
  paymentMethod: SubscriptionMethodInput,
  billingDay: Type.Optional(Type.Integer({ minimum: 1, maximum: 31, description: "Day of the month renewals fall on (month and year plans; clamped to the month's last day). The start day by default." })),
  metadata: Type.Optional(Metadata),
  split: Type.Optional(Type.Array(SplitRule, { maxItems: 20, description: "Split of every period's charge among Connect participants (percentages of the net or fixed amounts)." })),
}, {
  additionalProperties: false,
  examples: [{
    planId: "plan_01jd3k2m4n5p6q7r8s9t0v1w2x",
    customer: { name: "Maria Silva", email: "maria@example.com", document: { type: "cpf", id: "529.982.247-25" } },
    paymentMethod: { type: "credit_card", number: "4111111111111111", holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2030", cvv: "123" },
    billingDay: 10, metadata: { order: "A-1001" },
  }],
});

export const PlanSummary = Type.Object({ name: Type.String(), price: Type.Number({ description: "Currency units." }), currency: Type.String() });
export const CustomerSummary = Type.Object({ name: Type.String(), email: Nullable(Type.String()) });

const listItemFields = {
  id: Type.String(),
  status: Status,
  currentPeriodStart: DateTime,
  currentPeriodEnd: DateTime,
  billingDay: Type.Integer(),
  cancelledAt: Nullable(DateTime),
  cancellationType: Nullable(Type.String({ description: "immediate, end_of_period or payment_failed (dunning ran out and the merchant's setting is cancel)." })),
  refunded: Type.Boolean(),
  createdAt: DateTime,
  updatedAt: DateTime,
  plan: PlanSummary,
  customer: CustomerSummary,
};

const example = {
  id: "sub_01jd3k2m4n7a8b9c0d1e2f3g4h", status: "active", currentPeriodStart: "2026-11-23T12:00:00.000Z", currentPeriodEnd: "2026-12-10T12:00:00.000Z",
  billingDay: 10, cancelledAt: null, cancellationType: null, refunded: false, createdAt: "2026-11-23T12:00:00.000Z", updatedAt: "2026-11-23T12:00:01.000Z",
  plan: { name: "Pro monthly", price: 29.9, currency: "BRL" }, customer: { name: "Maria Silva", email: "maria@example.com" },
};

export const SubscriptionListItem = Type.Object(listItemFields);

export const SubscriptionCharge = Type.Object({
  chargeId: Type.String(),
  periodStart: DateTime,
  periodEnd: DateTime,
  attempt: Type.Integer({ description: "1 for the period's first try, then one more per retry." }),
  status: Type.String({ description: "The charge's status: paid, pending, refused, failed, refunded, ..." }),
  reason: Nullable(Type.String()),
  createdAt: DateTime,
});

export const Subscription = Type.Object({
  ...listItemFields,
  livemode: Type.Boolean(),
  planId: Type.String(),
  nextPlanId: Nullable(Type.String({ description: "The plan that takes over at the next period, after a plan change." })),
  customerId: Type.String(),
  paymentMethod: Type.Object({ type: Type.String(), cardId: Type.Optional(Type.String()) }),
  trialEnd: Nullable(DateTime),
  cancelAtPeriodEnd: Type.Boolean(),
  pausedAt: Nullable(DateTime),
  nextBillingAt: Nullable(Type.String({ format: "date-time", description: "When the next charge or retry is due (null when nothing is scheduled)." })),
  unpaidInvoice: Nullable(Type.Object({
    periodStart: DateTime, periodEnd: DateTime, amount: Type.Number(), attempts: Type.Integer(),
    nextAttemptAt: Nullable(DateTime),
  }, { description: "The period being collected (retries in progress), if any." })),
  split: Nullable(Type.Array(SplitRuleView)),
  metadata: Nullable(Type.Record(Type.String(), Type.Unknown())),
  charges: Type.Array(SubscriptionCharge, { description: "The charges of each period, newest first (at most 100)." }),
  mandate: Type.Union([Mandate, Type.Null()], { description: "The Pix Automático mandate (pix_automatico subscriptions only)." }),
  pendingDebit: Type.Optional(Nullable(Type.Object({
    chargeId: Type.String(),
    dueDate: Nullable(Type.String({ description: "The day the payer's bank debits it (YYYY-MM-DD, Brasília)." })),
    refundOnPayment: Type.Boolean({ description: "true (the cancel asked for a refund): refunded in full when it lands (charge.late_payment_refunded)." }),
  }, {
    description: "In a cancel's answer only: a Pix Automático debit already sent to the payer's bank that could not be cancelled (the Central Bank allows it until the day before its date), so the payer's bank may still debit it. null when nothing is left to be debited.",
  }))),
}, {
  examples: [{
    ...example, livemode: false, planId: "plan_01jd3k2m4n5p6q7r8s9t0v1w2x", nextPlanId: null, customerId: "cus_01jd3k2m4n9z8y7x6w5v4t3s2r",
    paymentMethod: { type: "credit_card", cardId: "card_01jd3k2m4nq1w2e3r4t5y6u7i8" }, trialEnd: null, cancelAtPeriodEnd: false, pausedAt: null,
    nextBillingAt: "2026-12-10T12:00:00.000Z", unpaidInvoice: null, split: null, metadata: { order: "A-1001" },
    mandate: null, charges: [{ chargeId: "ch_01jd3k2m4nabcdefghjkmnpqrs", periodStart: "2026-11-23T12:00:00.000Z", periodEnd: "2026-12-10T12:00:00.000Z", attempt: 1, status: "paid", reason: null, createdAt: "2026-11-23T12:00:00.000Z" }],
  }],
});

export const ListSubscriptionsQuery = Type.Object({
  merchantId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "The caller's own id, or one of its submerchants' (Connect)." })),
  customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  status: Type.Optional(Status),
  search: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Case-insensitive text in the customer's name or e-mail or the plan's name." })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
}, { additionalProperties: false });

export const SubscriptionList = Type.Object({
  data: Type.Array(SubscriptionListItem),
  meta: Type.Object({ total: Type.Integer(), page: Type.Integer(), limit: Type.Integer(), totalPages: Type.Integer() }),
}, { examples: [{ data: [example], meta: { total: 1, page: 1, limit: 10, totalPages: 1 } }] });

export const CancelBody = Type.Object({
  atPeriodEnd: Type.Optional(Type.Boolean({ default: false, description: "Cancel when the current period ends instead of now." })),
  refund: Type.Optional(Type.Boolean({ default: false, description: "Refund the current period's payment in full (immediate cancels only)." })),
}, { additionalProperties: false, examples: [{ atPeriodEnd: false, refund: true }] });

export const UpdateSubscriptionBody = Type.Object({
  planId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "The plan billed from the next period on (same currency)." })),
  metadata: Type.Optional(Metadata),
}, { additionalProperties: false, minProperties: 1, examples: [{ planId: "plan_01jd3k2m4nzz9y8x7w6v5t4s3r" }] });

export const SettingsBody = Type.Object({
  retryDays: Type.Array(Type.Integer({ minimum: 1, maximum: 30 }), { maxItems: 8, description: "Days after each failed attempt before the next retry; [] means no retries." }),
  onExhausted: Type.Union([Type.Literal("expire"), Type.Literal("cancel")], { description: "What happens when the last retry fails." }),
}, { additionalProperties: false, examples: [{ retryDays: [1, 3, 5], onExhausted: "expire" }] });
export const Settings = Type.Object({ retryDays: Type.Array(Type.Integer()), onExhausted: Type.String() }, { examples: [{ retryDays: [1, 3, 5], onExhausted: "expire" }] });

export const AdvanceBody = Type.Object({
  days: Type.Integer({ minimum: 1, maximum: 730, description: "How far to move the merchant's sandbox clock." }),
}, { additionalProperties: false, examples: [{ days: 31 }] });

export const AdvanceResult = Type.Object({
  now: Type.String({ format: "date-time", description: "The sandbox clock after the advance." }),
  offsetDays: Type.Number({ description: "How far the sandbox clock runs ahead of real time." }),
  actions: Type.Array(Type.Object({
    subscriptionId: Type.String(),
    action: Type.String({ description: "renewed, payment_failed, retried, expired, cancelled or activated..." }),
    at: Type.String({ format: "date-time", description: "Simulated time at which it happened." }),
    chargeId: Type.Optional(Type.String()),
    chargeStatus: Type.Optional(Type.String()),
  })),
}, { examples: [{ now: "2026-12-24T12:00:00.000Z", offsetDays: 31, actions: [{ subscriptionId: "sub_01jd3k2m4n7a8b9c0d1e2f3g4h", action: "renewed", at: "2026-12-10T12:00:00.000Z", chargeId: "ch_01jd3k2m4nabcdefghjkmnpqrs", chargeStatus: "paid" }] }] });
