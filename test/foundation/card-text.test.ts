import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { LightMyRequestResponse } from "fastify";
import { queryRows, sql } from "../../src/db/client.js";
import { foldText } from "../../src/lib/text-fold.js";
import { CARD_FIELD_ROUTES, PROVIDER_NOTICE_ROUTES, cardFieldsOf } from "../../src/http/card-fields.js";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, customer } from "../helpers/charges.js";
import { submerchantBody } from "../connect/helpers.js";

// A card number typed in free text (a name, a title, a metadata value) is refused with a 422
// naming the field, before anything is stored; the card fields themselves take card numbers;
// documents, phones, postal codes and boleto lines pass.

let t: TestApp;
let m: SeededMerchant;
let customerId: string;
let linkId: string;
let planId: string;
let subscriptionId: string;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t, { connectEnabled: true });
  customerId = (await send("POST", "/v1/customers", newCustomer(), 201)).json().id;
  linkId = (await send("POST", "/v1/payment-links", link(), 201)).json().id;
  planId = (await send("POST", "/v1/plans", { name: "Pro", price: 29.9, currency: "BRL", interval: "month" }, 201)).json().id;
  subscriptionId = (await send("POST", "/v1/subscriptions", subscription(), 201)).json().id;
});
after(async () => { await t.close(); });

async function send(method: "POST" | "PATCH", url: string, payload: unknown, status?: number, key?: string | null) {
  const auth = key === null ? {} : { authorization: basic(key ?? m.sandboxKey) };
  const res = await t.app.inject({ method, url, headers: auth, payload: payload as never });
  if (status !== undefined) expectStatus(res, status);
  return res;
}

const newCustomer = (extra: Record<string, unknown> = {}) => ({ name: "Maria Silva", email: "maria@example.com", documentId: "529.982.247-25", documentType: "cpf", ...extra });
const link = (extra: Record<string, unknown> = {}) => ({
  title: "Caneca", currency: "BRL", freightMode: "free", products: [{ title: "Caneca azul", unitPrice: 59.9, quantity: 1, physical: false }], ...extra,
});
const card = (number: string = CARDS.visa) => ({ type: "credit_card", number, holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2030", cvv: "123" });
const subscription = (extra: Record<string, unknown> = {}) => ({ planId, customer, paymentMethod: card(), ...extra });

const TABLES = [
  "merchants", "customers", "cards", "charges", "refunds", "ledger_entries", "idempotency_keys", "sandbox_processor_records", "plans",
  "subscriptions", "payment_links", "submerchants", "webhook_endpoints", "events",
] as const;
async function rowCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) {
    const [row] = await queryRows<{ n: number }>(t.database.db, sql.raw(`select count(*)::int as n from ${table}`));
    counts[table] = row!.n;
  }
  return counts;
}

function expectRefused(res: LightMyRequestResponse, field: string, number: string): void {
  expectStatus(res, 422);
  const body = res.json();
  assert.equal(body.code, "card_number_in_text", res.body);
  assert.ok(body.message.startsWith(`${field} `), `the message names ${field}: ${body.message}`);
  const digits = foldText(number).replace(/\D/g, "");
  assert.ok(!res.body.replace(/\D/g, "").includes(digits.slice(0, 12)), `the answer does not echo the number: ${res.body}`);
}

