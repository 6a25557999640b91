import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { LightMyRequestResponse } from "fastify";
import { queryRows, sql } from "../../src/db/client.js";
import { basic, buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, customer, methodCharge } from "../helpers/charges.js";
import { activate, createSubmerchant, FEES, keyOf, seedMaster } from "../connect/helpers.js";

// The ceiling on amounts (MAX_AMOUNT_MINOR, 99,999,999 minor units by default: 999,999.99 BRL):
// charges, refunds, payouts, plan prices and payment links above it are a 422 amount_too_large
// naming the field, with nothing written; the maximum itself is accepted.

function expectTooLarge(res: LightMyRequestResponse, message: string): void {
  expectStatus(res, 422);
  assert.deepEqual(res.json(), { statusCode: 422, error: "Unprocessable Entity", code: "amount_too_large", message });
}

const TABLES = ["charges", "refunds", "payout_requests", "plans", "payment_links", "ledger_entries", "sandbox_processor_records", "idempotency_keys", "events"];
async function rowCounts(t: TestApp): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) counts[table] = (await queryRows<{ n: number }>(t.database.db, sql.raw(`select count(*)::int as n from ${table}`)))[0]!.n;
  return counts;
}

const card = { type: "credit_card", number: CARDS.visa, holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2030", cvv: "123" };
const product = (unitPrice: number, quantity = 1) => ({ title: "Caneca", unitPrice, quantity, physical: false });
const link = (extra: Record<string, unknown> = {}) => ({ title: "Caneca", currency: "BRL", freightMode: "free", products: [product(10)], ...extra });
const plan = (price: number, currency = "BRL") => ({ name: "Pro", price, currency, interval: "month" });

describe("with the default ceiling (999,999.99 BRL)", () => {
  let t: TestApp;
  let master: SeededMerchant;
  const send = (method: "POST" | "PATCH", url: string, payload: unknown, key: string | null = master.sandboxKey) =>
    t.app.inject({ method, url, headers: key ? { authorization: basic(key) } : {}, payload: payload as never });
  before(async () => {
    t = await buildTestApp();
    master = await seedMaster(t, FEES);
  });
  after(async () => { await t.close(); });

  test("charges: 999,999.99 BRL is paid; a cent more, 99,999,999,999.99 BRL or 100,000,000 JPY is refused and writes nothing", async () => {
    const paid = await send("POST", "/v1/charges", cardCharge(CARDS.visa, { amount: 999_999.99 }));
    expectStatus(paid, 201);
    assert.equal(paid.json().status, "paid");
    expectStatus(await send("POST", "/v1/charges", cardCharge(CARDS.visa, { amount: 99_999_999, currency: "JPY" })), 201);
    const before = await rowCounts(t);
    expectTooLarge(await send("POST", "/v1/charges", cardCharge(CARDS.visa, { amount: 1_000_000 })), "amount must be at most 999999.99 BRL");
    expectTooLarge(await send("POST", "/v1/charges", cardCharge(CARDS.visa, { amount: 99_999_999_999.99 })), "amount must be at most 999999.99 BRL");
    expectTooLarge(await send("POST", "/v1/charges", cardCharge(CARDS.visa, { amount: 1e21 })), "amount must be at most 999999.99 BRL");
    expectTooLarge(await send("POST", "/v1/charges", methodCharge({ type: "pix" }, { amount: 1_000_000.01 })), "amount must be at most 999999.99 BRL");
    expectTooLarge(await send("POST", "/v1/charges", cardCharge(CARDS.visa, { amount: 100_000_000, currency: "jpy" })), "amount must be at most 99999999 JPY");
    expectTooLarge(await send("POST", "/v1/charges", cardCharge(CARDS.visa, { amount: 100_000.001, currency: "KWD" })), "amount must be at most 99999.999 KWD");
    assert.deepEqual(await rowCounts(t), before);
  });

  test("refunds: above the ceiling is amount_too_large (before the refundable rest); the maximum is refunded", async () => {
    const charge = (await send("POST", "/v1/charges", cardCharge(CARDS.visa, { amount: 999_999.99 }))).json();
    const before = await rowCounts(t);
    expectTooLarge(await send("POST", `/v1/charges/${charge.id}/refund`, { amount: 1_000_000 }), "amount must be at most 999999.99 BRL");
    expectTooLarge(await send("POST", `/v1/charges/${charge.id}/refund`, { amount: 99_999_999_999.99 }), "amount must be at most 999999.99 BRL");
    assert.deepEqual(await rowCounts(t), before);
    const refunded = await send("POST", `/v1/charges/${charge.id}/refund`, { amount: 999_999.99 });
    expectStatus(refunded, 201);
    assert.equal(refunded.json().amount, 999_999.99);
  });

  test("plans: a price above the ceiling names price; the maximum is accepted", async () => {
    expectStatus(await send("POST", "/v1/plans", plan(999_999.99)), 201);
    const before = await rowCounts(t);
    expectTooLarge(await send("POST", "/v1/plans", plan(1_000_000)), "price must be at most 999999.99 BRL");
    expectTooLarge(await send("POST", "/v1/plans", plan(99_999_999_999.99)), "price must be at most 999999.99 BRL");
    assert.deepEqual(await rowCounts(t), before);
  });

  test("payment links: unitPrice, the products' total, fixedFreightAmount and the total with freight; on create and on update", async () => {
    const before = await rowCounts(t);
    expectTooLarge(await send("POST", "/v1/payment-links", link({ products: [product(10), product(1_000_000)] })), "products.1.unitPrice must be at most 999999.99 BRL");
    expectTooLarge(await send("POST", "/v1/payment-links", link({ products: [product(600_000, 2)] })),
      "products: the total of the products (unitPrice x quantity) is 1200000.00 BRL, above the maximum amount of 999999.99 BRL");
    expectTooLarge(await send("POST", "/v1/payment-links", link({ freightMode: "fixed", fixedFreightAmount: 1_000_000 })), "fixedFreightAmount must be at most 999999.99 BRL");
    expectTooLarge(await send("POST", "/v1/payment-links", link({ products: [product(999_999.99)], freightMode: "fixed", fixedFreightAmount: 0.01 })),
      "fixedFreightAmount: the total of the products and fixedFreightAmount is 1000000.00 BRL, above the maximum amount of 999999.99 BRL");
    assert.deepEqual(await rowCounts(t), before);

    const created = await send("POST", "/v1/payment-links", link({ products: [product(499_999.99), product(250_000, 2)] }));
    expectStatus(created, 201);
    const id = created.json().id;
    assert.equal(created.json().subtotal, 999_999.99);
    expectTooLarge(await send("PATCH", `/v1/payment-links/${id}`, { freightMode: "fixed", fixedFreightAmount: 1 }),
      "fixedFreightAmount: the total of the products and fixedFreightAmount is 1000000.99 BRL, above the maximum amount of 999999.99 BRL");
    expectTooLarge(await send("PATCH", `/v1/payment-links/${id}`, { products: [product(1_000_000)] }), "products.0.unitPrice must be at most 999999.99 BRL");

    // Checkout: the buyer's quantities are checked too; the link's own total is paid.
    const buyer = { customer, paymentMethod: card };
    expectTooLarge(await send("POST", `/v1/payment-links/${id}/charge`, { ...buyer, items: [{ productId: "item_1", quantity: 3 }] }, null),
      "items: the total of the products (unitPrice x quantity) is 1499999.97 BRL, above the maximum amount of 999999.99 BRL");
    const paid = await send("POST", `/v1/payment-links/${id}/charge`, buyer, null);
    expectStatus(paid, 201);
    assert.equal(paid.json().amount, 999_999.99);
  });

  test("payouts: above 99,999,999 cents is refused before the balance is looked at; the maximum is paid out", async () => {
    const sm = await createSubmerchant(t, master.sandboxKey);
    await activate(t, master.sandboxKey, sm.id);
    const key = await keyOf(t, master.sandboxKey, sm.id);
    for (let i = 0; i < 2; i++) {
      const c = await send("POST", "/v1/charges", methodCharge({ type: "pix" }, { amount: 999_999.99 }), key);
      expectStatus(c, 201);
      expectStatus(await send("POST", `/v1/sandbox/charges/${c.json().id}/pay`, {}, key), 200);
    }
    expectStatus(await send("POST", "/v1/sandbox/settle", {}, key), 200);
    const before = await rowCounts(t);
    for (const amount of [100_000_000, 99_999_999_999]) {
      expectTooLarge(await send("POST", `/v1/submerchants/${sm.id}/payout-requests`, { amount }, key), "amount must be at most 99999999 (in minor units: 999999.99 BRL)");
    }
    assert.deepEqual(await rowCounts(t), before);
    const payout = await send("POST", `/v1/submerchants/${sm.id}/payout-requests`, { amount: 99_999_999 }, master.sandboxKey);
    expectStatus(payout, 201);
    assert.equal(payout.json().amount, 99_999_999);
  });
});

describe("with MAX_AMOUNT_MINOR=500000 and MAX_AMOUNT_MINOR_JPY=1000", () => {
  let t: TestApp;
  let master: SeededMerchant;
  const send = (url: string, payload: unknown) => t.app.inject({ method: "POST", url, headers: { authorization: basic(master.sandboxKey) }, payload: payload as never });
  before(async () => {
    t = await buildTestApp({ amountLimits: { defaultMaxMinor: 500_000, maxMinorByCurrency: { JPY: 1000 } } });
    master = await seedMaster(t);
  });
  after(async () => { await t.close(); });

  test("each currency has its ceiling", async () => {
    expectStatus(await send("/v1/charges", cardCharge(CARDS.visa, { amount: 5000 })), 201);
    expectTooLarge(await send("/v1/charges", cardCharge(CARDS.visa, { amount: 5000.01 })), "amount must be at most 5000.00 BRL");
    expectStatus(await send("/v1/charges", cardCharge(CARDS.visa, { amount: 5000, currency: "USD" })), 201);
    expectTooLarge(await send("/v1/charges", cardCharge(CARDS.visa, { amount: 5000.01, currency: "USD" })), "amount must be at most 5000.00 USD");
    expectStatus(await send("/v1/charges", cardCharge(CARDS.visa, { amount: 1000, currency: "JPY" })), 201);
    expectTooLarge(await send("/v1/charges", cardCharge(CARDS.visa, { amount: 1001, currency: "JPY" })), "amount must be at most 1000 JPY");
    expectTooLarge(await send("/v1/plans", plan(1001, "JPY")), "price must be at most 1000 JPY");
    expectTooLarge(await send("/v1/payment-links", link({ products: [product(2500, 2)], freightMode: "fixed", fixedFreightAmount: 0.01 })),
      "fixedFreightAmount: the total of the products and fixedFreightAmount is 5000.01 BRL, above the maximum amount of 5000.00 BRL");
  });
});
