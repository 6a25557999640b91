import { Type } from "typebox";
import { ListOf, ListQuery, MerchantUrl, Metadata } from "../../http/schemas.js";
import { Dispute } from "../disputes/index.js";
import { SplitRuleSchema, SplitRuleView } from "../ledger/index.js";
import { CHARGE_STATUSES, type ChargeStatus } from "./charge-status.js";
import { PaymentMethodInput } from "./create/payment-methods.schemas.js";

const Status = Type.Unsafe<ChargeStatus>({ type: "string", enum: [...CHARGE_STATUSES] });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Str = (max: number, opts: object = {}) => Type.String({ maxLength: max, ...opts });

const DocumentRef = Type.Object({
  type: Type.Union([Type.Literal("cpf"), Type.Literal("cnpj"), Type.Literal("passport"), Type.Literal("rg")]),
  id: Type.String({ minLength: 1, maxLength: 30 }),
}, {
  additionalProperties: false,
  description: "cpf and cnpj are checked with their check digits; an alphanumeric CNPJ keeps its letters. The processor receives the document as stored; "
    + "one of a type it does not take (an rg) is left out of a card payment, and a boleto or Pix that needs one is a 422 naming customer.document.",
});

export const ChargeCustomer = Type.Object({
  id: Type.Optional(Str(64, { description: "An existing customer; then the other fields are ignored." })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  email: Type.Optional(Type.String({ format: "email", maxLength: 254 })),
  phone: Type.Optional(Type.String({ pattern: "^\\+?[0-9 ()-]{8,20}$" })),
  document: Type.Optional(DocumentRef),
  // Stored as given: any address fields, but flat and bounded.
  address: Type.Optional(Type.Object({ country: Type.String({ pattern: "^[A-Za-z]{2}$" }) }, {
    additionalProperties: Type.Union([Type.String({ maxLength: 200 }), Type.Number()]), maxProperties: 20,
  })),
  ipAddress: Type.Optional(Type.String({ maxLength: 45, description: "The buyer's IP address (v4 or v6)." })),
}, { additionalProperties: false, description: "Either id, or name plus email or phone. Without an id the buyer is the merchant's earliest customer with that e-mail (any case), or with that phone when there is no e-mail; never found by document alone (a new e-mail with a known CPF is a new customer). The charge keeps the name, e-mail, phone and document typed here (its events' `customer`)." });

export const Item = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Str(1000)),
  unit_price: Type.Number({ minimum: 0, maximum: 1e12, description: "In currency units." }),
  quantity: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
}, { additionalProperties: false });

export const ShippingAddressInput = Type.Object({
  postalCode: Type.String({ minLength: 3, maxLength: 12 }),
  street: Type.String({ minLength: 1, maxLength: 200 }),
  number: Type.String({ minLength: 1, maxLength: 20 }),
  complement: Type.Optional(Str(200)),
  neighborhood: Type.Optional(Str(100)),
  city: Type.String({ minLength: 1, maxLength: 100 }),
  state: Type.String({ minLength: 1, maxLength: 50 }),
  country: Type.String({ pattern: "^[A-Za-z]{2}$" }),
}, { additionalProperties: false });

export const TrackingInfo = Type.Object({
  trackingCode: Type.Optional(Str(100)),
  shippingProvider: Type.Optional(Str(100)),
  trackingUrl: Type.Optional(MerchantUrl({ description: "The carrier's tracking page (http or https)." })),
  trackingStatus: Type.Optional(Type.Union([Type.Literal("awaiting_shipment"), Type.Literal("on_the_way"), Type.Literal("delivered")])),
}, { additionalProperties: false });

/** A rule of a charge's split (the ledger module owns its shape and arithmetic). */
export const SplitRule = SplitRuleSchema;

