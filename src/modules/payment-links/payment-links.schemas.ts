import { Type } from "typebox";
import { ListOf, ListQuery, MerchantUrl } from "../../http/schemas.js";
import { CARD_CHARGE_EXAMPLE, Charge, ChargeCustomer, PaymentMethodInput, ShippingAddressInput } from "../charges/index.js";

// Wire shapes of payment links and of the public checkout calls. Amounts are in
// currency units, like charges; measures in cm and kg.
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const FreightMode = Type.Union([Type.Literal("checkout"), Type.Literal("fixed"), Type.Literal("pickup"), Type.Literal("free")], {
  description: "checkout: live Melhor Envio quote at checkout (BRL, physical products with measures); fixed: fixedFreightAmount; pickup: the buyer collects; free: no freight.",
});
const Measure = (what: string) => Type.Number({ exclusiveMinimum: 0, maximum: 10_000, description: what });

export const ProductInput = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 200 }),
  unitPrice: Type.Number({ description: "Currency units, e.g. 59.9. Each price, the products' total and the total with fixedFreightAmount are at most the currency's ceiling, 99,999,999 minor units unless the operator set MAX_AMOUNT_MINOR (999,999.99 BRL); above it: 422 amount_too_large naming the field." }),
  quantity: Type.Integer({ minimum: 1, maximum: 10_000 }),
  physical: Type.Boolean({ description: "Shipped goods; in checkout mode they need width, height, length and weight." }),
  width: Type.Optional(Measure("cm")),
  height: Type.Optional(Measure("cm")),
  length: Type.Optional(Measure("cm")),
  weight: Type.Optional(Measure("kg")),
}, { additionalProperties: false });

const example = {
  title: "Caneca artesanal",
  description: "Cerâmica feita à mão, 300 ml",
  currency: "BRL",
  freightMode: "checkout",
  products: [{ title: "Caneca azul", unitPrice: 59.9, quantity: 2, physical: true, width: 12, height: 10, length: 12, weight: 0.4 }],
  successUrl: "https://loja.example.com/obrigado",
};

export const CreateLinkBody = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  currency: Type.String({ pattern: "^[A-Za-z]{3}$" }),
  freightMode: FreightMode,
  fixedFreightAmount: Type.Optional(Type.Number({ description: "Currency units; required with freightMode fixed, refused otherwise." })),
  products: Type.Array(ProductInput, { minItems: 1, maxItems: 20 }),
  successUrl: Type.Optional(MerchantUrl({ description: "Where the buyer goes after paying; otherwise a receipt is shown. The rules of every merchant URL: in production https, and no loopback, private, link-local or metadata host (also in sandbox, link-local and metadata ones are refused)." })),
  expiresAt: Type.Optional(Type.String({ format: "date-time", description: "After this the link takes no payment." })),
}, { additionalProperties: false, examples: [example] });

export const UpdateLinkBody = Type.Object({
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  currency: Type.Optional(Type.String({ pattern: "^[A-Za-z]{3}$" })),
  freightMode: Type.Optional(FreightMode),
  fixedFreightAmount: Type.Optional(Nullable(Type.Number())),
  products: Type.Optional(Type.Array(ProductInput, { minItems: 1, maxItems: 20 })),
  successUrl: Type.Optional(Nullable(MerchantUrl())),
  expiresAt: Type.Optional(Nullable(Type.String({ format: "date-time" }))),
  active: Type.Optional(Type.Boolean({ description: "false deactivates the link (as DELETE does); true reactivates it." })),
}, { additionalProperties: false, examples: [{ title: "Caneca artesanal (promoção)", freightMode: "fixed", fixedFreightAmount: 15 }] });

const Product = Type.Object({
  id: Type.String(),
  title: Type.String(),
  unitPrice: Type.Number(),
  quantity: Type.Integer(),
  physical: Type.Boolean(),
  width: Nullable(Type.Number()),
  height: Nullable(Type.Number()),
  length: Nullable(Type.Number()),
  weight: Nullable(Type.Number()),
});

