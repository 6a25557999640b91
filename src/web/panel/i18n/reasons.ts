// The codes a person meets as "why" in the panel, in words: a charge's refusal or failure
// (processors/mapping.ts's DeclineReason and the flows' own), a dispute's reason (the sandbox's,
// Efí's MED natures, Mercado Pago's and Pagar.me's chargebacks as disputes.service.ts
// normalises them) and a payout's rejection code. Shown through t(`reason.${code}`): a code
// missing here (a processor's new one, an operator's free text) shows as it came.
export const reasonsEn = {
  // Charges
  "reason.card_declined": "Card declined",
  "reason.insufficient_funds": "Insufficient funds",
  "reason.incorrect_cvc": "Wrong security code",
  "reason.expired_card": "Card expired",
  "reason.incorrect_number": "Wrong card number",
  "reason.processing_error": "Processing error",
  "reason.expired": "Expired unpaid",
  "reason.canceled": "Cancelled",
  "reason.blocked_by_risk_rules": "Blocked by the risk rules",
  "reason.rejected_by_review": "Rejected in the risk review",
  "reason.authentication_failed": "3-D Secure authentication failed",
  "reason.rejected_by_payer": "Rejected by the payer",
  // Disputes
  "reason.fraudulent": "Fraud",
  "reason.fraud": "Fraud",
  "reason.operational_failure": "Operational failure of the payer's bank",
  "reason.chargeback": "Chargeback",
  "reason.product_not_received": "Product not received",
  "reason.product_unacceptable": "Product not as described",
  "reason.duplicate": "Duplicate charge",
  "reason.subscription_canceled": "Subscription cancelled",
  "reason.credit_not_processed": "Refund not processed",
  "reason.unrecognized": "Charge not recognised",
  "reason.general": "Other",
  // Payouts
  "reason.balance_reversed": "The balance was taken back (refund or dispute)",
} as const;

export const reasonsPtBR: Record<keyof typeof reasonsEn, string> = {
  "reason.card_declined": "Cartão recusado",
  "reason.insufficient_funds": "Saldo insuficiente",
  "reason.incorrect_cvc": "Código de segurança errado",
  "reason.expired_card": "Cartão vencido",
  "reason.incorrect_number": "Número do cartão errado",
  "reason.processing_error": "Erro de processamento",
  "reason.expired": "Expirou sem pagamento",
  "reason.canceled": "Cancelada",
  "reason.blocked_by_risk_rules": "Bloqueada pelas regras de risco",
  "reason.rejected_by_review": "Recusada na análise de risco",
  "reason.authentication_failed": "Falha na autenticação 3-D Secure",
  "reason.rejected_by_payer": "Recusada pelo pagador",
  "reason.fraudulent": "Fraude",
  "reason.fraud": "Fraude",
  "reason.operational_failure": "Falha operacional do banco do pagador",
  "reason.chargeback": "Chargeback",
  "reason.product_not_received": "Produto não recebido",
  "reason.product_unacceptable": "Produto diferente do anunciado",
  "reason.duplicate": "Cobrança em duplicidade",
  "reason.subscription_canceled": "Assinatura cancelada",
  "reason.credit_not_processed": "Reembolso não processado",
  "reason.unrecognized": "Compra não reconhecida",
  "reason.general": "Outro motivo",
  "reason.balance_reversed": "O saldo foi retomado (reembolso ou disputa)",
};
