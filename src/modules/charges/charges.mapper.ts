import { charges } from "../../db/schema.js";
import { calendarDate } from "../../lib/calendar.js";
import { toMajor } from "../../lib/money.js";
import { BRAZIL_TIME_ZONE } from "../../processors/calendar.js";
import { amountDueOn, type AmountDue } from "./amount-due.js";
import { dueTermsOf } from "./create/due-terms.js";
import type { CustomerRow } from "../customers/index.js";

// Pure shapes of a charge: the API (camelCase, currency units), the standard webhook data
// (snake_case keys, amounts in cents) and the legacy charge.updated data (camelCase, cents).
export type ChargeRow = typeof charges.$inferSelect;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Why a charge failed or was refused (e.g. "expired", "card_declined"); null otherwise. */
const failureReason = (c: ChargeRow) => (c.status === "failed" || c.status === "refused" ? c.reason : null);

/** The payer's calendar day at an instant: due dates and amounts due are days in Brasília. */
export const payerDay = (at: Date) => calendarDate(at, BRAZIL_TIME_ZONE);

/** A charge's collection terms (a boleto's or Pix's due date, fine, interest, discount), or null. */
export const termsOfCharge = (c: ChargeRow) => dueTermsOf(c.paymentMethod, c.currency);

/**
 * What the payer has paid, in minor units: the breakdown kept when a charge with terms was paid,
 * else the amount alone. Null while unpaid.
 */
export function paidBreakdownOf(c: ChargeRow): AmountDue | null {
  if (!c.paidAt) return null;
  const b = c.paidBreakdown ?? { principal: c.amount, discount: 0, fine: 0, interest: 0 };
  return { ...b, total: b.principal - b.discount + b.fine + b.interest };
}

/**
 * `day` (YYYY-MM-DD, Brasília) is the day the amount due is computed for: today, or the sandbox
 * test clock's day (GET /v1/charges/{id} reads it for a charge with terms).
 */