const LINK_EXAMPLE = {
  ...example, id: "pl_01jd2x0000abcdefghjkmnpqrs", object: "payment_link", livemode: false, active: true,
  url: "https://pay.example.com/pay/pl_01jd2x0000abcdefghjkmnpqrs", fixedFreightAmount: null, subtotal: 119.8, expiresAt: null,
  products: [{ id: "item_1", title: "Caneca azul", unitPrice: 59.9, quantity: 2, physical: true, width: 12, height: 10, length: 12, weight: 0.4 }],
  createdAt: "2026-11-23T10:00:00.000Z", updatedAt: "2026-11-23T10:00:00.000Z",
};

export const PaymentLink = Type.Object({
  id: Type.String(),
  object: Type.Literal("payment_link"),
  livemode: Type.Boolean(),
  active: Type.Boolean(),
  url: Type.String({ description: "The hosted checkout page to share with buyers." }),
  title: Type.String(),
  description: Nullable(Type.String()),
  currency: Type.String(),
  freightMode: FreightMode,
  fixedFreightAmount: Nullable(Type.Number()),
  products: Type.Array(Product),
  subtotal: Type.Number({ description: "Products total, currency units." }),
  successUrl: Nullable(Type.String()),
  expiresAt: Nullable(Type.String({ format: "date-time" })),
  createdAt: Type.String({ format: "date-time" }),
  updatedAt: Type.String({ format: "date-time" }),
}, { examples: [LINK_EXAMPLE] });

export const PaymentLinkList = ListOf(PaymentLink, { data: [LINK_EXAMPLE], hasMore: false });