// One writing route after the other, with the field that receives the number.
const SPELLINGS = [CARDS.visa, "4111 1111 1111 1111", "5555-5555-5555-4444", "4111.1111.1111.1111", "378282246310005"];
const meta = (k: string, v: unknown) => ({ [k]: v });
const CASES: { route: [method: "POST" | "PATCH", url: () => string]; field: string; body: (n: string) => unknown; key?: () => string | null }[] = [
  { route: ["POST", () => "/v1/customers"], field: "name", body: (n) => newCustomer({ name: `Maria ${n}` }) },
  { route: ["POST", () => `/v1/customers/${customerId}/cards`], field: "holderName", body: (n) => ({ number: CARDS.visa, holderName: n, expirationMonth: "12", expirationYear: "2030" }) },
  { route: ["POST", () => "/v1/charges"], field: "customer.name", body: (n) => cardCharge(CARDS.visa, { customer: { ...customer, name: n } }) },
  { route: ["POST", () => "/v1/charges"], field: "metadata.note", body: (n) => cardCharge(CARDS.visa, { metadata: meta("note", `cartão ${n}`) }) },
  { route: ["POST", () => "/v1/charges"], field: "metadata", body: (n) => cardCharge(CARDS.visa, { metadata: meta(n, "x") }) },
  { route: ["POST", () => "/v1/charges"], field: "items.0.title", body: (n) => cardCharge(CARDS.visa, { items: [{ title: n, unit_price: 1, quantity: 1 }] }) },
  { route: ["POST", () => "/v1/charges"], field: "items.1.description", body: (n) => cardCharge(CARDS.visa, { items: [{ title: "a", unit_price: 1, quantity: 1 }, { title: "b", description: n, unit_price: 1, quantity: 1 }] }) },
  { route: ["POST", () => "/v1/charges"], field: "paymentMethod.holderName", body: (n) => cardCharge(CARDS.visa, {}, { holderName: n }) },
  { route: ["POST", () => "/v1/charges"], field: "shippingAddress.complement", body: (n) => cardCharge(CARDS.visa, { shippingAddress: { postalCode: "01310-100", street: "Av. Paulista", number: "1000", complement: n, city: "São Paulo", state: "SP", country: "BR" } }) },
  { route: ["POST", () => "/v1/charges"], field: "customer.address.street", body: (n) => cardCharge(CARDS.visa, { customer: { ...customer, address: { country: "BR", street: n } } }) },
  { route: ["POST", () => "/v1/payment-links"], field: "title", body: (n) => link({ title: n }) },
  { route: ["POST", () => "/v1/payment-links"], field: "description", body: (n) => link({ description: `pague com ${n}` }) },
  { route: ["POST", () => "/v1/payment-links"], field: "products.0.title", body: (n) => link({ products: [{ title: n, unitPrice: 1, quantity: 1, physical: false }] }) },
  { route: ["PATCH", () => `/v1/payment-links/${linkId}`], field: "description", body: (n) => ({ description: n }) },
  { route: ["POST", () => `/v1/payment-links/${linkId}/charge`], field: "customer.name", body: (n) => ({ customer: { ...customer, name: n }, paymentMethod: card() }), key: () => null },
  { route: ["POST", () => "/v1/plans"], field: "name", body: (n) => ({ name: n, price: 10, currency: "BRL", interval: "month" }) },
  { route: ["POST", () => "/v1/plans"], field: "description", body: (n) => ({ name: "Pro", description: n, price: 10, currency: "BRL", interval: "month" }) },
  { route: ["PATCH", () => `/v1/plans/${planId}`], field: "name", body: (n) => ({ name: n }) },
  { route: ["POST", () => "/v1/subscriptions"], field: "metadata.card", body: (n) => subscription({ metadata: { card: n } }) },
  { route: ["PATCH", () => `/v1/subscriptions/${subscriptionId}`], field: "metadata.card", body: (n) => ({ metadata: { card: n } }) },
  { route: ["POST", () => "/v1/webhook-endpoints"], field: "description", body: (n) => ({ url: "https://example.com/hook", description: n }) },
  { route: ["POST", () => "/v1/submerchants"], field: "productDescription", body: (n) => submerchantBody({ productDescription: `cards like ${n}` }) },
  { route: ["POST", () => "/v1/submerchants"], field: "tradeName", body: (n) => submerchantBody({ tradeName: n }) },
  { route: ["POST", () => "/v1/admin/merchants"], field: "name", body: (n) => ({ name: n, email: "x@example.com", password: "correct horse battery" }), key: () => t.admin },
];

