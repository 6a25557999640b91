import { Type } from "typebox";

// Examples show placeholders where a secret goes: nothing in /docs may pass for a real key.
const MERCHANT_EXAMPLE = {
  id: "mer_01jd59z0c1v2b3n4m5k6j7h8g9", name: "Loja Exemplo", email: "dono@loja-exemplo.com.br", status: "active",
  connectEnabled: true, parentId: null, createdAt: "2026-11-23T12:00:00.000Z",
};
const FEES_EXAMPLE = [
  { feeType: "tx_spread", paymentMethod: "credit_card", currencyCode: "BRL", brand: null, definition: { fixed: 30, percentages: [3.99, 4.99, 5.99] } },
  { feeType: "tx_spread", paymentMethod: "pix", currencyCode: "BRL", brand: null, definition: { fixed: 0, percentages: [0.99] } },
];
const KEYS_EXAMPLE = { sandbox: "sk_test_EXAMPLE-shown-in-full-here", production: "sk_live_EXAMPLE-shown-in-full-here" };

export const Merchant = Type.Object({
  id: Type.String(),
  name: Type.String(),
  email: Type.String(),
  status: Type.Union([Type.Literal("active"), Type.Literal("inactive"), Type.Literal("blocked")]),
  connectEnabled: Type.Boolean(),
  parentId: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: "date-time" }),
}, { examples: [MERCHANT_EXAMPLE] });

// Null only in an idempotent replay: a key is shown once (Idempotent-Redacted-Fields names them).
export const ApiKeys = Type.Object({
  sandbox: Type.Union([Type.String(), Type.Null()], { description: "sk_test_ key: acts on sandbox data. Shown in full only here (null in an idempotent replay)." }),
  production: Type.Union([Type.String(), Type.Null()], { description: "sk_live_ key: acts on production data. Shown in full only here (null in an idempotent replay)." }),
});

export const CreateMerchantBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  email: Type.String({ format: "email", maxLength: 254 }),
  password: Type.String({ minLength: 10, maxLength: 200 }),
  connectEnabled: Type.Optional(Type.Boolean({ description: "Enables the Connect (marketplace) module." })),
  pixKey: Type.Optional(Type.String({ minLength: 1, maxLength: 77, description: "Pix key written into BR Codes; a random key by default." })),
  city: Type.Optional(Type.String({ minLength: 1, maxLength: 60, description: "City written into BR Codes." })),
}, { additionalProperties: false, examples: [{ name: "Loja Exemplo", email: "dono@loja-exemplo.com.br", password: "correct horse battery", connectEnabled: false }] });

export const MerchantWithKeys = Type.Object({ ...Merchant.properties, apiKeys: ApiKeys }, {
  examples: [{ ...MERCHANT_EXAMPLE, connectEnabled: false, apiKeys: KEYS_EXAMPLE }],
});

export const PatchMerchantBody = Type.Object({
  connectEnabled: Type.Optional(Type.Boolean()),
  status: Type.Optional(Type.Union([Type.Literal("active"), Type.Literal("inactive"), Type.Literal("blocked")])),
}, { additionalProperties: false, minProperties: 1, examples: [{ connectEnabled: true }] });

export const FeeDefinitionSchema = Type.Object({
  feeType: Type.Union([Type.Literal("tx_spread"), Type.Literal("anticipation"), Type.Literal("payout")]),
  paymentMethod: Type.String({ minLength: 1, maxLength: 40, description: "Payment method type, e.g. credit_card, pix, boleto." }),
  currencyCode: Type.String({ pattern: "^[A-Za-z]{3}$" }),
  brand: Type.Union([Type.String({ minLength: 1, maxLength: 30 }), Type.Null()], { description: "Card brand override, or null for the default." }),
  definition: Type.Object({
    fixed: Type.Integer({ minimum: 0, maximum: 100_000_000, description: "Fixed part in cents (integer minor units of currencyCode: 200 is 2.00 BRL), unlike a charge's amount, which is in currency units." }),
    percentages: Type.Array(Type.Number({ minimum: 0, maximum: 100, multipleOf: 0.0001 }), {
      maxItems: 12,
      description: "Percents (0.99 is 0.99 %), by installment count: index 0 = single payment, index 11 = 12 installments.",
    }),
  }, { additionalProperties: false }),
}, { additionalProperties: false });

