import { AppError } from "../../core/errors.js";
import type { LookupResult, PaymentProcessor } from "../../processors/processor.js";
import type { ProviderAccountRef, SellerAccounts } from "../../processors/provider-split.js";
import type { ChargeRow } from "./charges.mapper.js";

// A provider-settled payment that its processor makes on the seller's own account (an adapter
// declaring `sellerOwned`) is the seller's there: every later call about it (its lookups from
// notices, the reconciliation and the expiry, its cancel, its refunds) carries the charge's
// sellers' accounts, their tokens fresh (connect's chargeSellers renews one about to expire).
// One place gives them to every caller.

/** A provider-settled charge's sellers' accounts at its processor (connect's chargeSellers); [] for any other charge. */
export type ChargeSellers = (charge: ChargeRow) => Promise<readonly ProviderAccountRef[]>;

/**
 * What a call to `processor` about `charge` carries of its sellers: their accounts when the
 * processor makes such payments on them, else nothing. Throws connect's 422
 * submerchant_not_at_provider when a seller's authorization has expired or was revoked.
 */
export async function sellersOf(charge: ChargeRow, processor: Pick<PaymentProcessor, "sellerOwned">, sellers: ChargeSellers | undefined): Promise<SellerAccounts> {
  if (!processor.sellerOwned || !sellers) return {};
  const found = await sellers(charge);
  return found.length > 0 ? { sellers: found } : {};
}

/**
 * sellersOf for a reader that must not stop on one charge (a notice, a reconciliation round, the
 * expiry): null when a seller's authorization cannot be had now. The payment is then not read
 * with the application's token instead, which would not find it and could fail a charge whose
 * payment exists (unread).
 */
export async function sellersOrNull(charge: ChargeRow, processor: Pick<PaymentProcessor, "sellerOwned">, sellers: ChargeSellers | undefined): Promise<SellerAccounts | null> {
  try {
    return await sellersOf(charge, processor, sellers);
  } catch (err) {
    if (err instanceof AppError && err.code === "submerchant_not_at_provider") return null;
    throw err;
  }
}

/** A lookup that could not be made: nothing was sent (no seller's token to send it with). */
export const SELLER_UNAUTHORIZED: LookupResult = {
  outcome: "unknown",
  failure: { kind: "connection_refused", message: "the payment is on a seller's account whose authorization has expired or was revoked: the seller must authorize again" },
};