// The link example paid by card in 3 installments with PAC freight: 119,80 + 18,60 = 138,40;
// fee 0,30 + 5,99 % (3 installments) = 8,59, net 129,81.
const CARD_3X = { ...CARD_CHARGE_EXAMPLE.paymentDetails, installments: 3 };
export const LinkPayments = ListOf(Charge, {
  data: [{
    ...CARD_CHARGE_EXAMPLE, id: "ch_01jd2x0000abcdefghjkmnpqrs", amount: 138.4, paidAmount: 138.4, paidBreakdown: { principal: 138.4, discount: 0, fine: 0, interest: 0 }, spread: 8.59, net: 129.81, paymentMethod: { type: "credit_card", ...CARD_3X },
    paymentDetails: CARD_3X, metadata: null, paymentLinkId: LINK_EXAMPLE.id,
    items: [{ title: "Caneca azul", unit_price: 59.9, quantity: 2 }],
    shippingAddress: { postalCode: "20040-020", street: "Av. Rio Branco", number: "1", city: "Rio de Janeiro", state: "RJ", country: "BR" },
    freight_amount: 18.6, freight_details: { provider: "melhor_envio", serviceId: 1, serviceName: "PAC", company: "Correios", price: 18.6, deliveryTime: 6 },
  }],
  hasMore: false,
});
export const ListLinksQuery = Type.Object({
  ...ListQuery,
  active: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

export const PublicLink = Type.Object({
  id: Type.String(),
  livemode: Type.Boolean(),
  title: Type.String(),
  description: Nullable(Type.String()),
  currency: Type.String(),
  freightMode: FreightMode,
  fixedFreightAmount: Nullable(Type.Number()),
  products: Type.Array(Type.Object({ id: Type.String(), title: Type.String(), unitPrice: Type.Number(), quantity: Type.Integer(), physical: Type.Boolean() })),
  subtotal: Type.Number(),
  merchant: Type.Object({ name: Type.String() }),
}, {
  description: "What a buyer needs, and nothing else: no merchant ids or settings, no raw provider fields.",
  examples: [{
    id: "pl_01jd2x0000abcdefghjkmnpqrs", livemode: false, title: "Caneca artesanal", description: "Cerâmica feita à mão, 300 ml", currency: "BRL",
    freightMode: "checkout", fixedFreightAmount: null, products: [{ id: "item_1", title: "Caneca azul", unitPrice: 59.9, quantity: 2, physical: true }],
    subtotal: 119.8, merchant: { name: "Ateliê Barro" },
  }],
});

export const CartItems = Type.Array(Type.Object({
  productId: Type.String({ maxLength: 20 }),
  quantity: Type.Integer({ minimum: 1, maximum: 10_000 }),
}, { additionalProperties: false }), { minItems: 1, maxItems: 20, description: "Quantities per product id; the link's own quantities by default." });

export const QuoteBody = Type.Object({
  postalCode: Type.String({ maxLength: 12, description: "Destination CEP: 00000-000 or 00000000." }),
  items: Type.Optional(CartItems),
}, { additionalProperties: false, examples: [{ postalCode: "20040-020" }] });

export const QuoteResponse = Type.Object({
  options: Type.Array(Type.Object({
    serviceId: Type.Integer(),
    name: Type.String(),
    company: Type.String(),
    price: Type.Number({ description: "BRL." }),
    deliveryTime: Nullable(Type.Integer({ description: "Days." })),
    currency: Type.Literal("BRL"),
  })),
}, {
  examples: [{ options: [{ serviceId: 1, name: "PAC", company: "Correios", price: 18.6, deliveryTime: 6, currency: "BRL" }, { serviceId: 2, name: "SEDEX", company: "Correios", price: 32.4, deliveryTime: 2, currency: "BRL" }] }],
});

export const LinkChargeBody = Type.Object({
  customer: ChargeCustomer,
  paymentMethod: PaymentMethodInput,
  shippingAddress: Type.Optional(ShippingAddressInput),
  freightServiceId: Type.Optional(Type.Integer({ minimum: 1, description: "Required with freightMode checkout: a serviceId from the quote; re-quoted and checked by the server." })),
  installments: Type.Optional(Type.Integer({ minimum: 1, maximum: 12, description: "Card only." })),
  items: Type.Optional(CartItems),
}, {
  additionalProperties: false,
  examples: [{
    customer: { name: "Maria Silva", email: "maria@example.com", document: { type: "cpf", id: "529.982.247-25" } },
    paymentMethod: { type: "pix" },
    shippingAddress: { postalCode: "20040-020", street: "Av. Rio Branco", number: "1", city: "Rio de Janeiro", state: "RJ", country: "BR" },
    freightServiceId: 1,
  }],
});

export const LinkChargeCreated = Type.Object({
  id: Type.String(),
  status: Type.String(),
  paymentDetails: Nullable(Type.Record(Type.String(), Type.Unknown())),
  reason: Nullable(Type.String()),
  amount: Type.Number({ description: "Products plus freight, currency units." }),
  freightAmount: Type.Number(),
  successUrl: Nullable(Type.String()),
}, { examples: [{ id: "ch_01jd2x0000abcdefghjkmnpqrs", status: "paid", paymentDetails: { lastFour: "1111", installments: 3 }, reason: null, amount: 138.4, freightAmount: 18.6, successUrl: null }] });

export const ChargeStatusResponse = Type.Object({
  id: Type.String(),
  status: Type.String(),
  paid: Type.Boolean(),
}, { examples: [{ id: "ch_01jd2x0000abcdefghjkmnpqrs", status: "paid", paid: true }] });

export const AvailabilityQuery = Type.Object({
  merchantId: Type.String({ minLength: 1, maxLength: 64 }),
  environment: Type.Optional(Type.Union([Type.Literal("sandbox"), Type.Literal("production")])),
});
export const AvailabilityResponse = Type.Object({
  hasFreightTool: Type.Boolean({ description: "True once the merchant's Melhor Envio integration is active (in the given environment, or in either)." }),
}, { examples: [{ hasFreightTool: true }] });

export const LinkChargeParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), chargeId: Type.String({ minLength: 1, maxLength: 64 }) });
