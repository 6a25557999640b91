import type { DeclineReason } from "../mapping.js";

// Pagar.me decline codes -> feira's reason. A refused card carries the acquirer's code in
// last_transaction.acquirer_return_code: Pagar.me/Stone's own four-digit codes until
// 2026-08-28, the card brand's ABECS (Normativo 21) two-character codes since. Old charges keep
// old codes, so both tables stay. Any code not listed is `card_declined`: the issuer said no
// without a reason the payer can act on. The raw code is kept on the charge (providerCode).


/**
 * ABECS codes as the acquirers republish them (Cielo's per-brand table). `processing_error` is
 * kept for the codes that mean the issuer or the network could not decide ("try again"):
 * a retry may succeed, unlike a decline.
 */
export const ABECS_REASONS: Readonly<Record<string, DeclineReason>> = {
  "51": "insufficient_funds", // saldo/limite insuficiente
  "54": "expired_card", // cartão vencido / data de validade inválida
  "63": "incorrect_cvc", // falha de validação de segurança (Elo, Mastercard)
  N7: "incorrect_cvc", // código de segurança inválido (Visa)
  "14": "incorrect_number", // número do cartão inválido
  "56": "incorrect_number", // cartão sem registro
  "91": "processing_error", // emissor fora do ar
  "96": "processing_error", // falha do sistema
};

/** Pagar.me/Stone authorizer codes (Stone's table of authorizer return codes). */
export const PAGARME_LEGACY_REASONS: Readonly<Record<string, DeclineReason>> = {
  "1001": "expired_card", // cartão vencido
  "2001": "expired_card", // cartão vencido (retenção)
  "1011": "incorrect_number", // cartão inválido
  "1016": "insufficient_funds", // saldo/limite insuficiente
  "1045": "incorrect_cvc", // código de segurança inválido
  "9111": "processing_error", // time-out na transação
  "9112": "processing_error", // emissor indisponível
};

/** The reason for a decline code from either table; card_declined when unknown or absent. */
export function pagarmeDeclineReason(code: string | null | undefined): DeclineReason {
  const c = (code ?? "").trim().toUpperCase();
  if (/^\d{4}$/.test(c)) return PAGARME_LEGACY_REASONS[c] ?? "card_declined";
  return ABECS_REASONS[c] ?? "card_declined";
}