export const CreateChargeBody = Type.Object({
  amount: Type.Number({ description: "In currency units, not cents (10 = 10.00 BRL). At least 1 (1.00 BRL) and at most as many decimals as the currency has: 2 for BRL, USD, MXN and COP, 0 for JPY and CLP. More decimals, zero, negatives: 422. At most the currency's ceiling: 99,999,999 minor units (999,999.99 BRL) unless the operator set MAX_AMOUNT_MINOR; above it: 422 amount_too_large." }),
  currency: Type.String({ pattern: "^[A-Za-z]{3}$", description: "ISO 4217 code, e.g. BRL; stored and answered upper-case. Cards take any ISO 4217 currency; Pix, boleto, open_finance, qr_code and bank_transfer BRL only, oxxo and spei MXN, pse COP." }),
  customer: ChargeCustomer,
  paymentMethod: PaymentMethodInput,
  items: Type.Optional(Type.Array(Item, { maxItems: 100 })),
  shippingAddress: Type.Optional(ShippingAddressInput),
  trackingInfo: Type.Optional(TrackingInfo),
  metadata: Type.Optional(Metadata),
  postbackUrl: Type.Optional(MerchantUrl({ description: "Receives this charge's events (https in production)." })),
  split: Type.Optional(Type.Array(SplitRule, { maxItems: 20, description: "Shares of the charge for other merchants of the Connect: each a percentage of the net or a fixed amount; together at most the net (docs/guarantees.md, \"Split\"). The rest is the charging merchant's." })),
}, {
  additionalProperties: false,
  examples: [{
    amount: 49.9,
    currency: "BRL",
    customer: { name: "Maria Silva", email: "maria@example.com", document: { type: "cpf", id: "529.982.247-25" } },
    paymentMethod: { type: "credit_card", number: "4111111111111111", holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2030", cvv: "123", installments: 1 },
    metadata: { orderId: "1001" },
  }],
});

/** The buyer's page of a charge (GET /r/{token}), on the answers that create and read one charge. */
const PageUrl = Type.String({
  format: "uri",
  description: "The charge's page for the buyer: amount due, how to pay (boleto line, Pix QR) and, once paid, the receipt. No key needed; the link is unguessable and shows this charge only, so send it to the buyer alone.",
});
const PAGE_URL_EXAMPLE = "https://pay.example.com/r/7Lq0vX2bN9sQeW4rT6yU8iO1pA3sD5fG7hJ9kL0zX2c";

export const ChargeCreated = Type.Object({
  id: Type.String(),
  status: Status,
  paymentDetails: Nullable(Type.Record(Type.String(), Type.Unknown())),
  reason: Nullable(Type.String()),
  pageUrl: PageUrl,
}, {
  description: "Card paymentDetails: firstSix, lastFour, expirationMonth, expirationYear, holderName, installments, brand. Pix: qrCode, qrCodeImage, expiresAt, txid. pix_automatico (a subscription's debit): dueDate, mandateId, txid, expiresAt.",
  examples: [{
    id: "ch_01m83z4fb49ymhph6hwrvbtqq2",
    status: "paid",
    paymentDetails: { brand: "visa", firstSix: "411111", lastFour: "1111", holderName: "MARIA SILVA", installments: 1, expirationYear: "2030", expirationMonth: "12" },
    reason: null,
    pageUrl: PAGE_URL_EXAMPLE,
  }],
});

// Examples: a paid card charge of R$ 49,90 and a Pix of R$ 120,00 under the fees of the
// merchant example (card 0.30 + 3.99 %, Pix 0.99 %), in their lives' stages.
const CUSTOMER_ID = "cus_01jd3k2m4n9z8y7x6w5v4t3s2r";
const CARD_DETAILS = { brand: "visa", firstSix: "411111", lastFour: "1111", holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2030", installments: 1 };
const NO_EXTRAS = {
  items: null, shippingAddress: null, trackingInfo: null, postbackUrl: null, split: null,
  paymentLinkId: null, freight_amount: null, freight_details: null,
};
export const CARD_CHARGE_EXAMPLE = {
  id: "ch_01m83z4fb49ymhph6hwrvbtqq2", livemode: false, status: "paid", reason: null, failureReason: null, isBlocked: false,
  amount: 49.9, amountRefunded: 0, amountDue: null, paidAmount: 49.9, paidBreakdown: { principal: 49.9, discount: 0, fine: 0, interest: 0 },
  currency: "BRL", spread: 2.29, anticipationFeeEstimated: 0, net: 47.61, customerId: CUSTOMER_ID,
  paymentMethod: { type: "credit_card", ...CARD_DETAILS }, paymentDetails: CARD_DETAILS, pspRefId: "sbx_N7c9wHEkOfPV2YuQNMtAxsgQ", processor: "sandbox",
  ...NO_EXTRAS, metadata: { orderId: "1001" },
  paidAt: "2026-11-23T12:00:01.000Z", expiresAt: null, createdAt: "2026-11-23T12:00:01.000Z", updatedAt: "2026-11-23T12:00:01.000Z",
};
const PIX_PENDING_EXAMPLE = {
  ...CARD_CHARGE_EXAMPLE, id: "ch_01jd3m7q2w4e6r8t0y2v4x6z8b", status: "pending", amount: 120, spread: 1.19, net: 118.81,
  amountDue: 120, paidAmount: null, paidBreakdown: null,
  paymentMethod: { type: "pix" }, pspRefId: "sbx_XggIvLfIfqT6t0qVtS0IK3vZ", metadata: { orderId: "1002" },
  paymentDetails: {
    // A BR Code ("copia e cola") with a valid CRC16; the image is cut short here.
    qrCode: "00020126580014br.gov.bcb.pix01360e7787f2-b5ba-4d3b-936a-420e50ec33a15204000053039865406120.005802BR5912Loja Exemplo6009SAO PAULO622905251jd3m7q2w4e6r8t0y2v4x6z8b630423C7",
    qrCodeImage: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAOQAAADkCAYAAACIV4iNAAAAAklEQVR4AewaftIAAAwr",
    expiresAt: "2026-11-23T13:00:00.000Z", txid: "1jd3m7q2w4e6r8t0y2v4x6z8b",
  },
  paidAt: null, expiresAt: "2026-11-23T13:00:00.000Z", createdAt: "2026-11-23T12:00:00.000Z", updatedAt: "2026-11-23T12:00:00.000Z",
};
export const PIX_PAID_EXAMPLE = {
  ...PIX_PENDING_EXAMPLE, status: "paid", amountDue: null, paidAmount: 120, paidBreakdown: { principal: 120, discount: 0, fine: 0, interest: 0 },
  paidAt: "2026-11-23T12:03:10.000Z", updatedAt: "2026-11-23T12:03:10.000Z",
};
export const PIX_EXPIRED_EXAMPLE = { ...PIX_PENDING_EXAMPLE, status: "failed", amountDue: null, reason: "expired", failureReason: "expired", updatedAt: "2026-11-23T12:03:10.000Z" };
export const THREE_DS_PAID_EXAMPLE = {
  ...CARD_CHARGE_EXAMPLE, id: "ch_01jd3m9c5e7g9j1m3p5r7t9w1y",
  paymentMethod: { ...CARD_CHARGE_EXAMPLE.paymentMethod, firstSix: "400000", lastFour: "3220" },
  paymentDetails: {
    ...CARD_DETAILS, firstSix: "400000", lastFour: "3220", threeDSVersion: "2.2.0",
    authenticationUrl: "https://api.loja-exemplo.com.br/v1/sandbox/charges/ch_01jd3m9c5e7g9j1m3p5r7t9w1y/authenticate",
  },
  paidAt: "2026-11-23T12:01:30.000Z", updatedAt: "2026-11-23T12:01:30.000Z",
};
export const REVIEWED_PAID_EXAMPLE = {
  ...CARD_CHARGE_EXAMPLE, id: "ch_01jd3mb2d4f6h8k0n2q4s6v8x0",
  paymentMethod: { ...CARD_CHARGE_EXAMPLE.paymentMethod, firstSix: "400000", lastFour: "0259" },
  paymentDetails: { ...CARD_DETAILS, firstSix: "400000", lastFour: "0259" },
  paidAt: "2026-11-23T12:30:00.000Z", updatedAt: "2026-11-23T12:30:00.000Z",
};

export const Charge = Type.Object({
  id: Type.String(),
  livemode: Type.Boolean(),
  status: Status,
  reason: Nullable(Type.String()),
  failureReason: Nullable(Type.String({ description: "Why a failed or refused charge ended so, e.g. expired (an unpaid Pix or boleto past expiresAt), card_declined, insufficient_funds (also a Pix Automático debit the payer's bank refused); null otherwise." })),
  isBlocked: Type.Boolean(),
  amount: Type.Number({ description: "Currency units." }),
  amountRefunded: Type.Number(),
  amountDue: Nullable(Type.Number({ description: "A pending charge: what the payer owes today (on the test clock's day in the sandbox), currency units: the amount, less a discount until discount.until, plus the fine and the interest after dueDate. Null once the charge is no longer pending." })),
  paidAmount: Nullable(Type.Number({ description: "A paid charge: what the payer paid, currency units (principal - discount + fine + interest). Null while unpaid." })),
  paidBreakdown: Nullable(Type.Object({
    principal: Type.Number(), discount: Type.Number(), fine: Type.Number(), interest: Type.Number(),
  }, { description: "A paid charge: paidAmount's parts, currency units. The fine and the interest are the originator's, never split." })),
  totalAmount: Type.Optional(Type.Number({ description: "Only when the buyer pays interest (a card in more installments than the merchant's interest-free ones): what the buyer pays in all, which the processor was asked for; `amount` stays the price and the difference is interest, the merchant's own (never split). Refunds are of this total: a full refund returns it." })),
  installmentAmount: Type.Optional(Type.Number({ description: "With totalAmount: each installment; the last takes the rounding difference (totalAmount - (installments - 1) x installmentAmount)." })),
  currency: Type.String(),
  spread: Type.Number(),
  anticipationFeeEstimated: Type.Number(),
  net: Type.Number(),
  customerId: Nullable(Type.String()),
  paymentMethod: Type.Object({
    type: Type.String({ description: "A request's method, or pix_automatico: a subscription's period debited under its Pix Automático mandate (made by the billing engine only; POST /v1/charges answers 422 for it)." }),
    mandateId: Type.Optional(Type.String({ description: "pix_automatico: the mandate (GET /v1/mandates/{id}) the debit is made under." })),
    brand: Type.Optional(Type.String()),
    firstSix: Type.Optional(Type.String()),
    lastFour: Type.Optional(Type.String()),
    holderName: Type.Optional(Type.String()),
    expirationMonth: Type.Optional(Type.String()),
    expirationYear: Type.Optional(Type.String()),
    installments: Type.Optional(Type.Integer()),
    cardId: Type.Optional(Type.String()),
    walletType: Type.Optional(Type.String()),
    dueDate: Type.Optional(Type.String({ description: "A boleto or Pix with collection terms: its due date (YYYY-MM-DD, Brasília)." })),
    payableUntil: Type.Optional(Type.String({ description: "The last day it can be paid; it expires after it." })),
    fine: Type.Optional(Type.Object({ percent: Type.Number() })),
    interest: Type.Optional(Type.Object({ monthlyPercent: Type.Number() })),
    discount: Type.Optional(Type.Object({ amount: Type.Optional(Type.Number()), percent: Type.Optional(Type.Number()), until: Type.String() })),
  }),
  paymentDetails: Nullable(Type.Record(Type.String(), Type.Unknown(), {
    description: "What the payer needs, by method: Pix qrCode, qrCodeImage, expiresAt, txid; boleto barcode, digitableLine, dueDate; card firstSix, lastFour, brand. pix_automatico: dueDate (YYYY-MM-DD, Brasília time: the day the payer's bank debits it, the period's start), mandateId, txid, expiresAt.",
  })),
  pspRefId: Nullable(Type.String()),
  processor: Type.String({ description: "What served the charge: `sandbox` (the simulator) or, for production charges, the live processor (its name in PAYMENT_ROUTES) that refunds, lookups and reconciliation go to." }),
  items: Nullable(Type.Array(Type.Record(Type.String(), Type.Unknown()))),
  shippingAddress: Nullable(Type.Record(Type.String(), Type.Unknown())),
  trackingInfo: Nullable(Type.Record(Type.String(), Type.Unknown())),
  metadata: Nullable(Type.Record(Type.String(), Type.Unknown())),
  postbackUrl: Nullable(Type.String()),
  split: Nullable(Type.Array(SplitRuleView)),
  paidAt: Nullable(Type.String({ format: "date-time" })),
  expiresAt: Nullable(Type.String({ format: "date-time" })),
  createdAt: Type.String({ format: "date-time" }),
  paymentLinkId: Nullable(Type.String({ description: "The payment link the buyer paid through." })),
  freight_amount: Nullable(Type.Number({ description: "Freight included in amount (currency units); set by the server for payment-link charges." })),
  freight_details: Nullable(Type.Object({
    provider: Type.String({ description: "melhor_envio for live freight, fixed for a link's fixed freight." }),
    serviceId: Type.Optional(Type.Integer()),
    serviceName: Type.Optional(Type.String()),
    company: Type.Optional(Type.String()),
    price: Type.Number(),
    deliveryTime: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  })),
  updatedAt: Type.String({ format: "date-time" }),
}, { examples: [CARD_CHARGE_EXAMPLE] });

/** A charge as GET /v1/charges/{id} answers it: with its disputes. */
export const ChargeWithDisputes = Type.Object({
  ...Charge.properties,
  pageUrl: PageUrl,
  disputes: Type.Array(Dispute, { description: "The charge's disputes, newest first." }),
}, { examples: [{ ...CARD_CHARGE_EXAMPLE, pageUrl: PAGE_URL_EXAMPLE, disputes: [] }] });

export const ListChargesQuery = Type.Object({
  ...ListQuery,
  status: Type.Optional(Status),
  paymentMethod: Type.Optional(Type.String({ maxLength: 20, description: "Payment method type, e.g. pix." })),
  customerId: Type.Optional(Type.String({ maxLength: 64 })),
}, { additionalProperties: false });

export const ChargeList = ListOf(Charge, { data: [PIX_PENDING_EXAMPLE, CARD_CHARGE_EXAMPLE], hasMore: true });

export const RefundBody = Type.Object({
  amount: Type.Optional(Type.Number({ description: "Currency units; the whole refundable rest by default; at most the currency's ceiling, 99,999,999 minor units unless the operator set MAX_AMOUNT_MINOR (999,999.99 BRL); above it: 422 amount_too_large." })),
}, { additionalProperties: false, examples: [{ amount: 10 }] });

const REFUND_EXAMPLE = {
  id: "re_01jd3mc4f6h8k0n2q4s6v8x0z2", chargeId: CARD_CHARGE_EXAMPLE.id, amount: 10, currency: "BRL", status: "succeeded", chargeStatus: "paid",
  createdAt: "2026-11-23T14:00:00.000Z",
};

export const Refund = Type.Object({
  id: Type.String(),
  chargeId: Type.String(),
  amount: Type.Number(),
  currency: Type.String(),
  status: Type.Union([Type.Literal("succeeded"), Type.Literal("failed"), Type.Literal("pending")], {
    description: "pending: a live provider accepted the refund without finishing it, or gave no answer to rely on. "
      + "The amount stays reserved (counted in the charge's amountRefunded, so it cannot be refunded twice) until feira reads the refund again at the provider "
      + "(every PROCESSOR_RECONCILE_INTERVAL_MS): succeeded sends charge.refunded, failed releases the amount and sends charge.refund_failed. "
      + "GET /v1/charges/{id}/refunds shows where each refund is now.",
  }),
  chargeStatus: Status,
  createdAt: Type.String({ format: "date-time" }),
}, {
  examples: [REFUND_EXAMPLE],
});

export const RefundList = Type.Object({
  data: Type.Array(Refund, { description: "Newest first, at most 100; chargeStatus is the charge's status now." }),
  hasMore: Type.Boolean({ description: "True when the charge has more than 100 refunds." }),
}, {
  examples: [{ data: [{ ...REFUND_EXAMPLE, id: "re_01jd3md7k9n1q3s5v7x9z1b3d5", amount: 5, status: "failed", createdAt: "2026-11-24T09:30:00.000Z" }, REFUND_EXAMPLE], hasMore: false }],
});

export const ResendWebhookBody = Type.Object({ status: Status }, { additionalProperties: false, examples: [{ status: "paid" }] });
export const ResendWebhookResponse = Type.Object({
  eventId: Type.String(),
  event: Type.String(),
  status: Status,
}, { examples: [{ eventId: "evt_01jd3md6h8k0n2q4s6v8x0z2b4", event: "charge.paid", status: "paid" }] });

export const PayBody = Type.Object({
  via: Type.Optional(Type.Union([Type.Literal("boleto"), Type.Literal("pix")], {
    description: "A boleto's payer used its line (boleto, the default) or the Pix BR Code it carries (pix). Naming the other one on a boleto already paid is its second payment: refunded in full at once (charge.late_payment_refunded), the charge stays paid by the first.",
  })),
}, { additionalProperties: false, examples: [{ via: "pix" }] });
export const AuthenticateBody = Type.Object({
  result: Type.Union([Type.Literal("succeeded"), Type.Literal("failed")]),
}, { additionalProperties: false, examples: [{ result: "succeeded" }] });
export const ReviewBody = Type.Object({
  result: Type.Union([Type.Literal("approved"), Type.Literal("rejected")]),
}, { additionalProperties: false, examples: [{ result: "approved" }] });
