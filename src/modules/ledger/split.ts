import { roundHalfUp } from "../../lib/money.js";

// Split arithmetic (docs/decisions.md): the shares of a charge's net that go to other merchants of the
// originator's Connect. Pure; amounts in minor units.

export interface SplitRule {
  merchantId: string;
  /** Percent of the net with at most two decimals (12.5 means 12.5 %), validated at the edge. */
  percentage: number;
}

export interface Share {
  owner: string;
  amount: number;
}

const basisPoints = (percentage: number) => BigInt(Math.round(percentage * 100));

/**
 * ROUNDING RULE: each share is net * percentage / 100 rounded half-up to the cent, once, in the
 * order of the rules; a share never exceeds what is left, so the shares never add up to more
 * than the net. The originator keeps the rest: the percentages it did not give away and every
 * rounding remainder cent.
 */
export function splitShares(net: number, rules: readonly SplitRule[] | null | undefined): { shares: Share[]; originator: number } {
  let left = BigInt(net);
  const shares: Share[] = [];
  for (const rule of rules ?? []) {
    let share = roundHalfUp(BigInt(net) * basisPoints(rule.percentage), 10_000n);
    if (share > left) share = left;
    left -= share;
    shares.push({ owner: rule.merchantId, amount: Number(share) });
  }
  return { shares, originator: Number(left) };
}

/**
 * What each recipient gives back when `amount` of a charge's gross is refunded: its share in
 * proportion to the part of the gross refunded, so a full refund takes back exactly the share
 * and the originator bears the fees, which are not returned. Computed on the cumulative refunded
 * amount (share * after / gross - share * before / gross, each rounded half-up), so partial
 * refunds add up to the same cents as one full refund.
 */
/**
 * What the processor collected for a charge: its total when the buyer paid installments with
 * interest, else its amount. Refunds, disputes and chargebacks are of this gross.
 */
export const grossOf = (c: { amount: number; totalAmount?: number | null }): number => c.totalAmount ?? c.amount;

/** The part of a charge's net that is the buyer's interest: the originator's own, never split. */
export const interestOf = (c: { amount: number; totalAmount?: number | null }): number => grossOf(c) - c.amount;

export function refundShares(
  c: { amount: number; net: number; split: readonly SplitRule[] | null | undefined },
  refundedBefore: number,
  amount: number,
): Share[] {
  if (!c.split?.length || c.amount <= 0) return [];
  const gross = BigInt(c.amount);
  const before = BigInt(Math.max(0, Math.min(refundedBefore, c.amount)));
  const after = BigInt(Math.min(c.amount, refundedBefore + amount));
  return splitShares(c.net, c.split).shares.map((s) => {
    const share = BigInt(s.amount);
    const give = roundHalfUp(share * after, gross) - roundHalfUp(share * before, gross);
    return { owner: s.owner, amount: Number(give > 0n ? give : 0n) };
  });
}
