import type { DocumentRules } from "../documents.js";

// The buyer documents Mercado Pago takes in Brazil, in `payer.identification` and a card
// token's `cardholder.identification` ({type, number}): CPF and CNPJ only, the list
// GET /v1/identification_types answers for the Brazilian site (mercadopago.com.br/developers,
// "Tipos de documentos"). An RG or a passport is left out of a card or Pix payment; a boleto
// (bolbradesco) needs the payer's identification, so it is refused first without one of these.

export type MercadoPagoDocumentType = "CPF" | "CNPJ";

export const MERCADOPAGO_DOCUMENTS: DocumentRules<MercadoPagoDocumentType> = {
  processor: "mercadopago",
  types: { cpf: "CPF", cnpj: "CNPJ" },
  needs: { boleto: ["cpf", "cnpj"] },
};
