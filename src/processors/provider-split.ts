// A split as a processor takes it in `provider` settlement (CONTRACT.md section 12): the
// sellers' shares in cents, computed by feira (modules/ledger/split.ts), so that the processor's
// books and feira's agree to the cent. Each adapter writes it in its own dialect
// (docs/processors.md, "Split dialects").

/** One seller's share at its account at the processor that takes the charge. */
export interface ProviderShare {
  submerchantId: string;
  /** The seller's account at this processor: Pagar.me's recipient id, Efí's account, Mercado Pago's user id. */
  account: string;
  /** The seller's CNPJ (Efí's split names the favorecido by it). */
  taxId?: string;
  /** Mercado Pago: the seller's OAuth access token, the payment is made on its account. */
  accessToken?: string;
  amountMinor: number;
  /** Answers for chargebacks and refunds at the processor (Pagar.me's `liable`). */
  liable: boolean;
  /** Pays the processor's fee (Pagar.me's `charge_processing_fee`). */
  feeBearer: boolean;
}

export interface ProviderSplit {
  shares: readonly ProviderShare[];
  /** The operator's part: the charge's amount less the shares (fees included). */
  operatorMinor: number;
}
