import { code as lookupIso4217 } from "currency-codes";

// Money inside feira is always an integer count of minor units (cents for BRL) held in a
// JS number that must stay a safe integer. Conversions from and to currency units happen
// only at the API edges, through this file, and never multiply or divide floats to get
// minor units: decimals are read from the number's shortest round-trip decimal form.

// Corrections to the `currency-codes` data (ISO list of 2024-06-25).
// - ISO lists "N.A." minor units for metals, bond units, SDR, Sucre, ADB unit, the test
//   code and "no currency"; the package turns "N.A." into 0, which would make XAU look
//   like a chargeable zero-decimal currency. null means "not a currency we accept".
// - XCG (Caribbean guilder, ISO amendment 176, in use from 2025-03-31) is missing.
const EXPONENT_OVERRIDES: Readonly<Record<string, number | null>> = {
  XAG: null, XAU: null, XPD: null, XPT: null,
  XBA: null, XBB: null, XBC: null, XBD: null,
  XDR: null, XSU: null, XUA: null, XTS: null, XXX: null,
  XCG: 2,
};

export function currencyExponent(code: string): number | undefined {
  // Exact uppercase only: the package itself uppercases, and a silent "brl" -> BRL here
  // would let unnormalised codes reach storage.
  if (!/^[A-Z]{3}$/.test(code)) return undefined;
  if (Object.hasOwn(EXPONENT_OVERRIDES, code)) return EXPONENT_OVERRIDES[code] ?? undefined;
  return lookupIso4217(code)?.digits;
}

export interface ExactDecimal {
  // value = coefficient * 10^exponent, exactly
  coefficient: bigint;
  exponent: number;
}

// The exact decimal that a finite double stands for: its shortest round-trip form
// (String(n)), which is what a JSON text like 10.1 or 3.99 meant. Handles exponent
// notation ("1e-7", "1.5e+21"). Returns undefined for NaN and infinities.
export function exactDecimal(n: number): ExactDecimal | undefined {
  if (!Number.isFinite(n)) return undefined;
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(n));
  if (!m) return undefined;
  const [, sign = "", intPart = "0", fracPart = "", expPart = "0"] = m;
  let digits = (intPart + fracPart).replace(/^0+(?=\d)/, "");
  let exponent = Number(expPart) - fracPart.length;
  // Drop trailing zeros so that `exponent` tells the real number of decimals.
  while (digits.length > 1 && digits.endsWith("0")) {
    digits = digits.slice(0, -1);
    exponent += 1;
  }
  if (digits === "0") return { coefficient: 0n, exponent: 0 };
  return { coefficient: BigInt(sign + digits), exponent };
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** `tooLarge` marks an amount above the `maxMinor` ceiling (the API's amount_too_large). */
export type ToMinorResult = { ok: true; minor: number } | { ok: false; message: string; tooLarge?: true };

export interface ToMinorOptions {
  // Smallest accepted amount in currency units (a charge's amount is at least 1).
  minUnits?: number;
  // Name used in messages, for amounts that are not the `amount` field (items[].unit_price).
  field?: string;
  // Largest accepted amount in minor units (maxAmountMinor below); none by default.
  maxMinor?: number;
}

/**
 * The ceiling on what one charge, refund, payout, plan price or payment link may carry, in minor
 * units of each currency: MAX_AMOUNT_MINOR for every currency unless MAX_AMOUNT_MINOR_<CUR> says
 * otherwise (parsed in config.ts). Stripe's default, 99,999,999 minor units (999,999.99 BRL),
 * bounds what a mistyped or hostile amount can move.
 */
export interface AmountLimits {
  defaultMaxMinor: number;
  maxMinorByCurrency: Readonly<Record<string, number>>;
}

export const DEFAULT_MAX_AMOUNT_MINOR = 99_999_999;
export const DEFAULT_AMOUNT_LIMITS: AmountLimits = Object.freeze({ defaultMaxMinor: DEFAULT_MAX_AMOUNT_MINOR, maxMinorByCurrency: Object.freeze({}) });

export function maxAmountMinor(limits: AmountLimits, currency: string): number {
  return Object.hasOwn(limits.maxMinorByCurrency, currency) ? limits.maxMinorByCurrency[currency]! : limits.defaultMaxMinor;
}

/** The message of an amount above the ceiling: "amount must be at most 999999.99 BRL". */
export function aboveCeilingMessage(field: string, maxMinor: number, currency: string): string {
  return `${field} must be at most ${formatMajor(maxMinor, currency)} ${currency}`;
}

export function toMinor(amount: unknown, currency: string, options: ToMinorOptions = {}): ToMinorResult {
  const { minUnits = 1, field = "amount", maxMinor } = options;
  if (!Number.isFinite(minUnits) || minUnits < 0) {
    throw new RangeError(`minUnits must be a finite number >= 0, got ${minUnits}`);
  }
  const exp = currencyExponent(currency);
  if (exp === undefined) return { ok: false, message: `currency ${currency} is not a supported ISO 4217 code` };

  if (typeof amount !== "number") return { ok: false, message: `${field} must be a number` };
  const dec = exactDecimal(amount);
  if (!dec) return { ok: false, message: `${field} must be a finite number` };
  // Comparing two doubles is exact (no arithmetic), and the decimal we accept is the
  // one that round-trips to this very double, so this check cannot be off by a float.
  // With the default minimum this also rejects 0, -0 and negatives; with a minimum of 0,
  // negatives are still rejected and -0 is read as 0.
  if (amount < minUnits) return { ok: false, message: `${field} must be at least ${minUnits}` };
  // maxMinor / 10^exp is the double nearest the largest accepted decimal, the very double that
  // decimal's JSON text parses to, so comparing doubles again cannot be off by a float.
  if (maxMinor !== undefined && amount > maxMinor / 10 ** exp) {
    return { ok: false, message: aboveCeilingMessage(field, maxMinor, currency), tooLarge: true };
  }
  if (-dec.exponent > exp) {
    return {
      ok: false,
      message: exp === 0
        ? `${field} must be a whole number for ${currency}`
        : `${field} must have at most ${exp} decimal places for ${currency}`,
    };
  }
  // Early exit keeps BigInt powers small for inputs like 1e300.
  if (amount > Number.MAX_SAFE_INTEGER) return { ok: false, message: `${field} is too large` };
  const minor = dec.coefficient * 10n ** BigInt(dec.exponent + exp);
  if (minor > MAX_SAFE) return { ok: false, message: `${field} is too large` };
  return { ok: true, minor: Number(minor) };
}

function requireExponent(currency: string): number {
  const exp = currencyExponent(currency);
  // Stored currencies were validated on the way in; reaching this is a bug, not input.
  if (exp === undefined) throw new RangeError(`unknown currency ${currency}`);
  return exp;
}

function requireSafeInteger(minor: number, what: string): void {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`${what} must be a safe integer of minor units, got ${minor}`);
}

