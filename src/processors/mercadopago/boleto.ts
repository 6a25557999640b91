import type { BoletoTerm } from "../instructions.js";
import type { InstrumentCheck } from "../processor.js";

// A boleto's collection terms at Mercado Pago (`bolbradesco` through POST /v1/payments). Its
// request documents the due date alone: `date_of_expiration`, the last day the boleto is
// payable (mercadopago/devsite-docs, guides "Boleto bancário"; the official SDK's
// PaymentCreateRequest, mercadopago/sdk-nodejs, its clients/payment/create types, whose
// `payment_method.data` takes only `authentication`). A fine, interest or discount appears only in
// what a payment answers (`payment_method.data.rules`, its clients/payment common types), never
// as something a request sets, so none is sent: each is refused before any call, as is a boleto
// payable after its due date (docs/processors.md, "Live boleto terms").

/** The terms Mercado Pago's boleto carries: none beyond its due date. */
export const MERCADOPAGO_BOLETO_TERMS: readonly BoletoTerm[] = [];

/** 422 text for a boleto payable after its due date, which `date_of_expiration` cannot say; null otherwise. */
export function mercadoPagoBoletoProblem(input: InstrumentCheck): string | null {
  const { dueDate, payableUntil } = input.options;
  if (input.method !== "boleto" || typeof payableUntil !== "string") return null;
  if (typeof dueDate === "string" && payableUntil <= dueDate) return null;
  return "paymentMethod.payableUntil: a boleto payable after its due date is not served by processor mercadopago";
}
