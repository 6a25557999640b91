import type { PaymentMethodType } from "./processor.js";

// Facts about payment methods that do not depend on the processor: the charges service
// checks a request against them before any processor is called, so a Pix in USD or an
// OXXO voucher in BRL is a 422 and never a processor error.

export type AsyncMethodType = Exclude<PaymentMethodType, "credit_card">;

/** Currencies each method can be charged in; "any" = every currency feira accepts. */
export const METHOD_CURRENCIES: Readonly<Record<PaymentMethodType, string[] | "any">> = {
  credit_card: "any",
  pix: ["BRL"],
  open_finance: ["BRL"],
  qr_code: ["BRL"],
  boleto: ["BRL"],
  bank_transfer: ["BRL"],
  oxxo: ["MXN"],
  spei: ["MXN"],
  pse: ["COP"],
  pix_automatico: ["BRL"],
};

const DAY = 86_400;

/**
 * Seconds until the payment instructions of a charge that settles later expire, when the
 * request does not say. Pix follows BCB's API Pix default (calendario.expiracao = 3600);
 * OXXO follows Stripe's 3-day voucher default; bank redirects (Open Finance, PSE) last as
 * long as a payer plausibly stays on the bank's page. A boleto's expiry is its due date,
 * whose default is the day `now + 3 days` falls on (see instruments.ts).
 */
export const DEFAULT_EXPIRES_IN: Readonly<Record<AsyncMethodType, number>> = {
  pix: 3600,
  open_finance: 900,
  qr_code: 3600,
  boleto: 3 * DAY,
  bank_transfer: 2 * DAY,
  oxxo: 3 * DAY,
  spei: 2 * DAY,
  pse: 900,
  // Open until its debit: issued up to 10 days before the due date (the Central Bank's window).
  pix_automatico: 11 * DAY,
};

/**
 * Largest amount, in minor units, that a method's payment instructions can carry. Pix and
 * EMV QR codes write the amount in field 54 (at most 13 characters: "9999999999.99"); the
 * boleto barcode has 10 digits of centavos; OXXO takes at most 10,000 MXN per voucher
 * (Stripe and Conekta documentation). Larger amounts must be refused with a 422 before
 * authorize(), which throws on them.
 */
export const MAX_AMOUNT_MINOR: Readonly<Partial<Record<PaymentMethodType, number>>> = {
  pix: 999_999_999_999,
  pix_automatico: 999_999_999_999,
  qr_code: 999_999_999_999,
  boleto: 9_999_999_999,
  oxxo: 1_000_000,
};

export function methodAcceptsCurrency(method: PaymentMethodType, currency: string): boolean {
  const allowed = METHOD_CURRENCIES[method];
  return allowed === "any" || allowed.includes(currency);
}

/**
 * The method whose fee a charge pays: a Pix Automático debit settles as a Pix, so it takes the
 * merchant's Pix fee (a merchant's table names the rails it is charged for).
 */
export const feeMethodOf = (method: PaymentMethodType): PaymentMethodType => (method === "pix_automatico" ? "pix" : method);