export function toChargeResponse(c: ChargeRow, day: string = payerDay(new Date())) {
  const units = (minor: number) => toMajor(minor, c.currency);
  const paid = paidBreakdownOf(c);
  return {
    id: c.id,
    livemode: c.environment === "production",
    status: c.status,
    reason: c.reason,
    failureReason: failureReason(c),
    isBlocked: c.isBlocked,
    amount: units(c.amount),
    amountRefunded: units(c.amountRefunded),
    amountDue: c.status === "pending" ? units(amountDueOn(c.amount, termsOfCharge(c), day).total) : null,
    paidAmount: paid ? units(paid.total) : null,
    paidBreakdown: paid ? { principal: units(paid.principal), discount: units(paid.discount), fine: units(paid.fine), interest: units(paid.interest) } : null,
    // Only a card charge whose buyer pays interest (more installments than the interest-free ones).
    ...(c.totalAmount !== null ? { totalAmount: units(c.totalAmount), installmentAmount: units(c.installmentAmount ?? 0) } : {}),
    currency: c.currency,
    spread: units(c.spread),
    anticipationFeeEstimated: units(c.anticipationFee),
    net: units(c.net),
    customerId: c.customerId,
    paymentMethod: c.paymentMethod as { type: string },
    paymentDetails: c.paymentDetails,
    pspRefId: c.pspRefId,
    processor: c.processor,
    items: c.items,
    shippingAddress: c.shippingAddress,
    trackingInfo: c.trackingInfo,
    metadata: c.metadata,
    postbackUrl: c.postbackUrl,
    // The recipients' holdDays kept on the rules are the ledger's, not the API's (nor the webhooks').
    split: c.split ? c.split.map(({ holdDays: _ledgerOnly, ...rule }) => rule) : c.split,
    paymentLinkId: c.paymentLinkId,
    freight_amount: c.freightAmount === null ? null : units(c.freightAmount),
    freight_details: c.freightDetails as { provider: string; price: number } | null,
    paidAt: iso(c.paidAt),
    expiresAt: iso(c.expiresAt),
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

/** Shipping address in the form events carry: addressLine1/2 instead of the request's street/number. */
function webhookAddress(a: Record<string, unknown> | null) {
  if (!a) return null;
  return {
    postalCode: a.postalCode ?? null,
    addressLine1: [a.street, a.number].filter(Boolean).join(", "),
    addressLine2: a.complement ?? null,
    neighborhood: a.neighborhood ?? null,
    city: a.city ?? null,
    state: a.state ?? null,
    country: a.country ?? null,
  };
}

/** The charge's customer as the buyer typed it for this charge (its `buyer`), else as stored. */
function customerOf(charge: ChargeRow, row: CustomerRow | null) {
  if (!row) return null;
  const c = { ...row, ...charge.buyer };
  return { id: row.id, name: c.name, email: c.email, document: c.documentId ? { id: c.documentId, type: c.documentType } : null, phone: c.phone };
}

// Webhook payloads stay small and carry no image: the QR image and long instructions are
// fetched with GET /v1/charges/{id}.
function eventDetails(c: ChargeRow): Record<string, unknown> | null {
  if (!c.paymentDetails) return null;
  const { qrCodeImage: _img, pixQrCodeImage: _pixImg, ...rest } = c.paymentDetails as Record<string, unknown>;
  return rest;
}

function cardView(c: ChargeRow) {
  const pm = c.paymentMethod as Record<string, unknown>;
  return {
    type: pm.type,
    installments: pm.installments,
    first_six_digits: pm.firstSix,
    last_four_digits: pm.lastFour,
    holder_name: pm.holderName,
  };
}

/** The charge object of standard events: snake_case keys, amounts and fees in cents. */
export function toEventData(c: ChargeRow, customer: CustomerRow | null): Record<string, unknown> {
  return {
    id: c.id,
    status: c.status,
    psp_ref_id: c.pspRefId,
    amount: c.amount,
    currency: c.currency,
    spread: c.spread,
    anticipation_fee_estimated: c.anticipationFee,
    net: c.net,
    amount_refunded: c.amountRefunded,
    failure_reason: failureReason(c),
    customer: customerOf(c, customer),
    payment_method: c.paymentMethodType === "credit_card" ? cardView(c) : { type: c.paymentMethodType },
    merchant_id: c.merchantId,
    payment_details: eventDetails(c),
    shipping_address: webhookAddress(c.shippingAddress),
    tracking_info: c.trackingInfo,
    metadata: c.metadata,
    postback_url: c.postbackUrl,
    payment_link_id: c.paymentLinkId,
    freight_amount: c.freightAmount,
    freight_details: c.freightDetails,
    paid_at: iso(c.paidAt),
    is_test: c.environment === "sandbox",
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
    deleted_at: iso(c.deletedAt),
  };
}

/** The legacy charge.updated data: the same charge in camelCase, with isBlocked. */
export function toLegacyData(c: ChargeRow, customer: CustomerRow | null): Record<string, unknown> {
  const card = cardView(c);
  return {
    id: c.id,
    status: c.status,
    reason: c.reason,
    failureReason: failureReason(c),
    pspRefId: c.pspRefId,
    amount: c.amount,
    currency: c.currency,
    spread: c.spread,
    net: c.net,
    customer: customerOf(c, customer),
    paymentMethod: c.paymentMethodType === "credit_card"
      ? { type: card.type, installments: card.installments, firstSixDigits: card.first_six_digits, lastFourDigits: card.last_four_digits, holderName: card.holder_name }
      : { type: c.paymentMethodType },
    merchantId: c.merchantId,
    paymentDetails: eventDetails(c),
    shippingAddress: webhookAddress(c.shippingAddress),
    trackingInfo: c.trackingInfo,
    metadata: c.metadata,
    postbackUrl: c.postbackUrl,
    paidAt: iso(c.paidAt),
    isTest: c.environment === "sandbox",
    ...(c.isBlocked ? { isBlocked: true } : {}),
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
    deletedAt: iso(c.deletedAt),
  };
}