// Currency units for API output. Division of two doubles is correctly rounded, so this is
// the double nearest the exact decimal; String() of it gives back that decimal whenever it
// has at most 15 significant digits (|minor| < 10^15, R$ 10 trillion). Above that a JSON
// number cannot carry every cent anyway; use formatMajor when exact text is needed.
export function toMajor(minor: number, currency: string): number {
  requireSafeInteger(minor, "minor");
  const exp = requireExponent(currency);
  const major = minor / 10 ** exp;
  return major === 0 ? 0 : major; // never emit -0
}

// Fixed-decimal text ("10.50", "100" for JPY, "-0.05"), built from digits, not floats.
export function formatMajor(minor: number, currency: string): string {
  requireSafeInteger(minor, "minor");
  const exp = requireExponent(currency);
  const negative = minor < 0;
  const digits = String(Math.abs(minor)).padStart(exp + 1, "0");
  const whole = digits.slice(0, digits.length - exp);
  const text = exp === 0 ? whole : `${whole}.${digits.slice(digits.length - exp)}`;
  return negative ? `-${text}` : text;
}

// numerator / denominator rounded to the nearest integer, ties away from zero (Java's
// HALF_UP): 2.5 -> 3, -2.5 -> -3. Symmetric so that a reversed fee mirrors the original
// one. Fee code builds the exact rational first and calls this once, at the very end.
export function roundHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new RangeError("roundHalfUp: denominator is zero");
  if (denominator < 0n) {
    numerator = -numerator;
    denominator = -denominator;
  }
  const negative = numerator < 0n;
  const abs = negative ? -numerator : numerator;
  let q = abs / denominator;
  if ((abs % denominator) * 2n >= denominator) q += 1n;
  return negative ? -q : q;
}
