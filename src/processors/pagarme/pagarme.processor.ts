import { badResponse, cancelResultOf, captureResultOf, createConflictResult, lookupPayment, refundFailureResult, refundResultOf } from "../adapter-results.js";
import { boletoDetails, parseInstant, pixDetails } from "../instructions.js";
import type {
  LookupResult, PaymentProcessor, PaymentState, ProcessorFailure, RefundResult, Serves,
} from "../processor.js";
import { createPagarmeClient, pagarmeKeys, type PagarmeCharge, type PagarmeClientOptions, type PagarmeOrder } from "./client.js";
import { checkPagarmeInstrument, orderBody } from "./order.js";
import { mapPagarmeCharge, PAGARME_REFUND_TRANSACTIONS } from "./statuses.js";
import { pagarmeAccounts } from "./recipients.js";
import { payableUntilOf } from "./boleto.js";
import { BRAZIL_TIME_ZONE, endOfDay } from "../calendar.js";

// Pagar.me (core API v5) behind PaymentProcessor: credit card with installments (card data in
// the order), Pix and boleto. pspRefId is Pagar.me's charge id (ch_...), the resource refunds
// and cancellations act on; feira's charge id is the order `code` and the idempotency key.
// A declined card is an order created with HTTP 200 and a `failed` charge: a value, not an error.

const SERVED = new Set(["credit_card", "pix", "boleto"]);

/** A Pagar.me charge as feira's payment state, with the Pix or boleto instructions when pending. */
export function pagarmeState(charge: PagarmeCharge): PaymentState | { outcome: "unknown"; failure: ProcessorFailure } {
  const pspRefId = charge.id;
  if (!pspRefId) return { outcome: "unknown", failure: badResponse("the processor's answer had no charge id") };
  const mapped = mapPagarmeCharge(charge);
  const { providerCode } = mapped;
  const tx = charge.last_transaction ?? {};
  switch (mapped.outcome) {
    case "pending": {
      if (charge.payment_method === "pix") {
        const expiresAt = parseInstant(tx.expires_at);
        if (!tx.qr_code || !expiresAt) return { outcome: "unknown", failure: badResponse("the processor's Pix had no BR Code or expiry") };
        return { outcome: "pending", pspRefId, providerCode, expiresAt, details: pixDetails(tx.qr_code, expiresAt, tx.qr_code_url ? { qrCodeUrl: tx.qr_code_url } : {}) };
      }
      if (charge.payment_method === "boleto") {
        const dueAt = parseInstant(tx.due_at);
        if (!dueAt || (!tx.line && !tx.barcode)) return { outcome: "unknown", failure: badResponse("the processor's boleto had no line or due date") };
        const { details, expiresAt } = boletoDetails({
          line: tx.line, barcode: tx.barcode, pdfUrl: tx.pdf ?? null, url: tx.url ?? null, dueAt,
          extra: tx.nosso_numero ? { ourNumber: tx.nosso_numero } : {},
        });
        return { outcome: "pending", pspRefId, providerCode, expiresAt, details };
      }
      // A card waiting at Pagar.me (not captured yet): neither paid nor refused; keep reading it.
      return { outcome: "in_analysis", pspRefId, providerCode };
    }
    case "authentication_required":
      return { outcome: "authentication_required", pspRefId, providerCode, details: { authenticationUrl: tx.threed_authentication_url } };
    case "refused":
      return { outcome: "refused", reason: mapped.reason!, pspRefId, providerCode, ...(mapped.blocked ? { blocked: true } : {}) };
    case "failed":
      return { outcome: "failed", reason: mapped.reason!, pspRefId, providerCode };
    case "charged_back":
      // Pagar.me reports a chargeback decided: a dispute already lost, one per charge (its id),
      // for what was still paid (amounts are in cents). Evidence goes through its dashboard.
      return {
        outcome: "charged_back", pspRefId, providerCode, disputes: [{
          outcome: "lost", disputeRef: pspRefId, chargeRef: pspRefId, kind: "chargeback",
          amountMinor: Math.max(0, (charge.paid_amount ?? charge.amount ?? 0) - (charge.canceled_amount ?? 0)), reason: "chargeback", evidenceDueBy: null,
        }],
      };
    case "paid":
      // What the payer paid (cents): more than the amount when a boleto was paid late with its
      // fine and interest.
      return { outcome: "paid", pspRefId, providerCode, ...(typeof charge.paid_amount === "number" && charge.paid_amount > 0 ? { paidAmount: { totalMinor: charge.paid_amount } } : {}) };
    case "in_analysis":
    case "refunded":
      return { outcome: mapped.outcome, pspRefId, providerCode };
  }
}

function firstCharge(order: unknown): PagarmeCharge | null {
  const charges = (order as PagarmeOrder | null)?.charges;
  return Array.isArray(charges) && charges.length > 0 ? charges[0]! : null;
}

function refundOutcome(charge: PagarmeCharge): RefundResult {
  const tx = charge.last_transaction ?? {};
  const outcome = PAGARME_REFUND_TRANSACTIONS[tx.status ?? ""] ?? (charge.status === "canceled" ? "succeeded" : "pending");
  return refundResultOf(outcome, tx.id ?? charge.id ?? null, `${charge.status ?? ""}/${tx.status ?? ""}`);
}

