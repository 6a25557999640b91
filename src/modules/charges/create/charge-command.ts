import type { Static } from "typebox";
import { AppError } from "../../../core/errors.js";
import { amountToMinor, checkAmountCeiling } from "../../../core/amounts.js";
import { currencyExponent, type AmountLimits } from "../../../lib/money.js";
import type { CreateChargeBody } from "../charges.schemas.js";
import type { PaymentMethodCommand } from "./payment-methods.schemas.js";

type Body = Static<typeof CreateChargeBody>;

/**
 * A charge to make, as every caller of the charge path states it: the API (from a request body,
 * converted once by commandFromBody), a subscription's billing and a payment link's checkout
 * (built directly). Amounts are integer minor units; the fields after `split` are the server's
 * own and never come from a client's body.
 */
export interface ChargeCommand {
  amountMinor: number;
  /** ISO 4217, upper-case. */
  currency: string;
  customer: Body["customer"];
  /** A body's method, or one only the server makes (a Pix Automático debit). */
  paymentMethod: PaymentMethodCommand;
  items?: Body["items"];
  shippingAddress?: Body["shippingAddress"];
  trackingInfo?: Body["trackingInfo"];
  metadata?: Body["metadata"];
  postbackUrl?: string;
  /** The charge's own split; undefined takes the merchant's default split, [] none. */
  split?: Body["split"];
  /** A payment link's freight, re-quoted by the server (null for pickup). */
  freight?: { amountMinor: number | null; details: Record<string, unknown> | null };
  /** The payment link the buyer paid through. */
  paymentLinkId?: string;
  /** The subscription whose period this charge bills (the billing engine only). */
  subscriptionId?: string;
  /**
   * Served by the processor of live Pix Automático mandates (`pix_automatico=`), whatever the
   * method's route: journey 3's first Pix, which the mandate's recurrence names (the billing engine only).
   */
  mandateProcessor?: true;
}

/** A supported currency, upper-cased, or the 422 naming `field`. */
export function chargeCurrency(raw: string, field = "currency"): string {
  const currency = raw.toUpperCase();
  if (currencyExponent(currency) === undefined) throw new AppError("currency_not_supported", `${field} ${raw} is not a supported ISO 4217 code`);
  return currency;
}

/** POST /v1/charges: the body in currency units as the command, converted here and only here. */
export function commandFromBody(body: Body, limits: AmountLimits): ChargeCommand {
  const currency = chargeCurrency(body.currency);
  const { amount: _amount, currency: _currency, ...rest } = body;
  return { ...rest, amountMinor: amountToMinor(body.amount, currency, limits, { field: "amount" }), currency };
}

/**
 * The amount of a command built by the server (a plan's price, a link's total): a positive
 * integer of minor units within the currency's ceiling. The API's own conversion checks the same.
 */
export function checkCommandAmount(cmd: Pick<ChargeCommand, "amountMinor" | "currency">, limits: AmountLimits): void {
  chargeCurrency(cmd.currency);
  if (!Number.isSafeInteger(cmd.amountMinor) || cmd.amountMinor < 1) {
    throw new AppError("validation_failed", `amount must be a positive whole number of minor units, not ${cmd.amountMinor}`);
  }
  checkAmountCeiling(cmd.amountMinor, cmd.currency, limits, "amount", { minorUnits: true });
}
