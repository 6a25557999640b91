import type { FeiraOutcome, MappedStatus, RefundOutcome } from "../mapping.js";
import { mercadopagoDeclineReason } from "./declines.js";

// Mercado Pago payment `status` (+ `status_detail`) -> feira status. Pure.
//
// Choices where the documentation is unclear (docs/processors.md lists them):
// - `authorized` (authorized, not captured; feira always asks for capture) is in_analysis.
// - `in_mediation` (the buyer opened a dispute; it can end either way) stays paid, with the
//   detail in providerCode. `charged_back` moves nothing by itself: the adapter serves disputes,
//   and the chargeback (its own notice, read back: chargebacks.ts) decides what goes back.
// - `rejected` of a card is refused (reason from declines.ts); of a Pix or boleto, failed.
// - `cancelled` is failed: "expired" when the detail says so, "canceled" otherwise.
// - `pending` of a card is in_analysis, except `pending_challenge` (3DS): authentication_required.

export const MERCADOPAGO_STATUSES: Readonly<Record<string, FeiraOutcome>> = {
  pending: "pending",
  approved: "paid",
  authorized: "in_analysis",
  in_process: "in_analysis",
  in_mediation: "paid",
  rejected: "refused",
  cancelled: "failed",
  refunded: "refunded",
  charged_back: "charged_back",
};

export interface MercadoPagoPaymentFacts {
  status?: string;
  status_detail?: string | null;
  payment_method_id?: string;
  payment_type_id?: string;
}

const CARD_TYPES = new Set(["credit_card", "debit_card", "prepaid_card"]);
const NOT_CARDS = new Set(["pix", "bolbradesco", "pec"]);
const isCard = (p: MercadoPagoPaymentFacts) =>
  p.payment_type_id ? CARD_TYPES.has(p.payment_type_id) : !NOT_CARDS.has(p.payment_method_id ?? "");

export function mapMercadoPagoPayment(p: MercadoPagoPaymentFacts): MappedStatus {
  const status = p.status ?? "";
  const detail = p.status_detail ?? "";
  const providerCode = detail ? `${status}/${detail}` : status;
  const outcome = MERCADOPAGO_STATUSES[status];
  switch (outcome) {
    case undefined:
      // A status this table does not know: not a decision, so keep reading it.
      return { outcome: "in_analysis", providerCode };
    case "pending":
      if (detail === "pending_challenge") return { outcome: "authentication_required", providerCode };
      return { outcome: isCard(p) ? "in_analysis" : "pending", providerCode };
    case "refused":
      if (!isCard(p)) return { outcome: "failed", reason: "processing_error", providerCode };
      return { outcome: "refused", reason: mercadopagoDeclineReason(detail), providerCode: detail || providerCode };
    case "failed":
      return { outcome: "failed", reason: detail === "expired" ? "expired" : "canceled", providerCode };
    default:
      return { outcome, providerCode };
  }
}

/** A Mercado Pago refund's `status` -> the refund's state in feira. */
export const MERCADOPAGO_REFUND_STATUSES: Readonly<Record<string, RefundOutcome>> = {
  approved: "succeeded",
  pending: "pending",
  in_process: "pending",
  authorized: "pending",
  rejected: "failed",
  cancelled: "failed",
};
