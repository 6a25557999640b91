import type { DocumentRules } from "../documents.js";

// The buyer documents Pagar.me v5 takes on an order's customer: `document_type` CPF, CNPJ or
// PASSPORT, with `type` individual or company (docs.pagar.me/reference/criar-cliente-1 and the
// official SDK's CreateCustomerRequest). An RG is none of them: it is left out of a card order,
// and a boleto or a Pix, which Pagar.me makes only for a named payer, is refused first.
// A registered boleto names its payer by CPF or CNPJ (the banks' registration, not Pagar.me's
// choice), so a passport serves a card or a Pix but not a boleto.

export type PagarmeDocumentType = "CPF" | "CNPJ" | "PASSPORT";

export const PAGARME_DOCUMENTS: DocumentRules<PagarmeDocumentType> = {
  processor: "pagarme",
  types: { cpf: "CPF", cnpj: "CNPJ", passport: "PASSPORT" },
  needs: { boleto: ["cpf", "cnpj"], pix: ["cpf", "cnpj", "passport"] },
};

/** The customer's `type` follows its document: a CNPJ is a company, anyone else an individual. */
export const PAGARME_PERSON_TYPE: Readonly<Record<PagarmeDocumentType, "individual" | "company">> = {
  CPF: "individual", CNPJ: "company", PASSPORT: "individual",
};
