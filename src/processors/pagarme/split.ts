import type { ProviderSplit, ResolvedShare } from "../provider-split.js";

// Pagar.me's split dialect (docs/processors.md, "Split dialects"): `payments[].split[]` of
// CreateSplitRequest {type, amount, recipient_id, options: {liable, charge_processing_fee,
// charge_remainder_fee}} (pagarme/pagarme-nodejs-sdk doc/models/create-split-request.md and
// create-split-options-request.md). feira sends `type: "flat"` amounts in cents it computed, so
// both books agree to the cent; the operator's recipient (PAGARME_RECIPIENT_ID) takes the
// remainder, and with it the remainder fee. Pagar.me wants the rules to add up to the charge's
// amount, so the operator's rule is always sent, even when its part is zero cents.

export function pagarmeSplit(split: ProviderSplit, shares: readonly ResolvedShare[], operatorRecipientId: string): Record<string, unknown>[] {
  // The operator pays the processing fee unless a seller's rule takes it, and stays liable in
  // any case (docs/guarantees.md, "Money in provider settlement": "the originator is liable and bears the fee unless a rule
  // says so"; the safe choice, as a seller made liable does not release the marketplace).
  const sellersPayFee = shares.some((s) => s.feeBearer);
  return [
    ...shares.map((s) => ({
      type: "flat", amount: s.amountMinor, recipient_id: s.account,
      options: { liable: s.liable, charge_processing_fee: s.feeBearer, charge_remainder_fee: false },
    })),
    {
      type: "flat", amount: split.operatorMinor, recipient_id: operatorRecipientId,
      options: { liable: true, charge_processing_fee: !sellersPayFee, charge_remainder_fee: true },
    },
  ];
}
