import { Type, type Static, type TSchema } from "typebox";

// The paymentMethod object of POST /v1/charges, one shape per type. A single object schema per
// type (instead of a oneOf over shapes) keeps validation messages naming the exact field.
const expiresIn = (max: number, what: string) =>
  Type.Optional(Type.Integer({ minimum: 60, maximum: max, description: `Seconds until the ${what} expires.` }));

export const CreditCardMethod = Type.Object({
  type: Type.Literal("credit_card"),
  number: Type.Optional(Type.String({ minLength: 12, maxLength: 23, description: "Card number (PAN). Never stored in plain text, never returned." })),
  holderName: Type.Optional(Type.String({ minLength: 2, maxLength: 100 })),
  expirationMonth: Type.Optional(Type.String({ pattern: "^(0?[1-9]|1[0-2])$", description: "1 to 12." })),
  expirationYear: Type.Optional(Type.String({ pattern: "^([0-9]{2}|[0-9]{4})$", description: "YY or YYYY." })),
  cvv: Type.Optional(Type.String({ pattern: "^[0-9]{3,4}$", description: "Never stored." })),
  cardId: Type.Optional(Type.String({ maxLength: 64, description: "A saved card (POST /v1/customers/{id}/cards) instead of number, holder and expiry." })),
  wallet: Type.Optional(Type.Object({
    type: Type.Union([Type.Literal("apple_pay"), Type.Literal("google_pay")]),
    token: Type.String({ minLength: 8, maxLength: 8192, description: "Wallet payment token. Sandbox: tok_sandbox_<card number>." }),
  }, { additionalProperties: false, description: "A wallet token instead of the card fields." })),
  installments: Type.Optional(Type.Integer({ minimum: 1, maximum: 12, default: 1 })),
  threeDSMode: Type.Optional(Type.Union([Type.Literal("managed"), Type.Literal("none")], {
    description: "managed: feira runs 3-D Secure when the issuer asks for it (charge becomes authentication_required).",
  })),
}, { $id: "CreditCardPaymentMethod", additionalProperties: false, description: "Credit card: plain (number...), saved (cardId) or wallet (wallet.token)." });

// A boleto's or a Pix's collection terms (docs/processors.md, "Collection terms"; create/due-terms.ts checks
// what a schema cannot: dates in order, at most 2 decimals, one of amount or percent).
const Day = (description: string) => Type.String({ format: "date", description });
const dueTerms = {
  fine: Type.Optional(Type.Object({
    percent: Type.Number({ exclusiveMinimum: 0, maximum: 2, description: "Charged once, on any day after dueDate: percent of amount, at most 2 (Brazil's consumer code, art. 52)." }),
  }, { additionalProperties: false })),
  interest: Type.Optional(Type.Object({
    monthlyPercent: Type.Number({ exclusiveMinimum: 0, maximum: 1, description: "Simple interest per month after dueDate, pro rata die (monthlyPercent / 30 per calendar day), at most 1." }),
  }, { additionalProperties: false })),
  discount: Type.Optional(Type.Object({
    amount: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: "Currency units off the amount; less than amount." })),
    percent: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 99.99, description: "Percent off the amount." })),
    until: Day("The last day (YYYY-MM-DD, Brasília) the discount applies; not after dueDate."),
  }, { additionalProperties: false, description: "Exactly one of amount or percent." })),
  payableUntil: Type.Optional(Day("The last day it can be paid (YYYY-MM-DD, Brasília); not before dueDate. Default: dueDate without fine or interest, else 30 days after it. The charge expires after it.")),
};

export const PixMethod = Type.Object({
  type: Type.Literal("pix"),
  expiresIn: expiresIn(7 * 86400, "BR Code"),
  dueDate: Type.Optional(Day("A Pix with due date (the Central Bank's cobv), YYYY-MM-DD: needs customer.document and customer.name; expiresIn does not apply.")),
  ...dueTerms,
}, { $id: "PixPaymentMethod", additionalProperties: false, description: "Pix: a BR Code (copia e cola) and its QR image. BRL. With dueDate, a Pix with due date that may carry a fine, interest and a discount." });

export const OpenFinanceMethod = Type.Object({
  type: Type.Literal("open_finance"),
  bankIspb: Type.Optional(Type.String({ pattern: "^[0-9]{8}$", description: "ISPB of the payer's bank." })),
  expiresIn: expiresIn(86400, "authorization"),
}, { $id: "OpenFinancePaymentMethod", additionalProperties: false, description: "Pix initiated through Open Finance Brasil: the payer authorizes at their bank. BRL." });

export const QrCodeMethod = Type.Object({
  type: Type.Literal("qr_code"),
  expiresIn: expiresIn(7 * 86400, "QR code"),
}, { $id: "QrCodePaymentMethod", additionalProperties: false, description: "Wallet-app QR code (EMV merchant-presented). BRL." });

