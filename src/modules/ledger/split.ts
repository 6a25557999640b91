import type { StoredSplitRule } from "../../db/schema/statuses.js";
import { currencyExponent, exactDecimal, roundHalfUp } from "../../lib/money.js";

// Split arithmetic (docs/guarantees.md, "Split"): the shares of a charge that go to other merchants of
// the originator's Connect. Pure; amounts in minor units. The rules are stored as the API takes
// them (a fixed `amount` in currency units of the charge's currency: a default split has no
// currency of its own), and converted here, once, with the charge's currency.

/** A rule as stored and as the API takes it (src/db/schema/statuses.ts says what each field does). */
export type SplitRule = StoredSplitRule;

export interface Share {
  owner: string;
  amount: number;
}

/** What the shares are computed from: the gross (the charge's amount), its net after fees, both minor units. */
export interface SplitBasis {
  amount: number;
  net: number;
  currency: string;
}

/** A rule that asks for more than the charge can pay: `split.N.<field>` names it. */
export interface SplitOverflow {
  index: number;
  field: "amount" | "percentage" | "feeBearer";
  message: string;
}

/** A fixed amount in minor units of `currency`, or undefined when it is not a whole number of them. */
export function fixedMinor(amount: number, currency: string): number | undefined {
  const exp = currencyExponent(currency);
  const dec = exactDecimal(amount);
  if (exp === undefined || !dec || dec.coefficient <= 0n || -dec.exponent > exp) return undefined;
  return Number(dec.coefficient * 10n ** BigInt(dec.exponent + exp));
}

const basisPoints = (percentage: number) => BigInt(Math.round(percentage * 100));
const bearsFee = (rules: readonly SplitRule[]) => rules.some((r) => r.feeBearer === true);

/**
 * Each rule's share before it is cut to what is left: the fixed amount, or the percentage of
 * the base rounded half-up to the cent; then, when some rule is the fee bearer, the fee
 * (gross - net) taken from the fee bearers' shares in proportion to them (half-up, the last
 * bearer the rest, never below zero). Null for a fixed amount in the wrong precision.
 */
function rawShares(c: SplitBasis, rules: readonly SplitRule[]): { raw: bigint[]; feeLeft: bigint } {
  // Without a fee bearer every share is of the net (the fee already out: the rule of feira
  // before fixed amounts, kept); with one, of the gross, the bearers paying the fee.
  const base = BigInt(bearsFee(rules) ? c.amount : c.net);
  const raw = rules.map((r) => (r.amount !== undefined
    ? BigInt(fixedMinor(r.amount, c.currency) ?? 0)
    : roundHalfUp(base * basisPoints(r.percentage ?? 0), 10_000n)));
  let feeLeft = bearsFee(rules) ? BigInt(Math.max(0, c.amount - c.net)) : 0n;
  const bearers = rules.flatMap((r, i) => (r.feeBearer ? [i] : []));
  const weight = bearers.reduce((s, i) => s + raw[i]!, 0n);
  const fee = feeLeft;
  for (const [k, i] of bearers.entries()) {
    const last = k === bearers.length - 1;
    let take = last || weight === 0n ? feeLeft : roundHalfUp(fee * raw[i]!, weight);
    if (take > feeLeft) take = feeLeft;
    if (take > raw[i]!) take = raw[i]!;
    raw[i] = raw[i]! - take;
    feeLeft -= take;
  }
  return { raw, feeLeft };
}

/**
 * ROUNDING RULE: each share is computed once, in the order of the rules: a fixed amount as
 * given, a percentage of the base (the net; the gross when a rule is the fee bearer) rounded
 * half-up to the cent; the fee bearers' shares then give the fee. A share never exceeds what is
 * left of the net, so the shares never add up to more than the net; the originator keeps the
 * rest (what was not given away and every rounding remainder cent): shares + originator = net.
 */
export function splitShares(c: SplitBasis, rules: readonly SplitRule[] | null | undefined): { shares: Share[]; originator: number } {
  let left = BigInt(Math.max(0, c.net));
  const list = rules ?? [];
  const { raw } = rawShares(c, list);
  const shares = list.map((rule, i) => {
    let share = raw[i]!;
    if (share > left) share = left;
    left -= share;
    return { owner: rule.merchantId, amount: Number(share) };
  });
  return { shares, originator: Number(left) };
}

/**
 * The first rule that asks for more than the charge can pay, or null: a fixed amount not in the
 * currency's precision; fixed amounts beyond what the percentages leave of the base (exactly, before
 * rounding: a percentage rounded up by a cent is cut, as ever, not refused); a fee the fee
 * bearers' shares cannot pay. Checked before the processor is called (the 422 names the field).
 */
