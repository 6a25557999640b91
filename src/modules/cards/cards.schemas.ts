import { Type } from "typebox";

// The card number goes in and never comes out: Card below is the response allow-list, and
// it has no field that could carry the number or a CVV.

export const CardParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: "Customer id." }),
});

export const CardItemParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: "Customer id." }),
  cardId: Type.String({ minLength: 1, maxLength: 64, description: "Card id (card_...)." }),
});

export const CreateCardBody = Type.Object({
  number: Type.String({
    minLength: 1, maxLength: 30,
    description: "Card number (PAN), 13 to 19 digits; spaces and dashes are ignored. Stored only encrypted, never returned.",
  }),
  holderName: Type.String({ minLength: 1, maxLength: 100, description: "Name as printed on the card." }),
  expirationMonth: Type.String({ minLength: 1, maxLength: 2, description: "1 to 12, e.g. \"07\"." }),
  expirationYear: Type.String({ minLength: 2, maxLength: 4, description: "2 or 4 digits, e.g. \"2030\"." }),
}, {
  additionalProperties: false,
  description: "No CVV: it may never be stored, so the vault does not take it (PCI DSS 3.3.1.2).",
  examples: [{ number: "4111111111111111", holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2030" }],
});

const CARD_EXAMPLE = {
  id: "card_01jd3k3p5r7t9v1x3z5b7d9f1h", customerId: "cus_01jd3k2m4n9z8y7x6w5v4t3s2r", brand: "visa", firstSix: "411111", lastFour: "1111",
  expirationMonth: "12", expirationYear: "2030", holderName: "MARIA SILVA", createdAt: "2026-11-23T12:00:00.000Z",
};

export const Card = Type.Object({
  id: Type.String({ description: "card_..." }),
  customerId: Type.String(),
  brand: Type.String({ description: "visa, mastercard, amex, elo, hipercard, ... or unknown." }),
  firstSix: Type.String({ description: "First six digits (BIN)." }),
  lastFour: Type.String(),
  expirationMonth: Type.String({ description: "Two digits, e.g. \"07\"." }),
  expirationYear: Type.String({ description: "Four digits." }),
  holderName: Type.String(),
  createdAt: Type.String({ format: "date-time" }),
}, { examples: [CARD_EXAMPLE] });

export const CardList = Type.Object({
  data: Type.Array(Card, { description: "Newest first, at most 100." }),
  hasMore: Type.Boolean({ description: "True when the customer has more than 100 saved cards." }),
}, {
  examples: [{ data: [CARD_EXAMPLE, { ...CARD_EXAMPLE, id: "card_01jd3k1b3d5f7h9k1m3p5r7t9v", brand: "mastercard", firstSix: "555555", lastFour: "4444", expirationMonth: "08", expirationYear: "2029" }], hasMore: false }],
});

export const Deleted = Type.Null({ description: "The card and its encrypted number are deleted." });