test("a card number in any free-text field is a 422 naming the field, and nothing is written", async () => {
  const before = await rowCounts();
  for (const c of CASES) {
    for (const number of SPELLINGS) {
      const res = await send(c.route[0], c.route[1](), c.body(number), undefined, c.key?.());
      expectRefused(res, c.field, number);
    }
  }
  // A card number sent as a JSON number, and under an Idempotency-Key: nothing is claimed either.
  const asNumber = await t.app.inject({
    method: "POST", url: "/v1/charges", headers: { authorization: basic(m.sandboxKey), "idempotency-key": "card-in-text" },
    payload: cardCharge(CARDS.visa, { metadata: { n: Number(CARDS.mastercard) } }),
  });
  expectRefused(asNumber, "metadata.n", CARDS.mastercard);
  assert.deepEqual(await rowCounts(), before);
  // The corrected retry under the same key runs.
  expectStatus(await t.app.inject({
    method: "POST", url: "/v1/charges", headers: { authorization: basic(m.sandboxKey), "idempotency-key": "card-in-text" },
    payload: cardCharge(CARDS.visa, { metadata: { n: 1 } }),
  }), 201);
});

// Every spelling found to pass the guard before it read folded text (src/lib/text-fold.ts): other
// separators, invisible ones, other digits, groups of two. Each was stored, returned, shown in the
// panel and put into Pix QR codes.
const UNICODE_SPELLINGS = [
  "4111\u00a01111\u00a01111\u00a01111", "4111\t1111\t1111\t1111", "4111\n1111\n1111\n1111", "4111_1111_1111_1111",
  "4111/1111/1111/1111", "4111,1111,1111,1111", "4111+1111+1111+1111", "4111\u20141111\u20141111\u20141111",
  "4111\u200b1111\u200b1111\u200b1111", "４１１１ １１１１ １１１１ １１１１", `\u0664${"\u0661".repeat(15)}`, "41 11 11 11 11 11 11 11",
  "5555\u00a05555\u20135555\u00a04444", "3782_822463_10005",
];

test("a card number in any spelling is a 422 naming the field, and nothing is written", async () => {
  const before = await rowCounts();
  const fields = new Set(["name", "metadata.note", "metadata", "customer.name", "items.0.title", "title", "description"]);
  for (const c of CASES.filter((c) => fields.has(c.field))) {
    for (const number of UNICODE_SPELLINGS) {
      const res = await send(c.route[0], c.route[1](), c.body(number), undefined, c.key?.());
      expectRefused(res, c.field, number);
    }
  }
  assert.deepEqual(await rowCounts(), before);
});

