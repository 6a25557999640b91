import { aboveCeilingMessage, currencyExponent, formatMajor, maxAmountMinor, toMinor, type AmountLimits } from "../lib/money.js";
import { AppError, invalid } from "./errors.js";

// Amounts at the API's edge: currency units in, integer minor units out, each within the
// ceiling of its currency (AmountLimits, config.ts). An amount above it is a 422
// amount_too_large naming the field; any other problem is the usual validation_failed.

export interface AmountOptions {
  field?: string;
  /** Smallest accepted amount in currency units; 1 by default (toMinor). */
  minUnits?: number;
}

/** Currency units from a request as integer minor units, or the 422 naming the field. */
export function amountToMinor(amount: unknown, currency: string, limits: AmountLimits, options: AmountOptions = {}): number {
  const max = maxAmountMinor(limits, currency);
  const m = toMinor(amount, currency, { ...options, maxMinor: max });
  if (!m.ok) throw m.tooLarge ? new AppError("amount_too_large", m.message, { max: { minor: max, currency } }) : new AppError("validation_failed", m.message);
  return m.minor;
}

/**
 * An amount already in minor units (payouts are integer cents, `minorUnits` words the maximum
 * so) or a total computed from others (`totalOf` says of what: "the products and freight").
 */
export function checkAmountCeiling(
  minor: number, currency: string, limits: AmountLimits, field: string, opts: { totalOf?: string; minorUnits?: boolean } = {},
): void {
  const max = maxAmountMinor(limits, currency);
  if (minor <= max) return;
  const maxText = `${formatMajor(max, currency)} ${currency}`;
  const message = opts.totalOf
    ? `${field}: the total of ${opts.totalOf} is ${formatMajor(minor, currency)} ${currency}, above the maximum amount of ${maxText}`
    : opts.minorUnits
      ? `${field} must be at most ${max} (in minor units: ${maxText})`
      : aboveCeilingMessage(field, max, currency);
  throw new AppError("amount_too_large", message, { max: { minor: max, currency } });
}

/** An amount and its currency from a request (a plan's price), within the ceiling of its currency. */
export function normalizeMoney(amount: unknown, rawCurrency: string, limits: AmountLimits, field = "amount"): { amountMinor: number; currency: string } {
  const currency = rawCurrency.toUpperCase();
  if (currencyExponent(currency) === undefined) throw invalid(`currency ${rawCurrency} is not a supported ISO 4217 code`);
  return { amountMinor: amountToMinor(amount, currency, limits, { field }), currency };
}