export const BoletoMethod = Type.Object({
  type: Type.Literal("boleto"),
  dueDate: Type.Optional(Type.String({ format: "date", description: "YYYY-MM-DD; 3 days from today by default." })),
  instructions: Type.Optional(Type.String({ maxLength: 255 })),
  ...dueTerms,
}, { $id: "BoletoPaymentMethod", additionalProperties: false, description: "Boleto bancário (voucher): 47-digit linha digitável and 44-digit barcode, and a Pix BR Code for the same charge (paymentDetails.pixQrCode). BRL. May carry a fine, interest and a discount." });

export const BankTransferMethod = Type.Object({
  type: Type.Literal("bank_transfer"),
  expiresIn: expiresIn(30 * 86400, "account reference"),
}, { $id: "BankTransferPaymentMethod", additionalProperties: false, description: "Transfer to a virtual account with a reference. BRL." });

export const OxxoMethod = Type.Object({
  type: Type.Literal("oxxo"),
  expiresIn: expiresIn(30 * 86400, "voucher"),
}, { $id: "OxxoPaymentMethod", additionalProperties: false, description: "OXXO cash voucher (Mexico). MXN." });

export const SpeiMethod = Type.Object({
  type: Type.Literal("spei"),
  expiresIn: expiresIn(30 * 86400, "CLABE reference"),
}, { $id: "SpeiPaymentMethod", additionalProperties: false, description: "SPEI transfer to a CLABE (Mexico). MXN." });

export const PseMethod = Type.Object({
  type: Type.Literal("pse"),
  bankCode: Type.String({ pattern: "^[0-9]{1,10}$", description: "PSE bank code of the payer's bank." }),
  personType: Type.Union([Type.Literal("natural"), Type.Literal("juridica")]),
  documentType: Type.Union([Type.Literal("CC"), Type.Literal("CE"), Type.Literal("NIT"), Type.Literal("PP")]),
  documentNumber: Type.String({ pattern: "^[0-9A-Za-z]{4,20}$" }),
  expiresIn: expiresIn(86400, "bank redirect"),
}, { $id: "PsePaymentMethod", additionalProperties: false, description: "PSE bank redirect (Colombia). COP." });

export const PAYMENT_METHOD_SCHEMAS = {
  credit_card: CreditCardMethod, pix: PixMethod, open_finance: OpenFinanceMethod, qr_code: QrCodeMethod,
  boleto: BoletoMethod, bank_transfer: BankTransferMethod, oxxo: OxxoMethod, spei: SpeiMethod, pse: PseMethod,
};

const union = Type.Union([
  CreditCardMethod, PixMethod, OpenFinanceMethod, QrCodeMethod, BoletoMethod, BankTransferMethod, OxxoMethod, SpeiMethod, PseMethod,
]);
/** The variants as named components of the document (app.ts adds them), each once. */
export const PAYMENT_METHOD_COMPONENTS = Object.values(PAYMENT_METHOD_SCHEMAS);

// oneOf + discriminator (enabled in http/validation.ts): Ajv validates only the branch named by
// `type`, so an error names the field of that branch, e.g. paymentMethod.installments. Ajv
// applies the discriminator to objects only and lets any other value through, so the schema
// must say `type: "object"` itself: without it a string, array, number or null passed
// validation and normalizeMethod failed on it (a 500). Every branch is a $ref to a named
// component: code generators for other languages take a discriminator only over named
// schemas, never over inline ones.
export const PaymentMethodInput = discriminatedByType<Static<typeof union>>(PAYMENT_METHOD_COMPONENTS,
  "Discriminated by type: credit_card, pix, open_finance, qr_code, boleto, bank_transfer, oxxo, spei, pse.");

/**
 * A `paymentMethod` body field: one of the named components, chosen by its `type`. No
 * discriminator `mapping`: Ajv refuses one, and each component's `type` constant says it.
 */
export function discriminatedByType<T>(variants: TSchema[], description: string) {
  const refs = variants.map((v) => {
    if (!("$id" in v) || typeof v.$id !== "string") throw new Error("a paymentMethod variant needs an $id to be named in the document");
    return Type.Ref(v.$id);
  });
  return Type.Unsafe<T>({ type: "object", oneOf: refs, discriminator: { propertyName: "type" }, description });
}
export type PaymentMethodBody = Static<typeof union>;

/**
 * A period's debit under a Pix Automático mandate, which the billing engine alone makes (no
 * request body can name it: rejectServerFields): due on `dueDate` (YYYY-MM-DD, Brasília), when
 * the payer's bank debits it. Kept pending until then, up to `expiresIn` seconds.
 */
export interface PixAutomaticoMethod {
  type: "pix_automatico"; dueDate: string; mandateId: string; expiresIn?: number;
  /** Production: the mandate at its processor (the recurrence), and for a retry the period's debit it is a new attempt of. */
  mandateRef?: string; debitRef?: string;
}
export type PaymentMethodCommand = PaymentMethodBody | PixAutomaticoMethod;
