import type { SellerAccounts } from "./provider-split.js";

// What a lookup of a charge's payment is given (processor.ts, PaymentProcessor.lookup).

export interface LookupInput extends SellerAccounts {
  /** feira's reference of the payment at the provider: the charge id. */
  chargeId: string;
  /** The provider's id of the payment, when known: an adapter then reads it directly instead of searching. */
  pspRefId?: string | null;
}