export const PutFeesBody = Type.Object({ fees: Type.Array(FeeDefinitionSchema, { maxItems: 200 }) }, {
  additionalProperties: false,
  examples: [{ fees: FEES_EXAMPLE }],
});
export const FeesResponse = Type.Object({ merchantId: Type.String(), fees: Type.Array(FeeDefinitionSchema) }, {
  examples: [{ merchantId: MERCHANT_EXAMPLE.id, fees: FEES_EXAMPLE }],
});

export const LoginBody = Type.Object({
  email: Type.String({ format: "email", maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: 200 }),
  environment: Type.Optional(Type.Union([Type.Literal("sandbox"), Type.Literal("production")], {
    description: "Environment the token acts in; sandbox by default.",
  })),
}, { additionalProperties: false, examples: [{ email: "dono@loja-exemplo.com.br", password: "correct horse battery" }] });

export const LoginResponse = Type.Object({
  accessToken: Type.String(),
  tokenType: Type.Literal("Bearer"),
  expiresIn: Type.Integer({ description: "Seconds until the token expires." }),
}, { examples: [{ accessToken: "eyJhbGciOiJIUzI1NiJ9.EXAMPLE-payload.EXAMPLE-signature", tokenType: "Bearer", expiresIn: 3600 }] });

export const RotateKeysResponse = Type.Object({ id: Type.String(), apiKeys: ApiKeys }, {
  examples: [{ id: MERCHANT_EXAMPLE.id, apiKeys: KEYS_EXAMPLE }],
});

// The rules of a card statement's merchant text, as Pagar.me's and Stripe's statement_descriptor:
// at most 13 characters (the length every acquirer prints), plain letters, digits and spaces
// (accents and symbols are dropped or garbled by issuers).
export const SOFT_DESCRIPTOR_MAX = 13;
const SOFT_DESCRIPTOR_RULE = `Default text on the buyer's card statement: 1 to ${SOFT_DESCRIPTOR_MAX} letters (A to Z, no accents), digits and spaces.`;
const SoftDescriptor = Type.String({
  minLength: 1, maxLength: SOFT_DESCRIPTOR_MAX, pattern: "^[A-Za-z0-9 ]+$",
  "x-pattern-message": "may hold only letters A to Z without accents, digits and spaces",
  description: SOFT_DESCRIPTOR_RULE,
});

const TIMEZONE_RULE = "The IANA time zone the panel shows dates, today's sales, the chart's days and the CSV export's times in; America/Sao_Paulo (Brasília) by default.";

export const MerchantProfile = Type.Object({
  ...Merchant.properties,
  softDescriptor: Type.Union([Type.String(), Type.Null()], {
    description: "Default text on the buyer's card statement, or null for none. Stored only for now: charges do not carry it to the processor yet.",
  }),
  timezone: Type.String({ description: TIMEZONE_RULE }),
  updatedAt: Type.String({ format: "date-time" }),
}, { examples: [{ ...MERCHANT_EXAMPLE, softDescriptor: "LOJA EXEMPLO", timezone: "America/Sao_Paulo", updatedAt: "2026-11-24T09:00:00.000Z" }] });

export const PatchProfileBody = Type.Object({
  name: Type.Optional(Type.String({
    minLength: 1, maxLength: 200, pattern: "\\S", "x-pattern-message": "must not be blank", description: "The merchant's name, as shown in the panel.",
  })),
  softDescriptor: Type.Optional(Type.Union([SoftDescriptor, Type.Null()], { description: `${SOFT_DESCRIPTOR_RULE} null removes it.` })),
  timezone: Type.Optional(Type.String({
    minLength: 1, maxLength: 64, description: `${TIMEZONE_RULE} A name that is no IANA zone (or a bare offset such as -03:00) is refused with 422; an alias is stored as its canonical name (Brazil/East as America/Sao_Paulo).`,
  })),
}, { additionalProperties: false, minProperties: 1, examples: [{ name: "Loja Exemplo", softDescriptor: "LOJA EXEMPLO", timezone: "America/Sao_Paulo" }] });
