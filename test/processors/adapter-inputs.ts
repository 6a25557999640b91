import { newId } from "../../src/lib/ids.js";
import type { AsyncInstrument, AuthorizeInput, CardInstrument, CustomerInput, InstrumentCheck } from "../../src/processors/processor.js";

// Authorizations as the charge path hands them to an adapter, for the adapter tests.

export const NOW = () => new Date();

export const CUSTOMER: CustomerInput = {
  name: "Maria Silva", email: "maria@example.com", documentId: "529.982.247-25", documentType: "cpf", phone: "+55 11 91234-5678",
  address: { postalCode: "01310-100", street: "Avenida Paulista", number: "1000", neighborhood: "Bela Vista", city: "São Paulo", state: "SP", country: "BR" },
};

export function card(number: string, over: Partial<CardInstrument> = {}): CardInstrument {
  return {
    kind: "card", number, brand: "visa", holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2035",
    cvv: "123", installments: 3, threeDSMode: "none", ...over,
  };
}

export const pix = (expiresIn = 3600): AsyncInstrument => ({ kind: "pix", expiresIn, options: {} });
export const boleto = (options: Record<string, unknown> = {}): AsyncInstrument => ({ kind: "boleto", expiresIn: 3 * 86_400, options });

export function authorization(instrument: AuthorizeInput["instrument"], over: Partial<AuthorizeInput> = {}): AuthorizeInput {
  return {
    chargeId: newId("ch"), amountMinor: 15_000, currency: "BRL", instrument,
    merchant: { id: "mer_test", name: "Loja Exemplo", city: "Sao Paulo", pixKey: "pix@example.com" },
    customer: CUSTOMER, now: NOW(), publicBaseUrl: "https://api.feira.test", ...over,
  };
}

export function check(method: InstrumentCheck["method"], customer: CustomerInput | null, options: Record<string, unknown> = {}): InstrumentCheck {
  return { method, currency: "BRL", amountMinor: 1000, options, customer, now: NOW() };
}

/** Everything a test saw the adapter log, to check that no secret or card data is in it. */
export function logSink(): { lines: string[]; log: (l: object) => void } {
  const lines: string[] = [];
  return { lines, log: (l) => lines.push(JSON.stringify(l)) };
}
