import type { Queryable } from "../../db/client.js";
import type { RequestCtx } from "../../core/context.js";
import { AppError } from "../../core/errors.js";
import type { ProviderAccountRef } from "../../processors/provider-split.js";
import { findSubmerchant, type ConnectAccount } from "./connect.repo.js";
import { activeProviderAccount } from "./provider-accounts.repo.js";
import type { SellerTokens } from "./seller-tokens.js";
import type { SplitRule } from "./split-rules.js";

// Provider settlement, at the charge's check (docs/guarantees.md, "Money in provider settlement"): a checked split goes to
// the processor with each seller's account there, or the charge is refused before any call
// and nothing is written. `candidates` are the processors the charge's route would try, the
// chosen one first: the chosen one must take the split; a failover only goes to those that can
// (router.ts skips the others).

/** A split's sellers' accounts per processor, for a charge in provider settlement (the caller knows it is). */
export type SplitAccounts = ReadonlyMap<string, Readonly<Record<string, ProviderAccountRef>>>;

export async function providerSplitAccounts(
  q: Queryable, ctx: Pick<RequestCtx, "environment">, originator: ConnectAccount, split: readonly SplitRule[], candidates: readonly string[],
  route: { sendsSplit: (processor: string) => boolean; splitSellers: (processor: string) => number | undefined },
  fresh: SellerTokens["fresh"],
): Promise<SplitAccounts | null> {
  const root = originator.parentId ?? originator.id;
  if (split.length === 0) return null;
  const chosen = candidates[0];
  if (!chosen) return null;
  if (!route.sendsSplit(chosen)) {
    throw new AppError("split_not_supported", `${chosen}, the processor of this charge, does not carry a split of this payment method in provider settlement: route this method to a processor that does, or use platform settlement`);
  }
  // A processor that makes the payment on the seller's own account takes one seller per payment.
  const most = route.splitSellers(chosen);
  if (most !== undefined && split.length > most) {
    throw new AppError("split_not_supported", `${chosen}, the processor of this charge, takes at most ${most} seller${most === 1 ? "" : "s"} per payment in provider settlement (the payment is made on the seller's own account); this split names ${split.length}: split the sale into one charge per seller, or route this method to a processor that takes several`);
  }
  const accounts = new Map<string, Record<string, ProviderAccountRef>>();
  for (const [i, rule] of split.entries()) {
    // The master's own share is the operator's: its money is the operator's account at the processor.
    if (rule.merchantId === root) {
      throw new AppError("split_not_supported", `split.${i}.merchantId ${rule.merchantId} is the master: in provider settlement the master's part is the operator's remainder at the processor, not a share`);
    }
    const at: Record<string, ProviderAccountRef> = {};
    // The seller's CNPJ travels with its account: a processor may name the payee by both (Efí's favorecido).
    const seller = await findSubmerchant(q, { merchantId: root, environment: ctx.environment }, rule.merchantId);
    const taxId = seller?.companyTaxId.replace(/[^0-9A-Za-z]/g, "").toUpperCase();
    for (const processor of candidates) {
      const found = await activeProviderAccount(q, { submerchantId: rule.merchantId, processor, environment: ctx.environment });
      // A seller authorized by OAuth: its token, fresh, for the calls made on its account.
      if (found) at[processor] = { ...(await fresh(found)), ...(taxId ? { taxId } : {}) };
    }
    if (!at[chosen]) {
      throw new AppError("submerchant_not_at_provider", `split.${i}.merchantId ${rule.merchantId} has no active account at ${chosen}, the processor of this charge: create it with POST /v1/submerchants/${rule.merchantId}/provider-accounts {processor: "${chosen}"}`);
    }
    accounts.set(rule.merchantId, at);
  }
  return accounts;
}
