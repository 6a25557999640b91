import type { DeclineReason } from "../mapping.js";

// Mercado Pago `status_detail` of a rejected card payment -> feira's reason. Any detail not
// listed is `card_declined`. The raw detail is kept on the charge (providerCode).

export const MERCADOPAGO_DECLINES: Readonly<Record<string, DeclineReason>> = {
  cc_rejected_insufficient_amount: "insufficient_funds",
  cc_rejected_bad_filled_security_code: "incorrect_cvc",
  // The payer typed a wrong expiry (Mercado Pago has no separate "expired" detail).
  cc_rejected_bad_filled_date: "expired_card",
  cc_rejected_bad_filled_card_number: "incorrect_number",
  // Mercado Pago's own failure to process the card: a retry may succeed.
  cc_rejected_card_error: "processing_error",
  cc_rejected_call_for_authorize: "card_declined",
  cc_rejected_card_disabled: "card_declined",
  cc_rejected_duplicated_payment: "card_declined",
  cc_rejected_high_risk: "card_declined",
  cc_rejected_blacklist: "card_declined",
  cc_rejected_max_attempts: "card_declined",
  cc_rejected_invalid_installments: "card_declined",
  cc_rejected_bad_filled_other: "card_declined",
  cc_rejected_other_reason: "card_declined",
};

export function mercadopagoDeclineReason(statusDetail: string | null | undefined): DeclineReason {
  return MERCADOPAGO_DECLINES[statusDetail ?? ""] ?? "card_declined";
}