export type PagarmeProcessorOptions = PagarmeClientOptions & {
  /** The operator's recipient (PAGARME_RECIPIENT_ID): takes the remainder of a split charge. */
  recipientId?: string;
};

export function createPagarmeProcessor(opts: PagarmeProcessorOptions): Serves<"cancel" | "capture" | "refund" | "refundStatus" | "disputes"> & { close(): Promise<void> } {
  const client = createPagarmeClient(opts);

  const lookup = (input: { chargeId: string; pspRefId?: string | null }): Promise<LookupResult> => lookupPayment<PagarmeCharge>(input, {
    read: client.getCharge,
    search: client.findOrders,
    pick(body, chargeId) {
      const data = (body as { data?: unknown } | null)?.data;
      if (!Array.isArray(data)) return "the processor's order list had no data";
      // `code` is not documented as unique: only orders carrying this exact code count, and
      // one with a charge wins (there is one per charge id, made under one idempotency key).
      const orders = (data as PagarmeOrder[]).filter((o) => o.code === chargeId);
      const order = orders.find((o) => firstCharge(o)) ?? orders[0];
      if (!order) return null;
      return firstCharge(order) ?? "the processor's order had no charge";
    },
    state: pagarmeState,
    refunded: (charge) => charge.canceled_amount ?? 0,
  });

  async function refund(input: { chargeId: string; pspRefId: string | null; amountMinor: number; refundId: string; chargeAmountMinor?: number }): Promise<RefundResult> {
    if (!input.pspRefId) return { outcome: "failed", reason: "processing_error", providerCode: "no_psp_reference" };
    const full = input.chargeAmountMinor !== undefined && input.amountMinor === input.chargeAmountMinor;
    const r = await client.cancelCharge(input.pspRefId, pagarmeKeys.refund(input.refundId), full ? undefined : input.amountMinor);
    if (r.ok) return refundOutcome(r.body as PagarmeCharge);
    // A 4xx made nothing; anything else may have: settle it with refundStatus, never resend blindly.
    return refundFailureResult(r.failure);
  }

  return {
    name: "pagarme",
    // payments[].split[] with flat amounts (split.ts; docs/processors.md, "Split dialects").
    sendsSplit: true,
    supports: (method, currency) => SERVED.has(method) && currency === "BRL",
    checkInstrument: checkPagarmeInstrument,
    async authorize(input) {
      const r = await client.createOrder(orderBody(input, opts.recipientId), input.chargeId);
      if (!r.ok) return createConflictResult(r.failure, () => lookup({ chargeId: input.chargeId }));
      const charge = firstCharge(r.body);
      if (!charge) return { outcome: "unknown", failure: badResponse("the processor's order had no charge") };
      const state = pagarmeState(charge);
      // A create cannot answer refunded or charged back; if it does, the lookup will tell.
      if (state.outcome === "refunded" || state.outcome === "charged_back") return { outcome: "in_analysis", pspRefId: state.pspRefId, providerCode: state.providerCode };
      const until = input.instrument.kind === "boleto" ? payableUntilOf(input.instrument.options) : null;
      if (state.outcome === "pending" && until) {
        const expiresAt = endOfDay(until, BRAZIL_TIME_ZONE);
        return { ...state, expiresAt, details: { ...state.details, expiresAt: expiresAt.toISOString() } };
      }
      return state;
    },
    lookup,
    // Canceled and never paid; a paid charge "canceled" would be a refund, which cancel never asks for.
    cancel: async (input) => cancelResultOf(
      await client.cancelCharge(input.pspRefId, pagarmeKeys.cancel(input.chargeId)),
      (body) => {
        const charge = body as PagarmeCharge;
        return charge.status === "canceled" && !((charge.paid_amount ?? 0) > 0 || Boolean(charge.paid_at));
      },
      (body) => mapPagarmeCharge(body as PagarmeCharge).providerCode,
    ),
    capture: async (input) => captureResultOf(
      await client.captureCharge(input.pspRefId, input.chargeId),
      (body) => mapPagarmeCharge(body as PagarmeCharge),
    ),
    refund,
    async refundStatus(input) {
      // Pagar.me has no refund resource: the charge's last transaction and canceled_amount say
      // where the most recent cancellation stands.
      if (!input.pspRefId) return { outcome: "not_found" };
      const r = await client.getCharge(input.pspRefId);
      if (!r.ok) return { outcome: "pending", refundRef: input.refundRef, failure: r.failure };
      const charge = r.body as PagarmeCharge;
      if ((charge.canceled_amount ?? 0) === 0 && charge.status !== "canceled") {
        const tx = charge.last_transaction?.status ?? "";
        return PAGARME_REFUND_TRANSACTIONS[tx] ? refundOutcome(charge) : { outcome: "not_found" };
      }
      return refundOutcome(charge);
    },
    // A chargedback charge is a dispute already lost (pagarmeState): nothing to read or send here.
    disputes: { provider: "Pagar.me" },
    accounts: pagarmeAccounts(client),
    close: () => client.close(),
  };
}