test("the card fields take card numbers: charges, the vault, subscriptions, link checkout, wallet tokens", async () => {
  expectStatus(await send("POST", "/v1/charges", cardCharge("4111 1111 1111 1111")), 201);
  expectStatus(await send("POST", "/v1/charges", cardCharge(CARDS.visa, {}, { number: undefined, holderName: undefined, expirationMonth: undefined, expirationYear: undefined, cvv: undefined, wallet: { type: "apple_pay", token: `tok_sandbox_${CARDS.visa}` } })), 201);
  expectStatus(await send("POST", `/v1/customers/${customerId}/cards`, { number: "5555-5555-5555-4444", holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2030" }), 201);
  expectStatus(await send("POST", "/v1/subscriptions", subscription({ paymentMethod: card(CARDS.mastercard) })), 201);
  expectStatus(await send("POST", `/v1/payment-links/${linkId}/charge`, { customer, paymentMethod: card() }, undefined, null), 201);
  // A password is never stored in the clear: any digits are fine.
  expectStatus(await send("POST", "/v1/admin/merchants", { name: "Loja", email: "digits@example.com", password: CARDS.visa }, undefined, t.admin), 201);
});

test("documents, phones, postal codes, boleto lines, dates and timestamps in free text pass", async () => {
  const texts = {
    cnpj: "11222000010204", // passes Luhn too
    cnpjFormatted: "11.222.000/0102-04",
    cpf: "529.982.247-25",
    phone: "+55 11 91234-5678",
    phoneBare: "5511912345678",
    phoneLocal: "(11) 91234-5678",
    cep: "01310-100",
    boleto: "23790.00009 01234.567891 23456.789017 1 96490000015990",
    boletoBare: "23790000090123456789123456789017196490000015990",
    utilityBill: "84670000001-7 43590024020-9 02405000243-5 84221010811-9",
    order: "Pedido 2026-000123, NF 000.123.456",
    // A millisecond timestamp that passes Luhn, in an e-mail: no card number starts with 17.
    timestampEmail: "pedido.1767225600140@example.com",
    dateTime: "30/11/2026 10:00:00, 2026-11-30 10:00:00.123",
    phones: "+49 1512 3456789 / +62 812 3456 7890",
  };
  const res = await send("POST", "/v1/charges", cardCharge(CARDS.visa, {
    customer: { ...customer, name: "Padaria Aurora 11222000010204", phone: "+55 11 91234-5678", document: { type: "cnpj", id: "11222000010204" } },
    metadata: texts,
    items: [{ title: "Boleto 23790.00009 01234.567891 23456.789017 1 96490000015990", description: `CEP ${texts.cep}, CPF ${texts.cpf}`, unit_price: 1, quantity: 1 }],
  }));
  expectStatus(res, 201);
  const charge = (await t.app.inject({ url: `/v1/charges/${res.json().id}`, headers: { authorization: basic(m.sandboxKey) } })).json();
  assert.deepEqual(charge.metadata, texts);
  expectStatus(await send("POST", "/v1/submerchants", submerchantBody({ companyTaxId: "11222000010204" })), 201);
});

test("the list of card fields names real routes, and every documented card field is on it", async () => {
  for (const route of [...CARD_FIELD_ROUTES, ...PROVIDER_NOTICE_ROUTES]) {
    const [method, url] = route.split(" ") as [string, string];
    assert.ok(t.app.hasRoute({ method: method as "POST", url }), `${route} is a route`);
  }
  // Every request body property documented as a card number or a wallet token, in /openapi.json.
  const doc = (await t.app.inject({ url: "/openapi.json" })).json();
  const found: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, { requestBody?: { content?: Record<string, { schema: unknown }> } }>>)) {
    for (const [method, op] of Object.entries(ops)) {
      const schema = op.requestBody?.content?.["application/json"]?.schema;
      const stack: [unknown, string][] = [[schema, ""]];
      while (stack.length > 0) {
        const [s, at] = stack.pop()!;
        if (!s || typeof s !== "object") continue;
        // The payment method variants are components (#/components/schemas/...): follow them.
        const ref = (s as { $ref?: string }).$ref;
        if (ref) {
          stack.push([doc.components.schemas[ref.replace("#/components/schemas/", "")], at]);
          continue;
        }
        const node = s as { description?: string; properties?: Record<string, unknown>; oneOf?: unknown[]; allOf?: unknown[]; anyOf?: unknown[] };
        if (at && /card number|\bPAN\b|wallet payment token/i.test(node.description ?? "")) {
          found.push(at);
          const route = `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`;
          assert.ok(cardFieldsOf(method.toUpperCase(), route.split(" ")[1]!)?.has(at), `${route} ${at} is documented as card data but not allowed to hold one`);
        }
        for (const [k, v] of Object.entries(node.properties ?? {})) stack.push([v, at ? `${at}.${k}` : k]);
        for (const v of [...(node.oneOf ?? []), ...(node.allOf ?? []), ...(node.anyOf ?? [])]) stack.push([v, at]);
      }
    }
  }
  assert.ok(found.includes("paymentMethod.number") && found.includes("paymentMethod.wallet.token") && found.includes("number"), found.join(", "));
});
