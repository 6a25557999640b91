import { BRAZIL_TIME_ZONE, endOfDay } from "../calendar.js";
import { boletoDueDate, statementDescriptor, toDecimal, unservedTerms } from "../instructions.js";
import { documentProblem, providerDocument } from "../documents.js";
import type { AuthorizeInput, CardInstrument, CustomerInput, InstrumentCheck } from "../processor.js";
import { MERCADOPAGO_DOCUMENTS } from "./documents.js";
import { MERCADOPAGO_BOLETO_TERMS, mercadoPagoBoletoProblem } from "./boleto.js";

// feira's authorization -> Mercado Pago's POST /v1/card_tokens and POST /v1/payments bodies
// (wire names). `external_reference` is feira's charge id, the reference lookups search by.

const digits = (s: string | null | undefined) => (s ?? "").replace(/\D/g, "");

/** Mercado Pago's Pix expiry must be 30 minutes to 30 days ahead. */
/**
 * statement_descriptor of POST /v1/payments: at most 22 characters (the Payments API reference, as
 * the official SDK's create() documents it; Checkout Pro's preferences take fewer, docs/processors.md).
 */
export const MERCADOPAGO_STATEMENT_DESCRIPTOR_MAX = 22;

export const PIX_MIN_SECONDS = 30 * 60;
export const PIX_MAX_SECONDS = 30 * 86_400;

/** feira brand ids -> Mercado Pago payment_method_id of a card. */
export const MERCADOPAGO_CARD_METHODS: Readonly<Record<string, string>> = {
  visa: "visa", mastercard: "master", amex: "amex", elo: "elo", hipercard: "hipercard", hiper: "hipercard", diners: "diners",
};

export function checkMercadoPagoInstrument(input: InstrumentCheck): string | null {
  const terms = unservedTerms(input, "mercadopago", { pixDueDate: false, boletoTerms: MERCADOPAGO_BOLETO_TERMS }) ?? mercadoPagoBoletoProblem(input);
  if (terms) return terms;
  const c = input.customer;
  if (!c?.email) return `customer.email is required for a ${input.method} payment through mercadopago`;
  if (input.method === "pix") {
    const expiresIn = input.options.expiresIn;
    if (typeof expiresIn === "number" && (expiresIn < PIX_MIN_SECONDS || expiresIn > PIX_MAX_SECONDS)) {
      return `paymentMethod.expiresIn must be between ${PIX_MIN_SECONDS} and ${PIX_MAX_SECONDS} seconds for a Pix through mercadopago`;
    }
  }
  const documentIssue = documentProblem(MERCADOPAGO_DOCUMENTS, input.method, c);
  if (documentIssue) return documentIssue;
  if (input.method === "boleto") {
    // The boleto names its payer: Mercado Pago asks for a first and a last name.
    if (c.name.trim().split(/\s+/).length < 2) return "customer.name must have a first and a last name for a boleto through mercadopago";
    const a = c.address;
    if (!a || !a.postalCode || !a.street || !a.number || !a.neighborhood || !a.city || !a.state) {
      return "customer.address (postalCode, street, number, neighborhood, city, state) is required for a boleto through mercadopago";
    }
  }
  return null;
}

/** Mercado Pago's documented date form: `2026-05-30T23:59:59.000-03:00` (Brasília, no DST). */
export function brasiliaDateTime(instant: Date): string {
  return new Date(instant.getTime() - 3 * 3_600_000).toISOString().replace("Z", "-03:00");
}

/** `identification` of a payer or cardholder: a document Mercado Pago takes, else left out. */
function identificationOf(c: CustomerInput | null): Record<string, unknown> {
  const document = providerDocument(MERCADOPAGO_DOCUMENTS, c);
  return document ? { identification: { type: document.type, number: document.number } } : {};
}

function payerOf(c: CustomerInput | null): Record<string, unknown> {
  const [first, ...rest] = (c?.name ?? "").trim().split(/\s+/);
  const a = c?.address;
  return {
    email: c?.email ?? undefined,
    ...(first ? { first_name: first } : {}),
    ...(rest.length > 0 ? { last_name: rest.join(" ") } : {}),
    ...identificationOf(c),
    ...(a ? {
      address: {
        zip_code: digits(a.postalCode), street_name: a.street, street_number: a.number,
        neighborhood: a.neighborhood, city: a.city, federal_unit: a.state,
      },
    } : {}),
  };
}

export function cardTokenBody(card: CardInstrument, customer: CustomerInput | null): Record<string, unknown> {
  return {
    card_number: card.number,
    ...(card.cvv ? { security_code: card.cvv } : {}),
    expiration_month: Number(card.expirationMonth),
    expiration_year: Number(card.expirationYear),
    cardholder: { name: card.holderName, ...identificationOf(customer) },
  };
}

export function paymentBody(input: AuthorizeInput, cardToken?: string): Record<string, unknown> {
  const common = {
    transaction_amount: toDecimal(input.amountMinor),
    description: input.description || `Charge ${input.chargeId}`,
    external_reference: input.chargeId,
    payer: payerOf(input.customer),
    metadata: { feira_charge_id: input.chargeId, feira_merchant_id: input.merchant.id },
  };
  const { instrument } = input;
  if (instrument.kind === "card") {
    const method = MERCADOPAGO_CARD_METHODS[instrument.brand];
    const descriptor = statementDescriptor(input.merchant.softDescriptor, MERCADOPAGO_STATEMENT_DESCRIPTOR_MAX);
    return {
      ...common,
      ...(descriptor ? { statement_descriptor: descriptor } : {}),
      token: cardToken,
      installments: instrument.installments,
      ...(method ? { payment_method_id: method } : {}),
      ...(instrument.threeDSMode === "managed" ? { three_d_secure_mode: "optional" } : {}),
    };
  }
  if (instrument.kind === "pix") {
    return { ...common, payment_method_id: "pix", date_of_expiration: brasiliaDateTime(new Date(input.now.getTime() + instrument.expiresIn * 1000)) };
  }
  if (instrument.kind === "boleto") {
    const due = boletoDueDate(instrument.options, instrument.expiresIn, input.now);
    return { ...common, payment_method_id: "bolbradesco", date_of_expiration: brasiliaDateTime(endOfDay(due, BRAZIL_TIME_ZONE)) };
  }
  throw new Error(`mercadopago does not serve ${instrument.kind}`);
}
