import { BRAZIL_TIME_ZONE, endOfDay } from "../calendar.js";
import { boletoDueDate, brazilianPhone, statementDescriptor, unservedTerms } from "../instructions.js";
import { documentProblem, providerDocument } from "../documents.js";
import type { AuthorizeInput, CustomerInput, InstrumentCheck } from "../processor.js";
import { PAGARME_DOCUMENTS, PAGARME_PERSON_TYPE } from "./documents.js";
import { sharesAt } from "../provider-split.js";
import { pagarmeSplit } from "./split.js";
import { PAGARME_BOLETO_TERMS, pagarmeBoletoTerms } from "./boleto.js";

// feira's authorization -> the body of Pagar.me's POST /orders (wire names). One order, one
// item (the charge), one payment; `code` is feira's charge id, the reference lookups search by.

const digits = (s: string | null | undefined) => (s ?? "").replace(/\D/g, "");

/**
 * credit_card.statement_descriptor: at most 13 characters for PSP clients, 22 for gateway ones
 * (Pagar.me's "Cartão de crédito" reference); feira does not know which contract it runs under,
 * so it keeps to the shorter (docs/processors.md, "Soft descriptor").
 */
export const PAGARME_STATEMENT_DESCRIPTOR_MAX = 13;

/** Pix needs the payer's phone (Pagar.me's Pix request sends `customer.phones`); documents per documents.ts. */
export function checkPagarmeInstrument(input: InstrumentCheck): string | null {
  const terms = unservedTerms(input, "pagarme", { pixDueDate: false, boletoTerms: PAGARME_BOLETO_TERMS });
  if (terms) return terms;
  if (input.method === "pix" && !brazilianPhone(input.customer?.phone)) {
    return "customer.phone is required for a Pix through pagarme (a Brazilian number with area code)";
  }
  return documentProblem(PAGARME_DOCUMENTS, input.method, input.customer);
}

function customerOf(c: CustomerInput | null, chargeId: string): Record<string, unknown> {
  const document = providerDocument(PAGARME_DOCUMENTS, c);
  const phone = brazilianPhone(c?.phone);
  const address = c?.address;
  return {
    name: c?.name || "Cliente",
    // Pagar.me wants an e-mail; a customer known only by phone gets one that names the charge.
    email: c?.email || `${chargeId}@customers.feira.invalid`,
    type: PAGARME_PERSON_TYPE[document?.type ?? "CPF"],
    ...(document ? { document: document.number, document_type: document.type } : {}),
    ...(phone ? { phones: { mobile_phone: { country_code: phone.countryCode, area_code: phone.areaCode, number: phone.number } } } : {}),
    ...(address ? { address: addressOf(address) } : {}),
  };
}

function addressOf(a: NonNullable<CustomerInput["address"]>): Record<string, unknown> {
  return {
    // Pagar.me's line_1 is "number, street, neighborhood".
    line_1: [a.number, a.street, a.neighborhood].filter(Boolean).join(", "),
    ...(a.complement ? { line_2: a.complement } : {}),
    zip_code: digits(a.postalCode),
    city: a.city,
    state: a.state,
    country: a.country.toUpperCase(),
  };
}

const optional = (key: string, value: string | undefined) => (value === undefined ? {} : { [key]: value });

function paymentOf(input: AuthorizeInput): Record<string, unknown> {
  const { instrument } = input;
  if (instrument.kind === "card") {
    const address = input.customer?.address;
    return {
      payment_method: "credit_card",
      credit_card: {
        installments: instrument.installments,
        capture: true,
        ...optional("statement_descriptor", statementDescriptor(input.merchant.softDescriptor, PAGARME_STATEMENT_DESCRIPTOR_MAX)),
        card: {
          number: instrument.number,
          holder_name: instrument.holderName,
          exp_month: Number(instrument.expirationMonth),
          exp_year: Number(instrument.expirationYear),
          ...(instrument.cvv ? { cvv: instrument.cvv } : {}),
          ...(address ? { billing_address: addressOf(address) } : {}),
        },
      },
    };
  }
  if (instrument.kind === "pix") return { payment_method: "pix", pix: { expires_in: instrument.expiresIn } };
  if (instrument.kind === "boleto") {
    const due = boletoDueDate(instrument.options, instrument.expiresIn, input.now);
    const instructions = typeof instrument.options.instructions === "string" ? instrument.options.instructions : undefined;
    return {
      payment_method: "boleto",
      boleto: {
        // Payable until the end of the due day in Brasília time.
        due_at: endOfDay(due, BRAZIL_TIME_ZONE).toISOString(),
        type: "DM",
        document_number: input.chargeId.replace(/[^A-Za-z0-9]/g, "").slice(-16),
        ...(instructions ? { instructions } : {}),
        ...pagarmeBoletoTerms(instrument.options, due, input.amountMinor),
      },
    };
  }
  throw new Error(`pagarme does not serve ${instrument.kind}`);
}

export function orderBody(input: AuthorizeInput, operatorRecipientId = ""): Record<string, unknown> {
  const payment = paymentOf(input);
  if (input.split) {
    // The charge path refused the split before any call unless every seller has a recipient here.
    const shares = sharesAt(input.split, "pagarme");
    if (!shares) throw new Error(`charge ${input.chargeId}: a seller of the split has no recipient at pagarme`);
    if (!operatorRecipientId) throw new Error("a split charge through pagarme needs PAGARME_RECIPIENT_ID, the operator's recipient");
    payment.split = pagarmeSplit(input.split, shares, operatorRecipientId);
  }
  return {
    code: input.chargeId,
    closed: true,
    items: [{ amount: input.amountMinor, description: input.description || `Charge ${input.chargeId}`, quantity: 1, code: input.chargeId }],
    customer: customerOf(input.customer, input.chargeId),
    payments: [payment],
    metadata: { feira_charge_id: input.chargeId, feira_merchant_id: input.merchant.id },
  };
}
