import { exactDecimal, roundHalfUp } from "../../lib/money.js";

// Pure fee arithmetic for charges (spread, anticipation_fee_estimated, net) and
// payouts (payoutFee, netAmount). Amounts are integer minor units; fee definitions are as stored
// (the shape fees-info shows): `fixed` in cents, `percentages` as percent values (3.99 means 3.99 %).

export type FeeType = "tx_spread" | "anticipation" | "payout";

export interface FeeDefinition {
  feeType: FeeType;
  paymentMethod: string;
  currencyCode: string;
  brand: string | null;
  definition: {
    fixed: number;
    // index 0 = single payment ... index 11 = 12 installments
    percentages: number[];
  };
}

export interface FeeQuery {
  feeType: FeeType;
  paymentMethod: string;
  currencyCode: string;
  brand?: string | null;
}

// A brand-specific definition wins over the default (brand null) of the same type, method
// and currency. Brand and currency compare case-insensitively; the payment method is an
// API enum and compares exactly. If duplicates were stored, the first one wins.
export function selectFee(fees: readonly FeeDefinition[], q: FeeQuery): FeeDefinition | undefined {
  const currency = q.currencyCode.toUpperCase();
  const brand = q.brand ? q.brand.toLowerCase() : null;
  let fallback: FeeDefinition | undefined;
  for (const f of fees) {
    if (f.feeType !== q.feeType || f.paymentMethod !== q.paymentMethod) continue;
    if (f.currencyCode.toUpperCase() !== currency) continue;
    if (f.brand === null) {
      fallback ??= f;
    } else if (brand !== null && f.brand.toLowerCase() === brand) {
      return f;
    }
  }
  return fallback;
}

// Percentage for an installment count; a shorter array means "the last rate applies to
// every higher count", and an empty one means no percentage at all.
export function percentFor(def: FeeDefinition, installments: number): number {
  if (!Number.isInteger(installments) || installments < 1) {
    throw new RangeError(`installments must be an integer >= 1, got ${installments}`);
  }
  const p = def.definition.percentages;
  if (p.length === 0) return 0;
  return p[Math.min(installments, p.length) - 1] ?? 0;
}

function requireAmount(amountMinor: number): bigint {
  if (!Number.isSafeInteger(amountMinor) || amountMinor < 0) {
    throw new RangeError(`amount must be a non-negative safe integer of minor units, got ${amountMinor}`);
  }
  return BigInt(amountMinor);
}

function decimalOf(value: number, what: string) {
  const d = exactDecimal(value);
  // Fee definitions are validated when stored (PUT .../fees); a bad one here is a bug.
  if (!d || d.coefficient < 0n) throw new RangeError(`${what} must be a finite number >= 0, got ${value}`);
  return d;
}

// ROUNDING RULE: fee = fixed + amount * percent / 100 is built as one
// exact fraction over a power of ten. The percentage is taken as the decimal it was
// written as (3.99 -> 399 / 10^2, read from its shortest decimal text, never multiplied as
// a float), and so is `fixed`. The fraction is rounded to the cent ONCE, half-up (ties away
// from zero, so 1.5 % of 100 cents = 1.5 -> 2), at the end of each fee. Fixed and
// percentage parts are never rounded separately.
export function feeFor(fixed: number, percent: number, amountMinor: number): bigint {
  const amount = requireAmount(amountMinor);
  const f = decimalOf(fixed, "fixed");
  const p = decimalOf(percent, "percentage");
  // amount * (p.c * 10^p.e) / 100 = amount * p.c * 10^(p.e - 2)
  const pExp = p.exponent - 2;
  const scale = Math.max(0, -pExp, -f.exponent);
  const numerator =
    f.coefficient * 10n ** BigInt(f.exponent + scale) +
    amount * p.coefficient * 10n ** BigInt(pExp + scale);
  return roundHalfUp(numerator, 10n ** BigInt(scale));
}

export interface ChargeFeeQuery {
  amountMinor: number;
  currency: string;
  paymentMethod: string;
  brand?: string | null;
  installments: number;
}

export interface ChargeFees {
  spread: number;
  anticipationFee: number;
  net: number;
}

export function computeChargeFees(fees: readonly FeeDefinition[], q: ChargeFeeQuery): ChargeFees {
  const amount = requireAmount(q.amountMinor);
  const base = { paymentMethod: q.paymentMethod, currencyCode: q.currency, brand: q.brand ?? null };

  // A missing definition means the merchant has no such fee: 0, not an error.
  const spreadDef = selectFee(fees, { ...base, feeType: "tx_spread" });
  let spread = spreadDef
    ? feeFor(spreadDef.definition.fixed, percentFor(spreadDef, q.installments), q.amountMinor)
    : 0n;

  // Anticipation (receiving card installments up front) exists only for credit cards.
  const anticipationDef = q.paymentMethod === "credit_card"
    ? selectFee(fees, { ...base, feeType: "anticipation" })
    : undefined;
  let anticipation = anticipationDef
    ? feeFor(anticipationDef.definition.fixed, percentFor(anticipationDef, q.installments), q.amountMinor)
    : 0n;

  // Invariant: net >= 0. A sale must never debit the merchant, so when the fees exceed
  // the amount (tiny charges with a large fixed part) they are capped: the spread is
  // taken first, the anticipation fee gets what is left, and net is 0.
  if (spread > amount) spread = amount;
  if (anticipation > amount - spread) anticipation = amount - spread;

  return {
    spread: Number(spread),
    anticipationFee: Number(anticipation),
    net: Number(amount - spread - anticipation),
  };
}

export type PayoutFeeResult =
  | { ok: true; payoutFee: number; netAmount: number }
  | { ok: false; message: string };

// Payout fee: totalFee = fixed + amount * variable / 100, variable = percentages[0]; same
// rounding rule as charges. Unlike charges, a payout whose fee eats the whole amount is
// refused rather than capped: transferring 0 (or less) by Pix is not a payout.
export function computePayoutFee(def: FeeDefinition | undefined, amountMinor: number): PayoutFeeResult {
  if (!def) return { ok: false, message: "no payout fee is configured for this submerchant" };
  const amount = requireAmount(amountMinor);
  const fee = feeFor(def.definition.fixed, percentFor(def, 1), amountMinor);
  if (fee >= amount) {
    return { ok: false, message: `amount must be greater than the payout fee of ${fee} cents` };
  }
  return { ok: true, payoutFee: Number(fee), netAmount: Number(amount - fee) };
}

// Splits a total into `installments` integer parts that sum exactly to the total. The
// FIRST part absorbs the remainder (1000 in 3 -> [334, 333, 333]), the convention of
// Brazilian card acquirers, so every later installment is the same and the first is at
// most installments - 1 cents larger.
export function splitInstallments(totalMinor: number, installments: number): number[] {
  if (!Number.isSafeInteger(totalMinor) || totalMinor < 0) {
    throw new RangeError(`total must be a non-negative safe integer of minor units, got ${totalMinor}`);
  }
  if (!Number.isInteger(installments) || installments < 1) {
    throw new RangeError(`installments must be an integer >= 1, got ${installments}`);
  }
  // `%` on integers is exact, so the division below is exact too (no float floor).
  const part = (totalMinor - (totalMinor % installments)) / installments;
  const parts = new Array<number>(installments).fill(part);
  parts[0] = totalMinor - part * (installments - 1);
  return parts;
}
