import type { FeiraOutcome, MappedStatus, RefundOutcome } from "../mapping.js";
import { pagarmeDeclineReason } from "./declines.js";

// Pagar.me charge status (+ its last transaction's status) -> feira status. Pure. A payment
// through Pagar.me is an order holding one charge; the charge carries the state.
//
// Choices where the documentation is unclear (docs/processors.md lists them):
// - `processing` ("an unexpected flow happened": the outcome is unknown) is in_analysis, so
//   reconciliation keeps reading it; never failed.
// - `underpaid` (a Pix or boleto paid with less) is in_analysis: money arrived, a person decides.
// - `overpaid` is paid.
// - `canceled` is refunded when the charge had been paid (paid_amount or paid_at), else failed
//   ("expired" when the transaction expired, "canceled" otherwise).
// - a partial refund leaves the charge `paid`; canceled_amount says how much went back.

/** The parts of a Pagar.me charge the mapping reads (wire names). */
export interface PagarmeChargeFacts {
  status?: string;
  amount?: number;
  paid_amount?: number | null;
  canceled_amount?: number | null;
  paid_at?: string | null;
  last_transaction?: {
    status?: string;
    acquirer_return_code?: string | null;
    threed_authentication_url?: string | null;
    antifraud_response?: { status?: string } | null;
  } | null;
}

/** Charge statuses whose meaning does not depend on the transaction. */
export const PAGARME_CHARGE_STATUSES: Readonly<Record<string, FeiraOutcome>> = {
  paid: "paid",
  overpaid: "paid",
  underpaid: "in_analysis",
  processing: "in_analysis",
  chargedback: "charged_back",
};

/** A pending charge whose transaction is in review is in_analysis; otherwise it awaits the payer. */
export const PAGARME_PENDING_TRANSACTIONS: Readonly<Record<string, FeiraOutcome>> = {
  analyzing: "in_analysis",
  pending_review: "in_analysis",
};

/** A failed charge: what its transaction says about why. */
export const PAGARME_FAILED_TRANSACTIONS: Readonly<Record<string, "refused" | "failed">> = {
  not_authorized: "refused",
  with_error: "failed",
  failed: "failed",
  expired: "failed",
};

export function mapPagarmeCharge(charge: PagarmeChargeFacts): MappedStatus {
  const status = charge.status ?? "";
  const tx = charge.last_transaction ?? {};
  const txStatus = tx.status ?? "";
  const providerCode = txStatus ? `${status}/${txStatus}` : status;
  const fixed = PAGARME_CHARGE_STATUSES[status];
  if (fixed) return { outcome: fixed, providerCode };
  switch (status) {
    case "pending":
      if (tx.threed_authentication_url) return { outcome: "authentication_required", providerCode };
      return { outcome: PAGARME_PENDING_TRANSACTIONS[txStatus] ?? "pending", providerCode };
    case "failed": {
      if (tx.antifraud_response?.status === "reproved") {
        return { outcome: "refused", reason: "blocked_by_risk_rules", blocked: true, providerCode: `${providerCode}/antifraud_reproved` };
      }
      const kind = PAGARME_FAILED_TRANSACTIONS[txStatus] ?? (tx.acquirer_return_code ? "refused" : "failed");
      if (kind === "refused") {
        const code = tx.acquirer_return_code ?? "";
        return { outcome: "refused", reason: pagarmeDeclineReason(code), providerCode: code || providerCode };
      }
      return { outcome: "failed", reason: txStatus === "expired" ? "expired" : "processing_error", providerCode };
    }
    case "canceled": {
      const wasPaid = (charge.paid_amount ?? 0) > 0 || Boolean(charge.paid_at);
      if (wasPaid) return { outcome: "refunded", providerCode };
      return { outcome: "failed", reason: txStatus === "expired" ? "expired" : "canceled", providerCode };
    }
    default:
      // A status this table does not know: not a decision, so keep reading it.
      return { outcome: "in_analysis", providerCode };
  }
}

/** The last transaction after a cancellation (DELETE /charges/{id}) -> the refund's state. */
export const PAGARME_REFUND_TRANSACTIONS: Readonly<Record<string, RefundOutcome>> = {
  refunded: "succeeded",
  partial_refunded: "succeeded",
  voided: "succeeded",
  partial_void: "succeeded",
  canceled: "succeeded",
  waiting_cancellation: "pending",
  pending_refund: "pending",
  processing: "pending",
  error_on_refunding: "failed",
  error_on_voiding: "failed",
};