export function splitOverflow(c: SplitBasis, rules: readonly SplitRule[] | null | undefined): SplitOverflow | null {
  const list = rules ?? [];
  for (const [i, r] of list.entries()) {
    if (r.amount !== undefined && fixedMinor(r.amount, c.currency) === undefined) {
      return { index: i, field: "amount", message: `must be a positive amount with at most ${currencyExponent(c.currency) ?? 0} decimal places for ${c.currency}` };
    }
  }
  const base = BigInt(bearsFee(list) ? c.amount : c.net);
  let percent = 0n;
  let fixed = 0n;
  for (const [i, r] of list.entries()) {
    if (r.amount !== undefined) fixed += BigInt(fixedMinor(r.amount, c.currency)!);
    else percent += basisPoints(r.percentage ?? 0);
    // fixed + base * percent / 10000 > base, exactly.
    if (fixed * 10_000n + base * percent > base * 10_000n) {
      const what = bearsFee(list) ? "the charge's amount" : "the charge's net (its amount less fees)";
      return { index: i, field: r.amount !== undefined ? "amount" : "percentage", message: `asks for more than ${what} can pay: the shares up to this rule exceed ${base} minor units` };
    }
  }
  const { feeLeft } = rawShares(c, list);
  if (feeLeft > 0n) {
    const i = list.findIndex((r) => r.feeBearer === true);
    return { index: i, field: "feeBearer", message: `the fee bearers' shares cannot pay the charge's fee of ${c.amount - c.net} minor units` };
  }
  return null;
}

/**
 * What each recipient gives back when `amount` of a charge's gross is refunded: its share in
 * proportion to the part of the gross refunded, so a full refund takes back exactly the share
 * and the originator bears the fees, which are not returned. Computed on the cumulative refunded
 * amount (share * after / gross - share * before / gross, each rounded half-up), so partial
 * refunds add up to the same cents as one full refund. Who actually gives it (the `liable`
 * rules) is reversals.ts's to decide.
 */
/** What a payer paid of a charge with terms, in parts (minor units): principal - discount + fine + interest. */
export interface PaidParts {
  principal: number;
  discount: number;
  fine: number;
  interest: number;
}

/** The parts of a charge a reversal is of: its price, the buyer's installment total, what was paid by terms. */
export interface GrossBasis {
  amount: number;
  totalAmount?: number | null;
  paidBreakdown?: PaidParts | null;
}

/**
 * What the payer paid beyond the price: a late boleto's or Pix's fine and interest, less an early
 * payment's discount (negative then). The originator's alone: never split, no fee.
 */
export const collectedOf = (c: Pick<GrossBasis, "paidBreakdown">): number =>
  c.paidBreakdown ? c.paidBreakdown.fine + c.paidBreakdown.interest - c.paidBreakdown.discount : 0;

/**
 * What the processor collected for a charge: its total when the buyer paid installments with
 * interest, else its amount, and what the payer paid beyond it or under it (collectedOf).
 * Refunds, disputes and chargebacks are of this gross: a charge paid late with a fine refunds
 * the fine too, and one paid with a discount never refunds more than was paid.
 */
export const grossOf = (c: GrossBasis): number => (c.totalAmount ?? c.amount) + collectedOf(c);

/** The part of a charge's net that is the buyer's installment interest: the originator's own, never split. */
export const interestOf = (c: Pick<GrossBasis, "amount" | "totalAmount">): number => (c.totalAmount ?? c.amount) - c.amount;

export function refundShares(
  c: SplitBasis & { split: readonly SplitRule[] | null | undefined },
  refundedBefore: number,
  amount: number,
): Share[] {
  if (!c.split?.length || c.amount <= 0) return [];
  const gross = BigInt(c.amount);
  const before = BigInt(Math.max(0, Math.min(refundedBefore, c.amount)));
  const after = BigInt(Math.min(c.amount, refundedBefore + amount));
  return splitShares(c, c.split).shares.map((s) => {
    const share = BigInt(s.amount);
    const give = roundHalfUp(share * after, gross) - roundHalfUp(share * before, gross);
    return { owner: s.owner, amount: Number(give > 0n ? give : 0n) };
  });
}

/**
 * Who gives back `amount` of the gross (a refund, a dispute, a chargeback), originator first:
 * each party's own part (refundShares; the originator the rest, fees included), then the parts
 * of the parties that are not liable moved onto those that are, in proportion to their own
 * parts (half-up, the last liable party the rest). LIABILITY: with no `liable` in the rules every
 * party is liable for its own part (feira's rule before the flag); a rule with `liable: true`
 * makes its recipients the only liable parties (the originator included no longer); rules with
 * only `liable: false` leave the originator and the other recipients liable.
 */
export function reversalParts(
  c: SplitBasis & { merchantId: string; split: readonly SplitRule[] | null | undefined },
  before: number,
  amount: number,
): Share[] {
  const rules = c.split ?? [];
  const recipients = refundShares(c, before, amount);
  const parts = [{ owner: c.merchantId, amount: amount - recipients.reduce((s, r) => s + r.amount, 0) }, ...recipients];
  const someTrue = rules.some((r) => r.liable === true);
  const liable = [!someTrue, ...rules.map((r) => r.liable === true || (r.liable === undefined && !someTrue))];
  const moved = parts.reduce((s, p, i) => (liable[i] ? s : s + p.amount), 0);
  if (moved === 0) return parts;
  const takers = parts.flatMap((p, i) => (liable[i] ? [i] : []));
  const weight = takers.reduce((s, i) => s + parts[i]!.amount, 0);
  let left = moved;
  const out = parts.map((p, i) => ({ owner: p.owner, amount: liable[i] ? p.amount : 0 }));
  for (const [k, i] of takers.entries()) {
    const take = k === takers.length - 1 || weight <= 0 ? left : Math.min(left, Number(roundHalfUp(BigInt(moved) * BigInt(parts[i]!.amount), BigInt(weight))));
    out[i]!.amount += take;
    left -= take;
    if (left === 0) break;
  }
  return out;
}
