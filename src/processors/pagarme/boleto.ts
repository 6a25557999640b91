import { daysBetween } from "../../lib/calendar.js";
import type { BoletoTerm } from "../instructions.js";

// A boleto's collection terms in Pagar.me's own fields (core v5, `payments[].boleto`), from its
// reference "Boleto" (docs.pagar.me/reference/boleto-1) and the official SDK's models
// (pagarme/pagarme-nodejs-sdk, CreateBoletoPaymentRequest, CreateFineRequest,
// CreateInterestRequest): `fine` and `interest` are `{days, type, amount}`, `type` `flat` (cents)
// or `percentage`, `amount` an integer, interest a rate a month; `max_days_to_pay_past_due` the
// days it stays payable after `due_at`. Neither documents a discount on a boleto (the SDK's
// discounts are a subscription item's), so a discount is refused before any call.

/** The terms Pagar.me's boleto carries (docs/processors.md, "Live boleto terms"). */
export const PAGARME_BOLETO_TERMS: readonly BoletoTerm[] = ["fine", "interest"];

/** Basis points of a stored percent (at most 2 decimals, validated on creation). */
const bpOf = (percent: number) => Math.round(percent * 100);

/** `bp` basis points of `amountMinor`, rounded half up to the cent (as feira's amount due rounds). */
const centsOf = (amountMinor: number, bp: number) => Number((2n * BigInt(amountMinor) * BigInt(bp) + 10_000n) / 20_000n);

function percentOption(value: unknown, key: string): number | null {
  const v = (value as Record<string, unknown> | undefined)?.[key];
  return typeof v === "number" && v > 0 ? v : null;
}

/**
 * `{days, type, amount}` for a percent of the amount: `percentage` when it is a whole percent (the
 * reference types `amount` as an integer), else `flat`, the same percent in cents of this amount.
 * `days: 1`: charged from the first day after the due date, as feira's amount due is.
 */
function rate(amountMinor: number, percent: number): { days: number; type: "flat" | "percentage"; amount: number } {
  const bp = bpOf(percent);
  return bp % 100 === 0
    ? { days: 1, type: "percentage", amount: bp / 100 }
    : { days: 1, type: "flat", amount: centsOf(amountMinor, bp) };
}

/**
 * The boleto's fields for feira's terms (the instrument's options, already validated): `fine`,
 * `interest` and `max_days_to_pay_past_due` (payableUntil - dueDate), each only when the charge has it.
 */
export function pagarmeBoletoTerms(options: Record<string, unknown>, dueDate: string, amountMinor: number): Record<string, unknown> {
  const fine = percentOption(options.fine, "percent");
  const interest = percentOption(options.interest, "monthlyPercent");
  const until = typeof options.payableUntil === "string" ? daysBetween(dueDate, options.payableUntil) : 0;
  return {
    ...(fine !== null ? { fine: rate(amountMinor, fine) } : {}),
    ...(interest !== null ? { interest: rate(amountMinor, interest) } : {}),
    ...(until > 0 ? { max_days_to_pay_past_due: until } : {}),
  };
}

/**
 * A boleto payable after its due date (`max_days_to_pay_past_due`) expires at the end of its last
 * payable day (Brasília), not of the due date the answer's `due_at` gives.
 */
export function payableUntilOf(options: Record<string, unknown>): string | null {
  return typeof options.payableUntil === "string" ? options.payableUntil : null;
}
