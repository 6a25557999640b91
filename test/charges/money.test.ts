import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, createCharge, get, post } from "../helpers/charges.js";

let t: TestApp;
let m: SeededMerchant;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
});
after(async () => { await t.close(); });

test("amounts: currency units in, integer minor units stored, the currency's decimals enforced", async () => {
  const accepted: [unknown, string, number][] = [[1, "BRL", 1], [10.5, "BRL", 10.5], [0.29 + 1, "BRL", 1.29], [100, "JPY", 100], [1.001, "KWD", 1.001]];
  for (const [amount, currency, expected] of accepted) {
    const c = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa, { amount, currency }));
    const got = await get(t, m.sandboxKey, `/v1/charges/${c.id}`);
    assert.equal(got.json().amount, expected, `${amount} ${currency}`);
    assert.equal(got.json().currency, currency);
  }
  const refused: [unknown, string][] = [[0, "BRL"], [0.5, "BRL"], [-10, "BRL"], [10.123, "BRL"], ["10", "BRL"], [null, "BRL"], [1.5, "JPY"], [true, "BRL"]];
  for (const [amount, currency] of refused) {
    const res = await post(t, m.sandboxKey, "/v1/charges", cardCharge(CARDS.visa, { amount, currency }));
    expectStatus(res, 422);
    assert.match(res.json().message, /amount/, res.body);
  }
});

test("1e400 (Infinity once parsed) and NaN-like input are 422, never stored", async () => {
  const body = JSON.stringify(cardCharge(CARDS.visa)).replace('"amount":100', '"amount":1e400');
  const res = await t.app.inject({
    method: "POST", url: "/v1/charges", payload: body,
    headers: { authorization: basic(m.sandboxKey), "content-type": "application/json" },
  });
  expectStatus(res, 422);
  assert.match(res.json().message, /amount/);
});

test("the amount in events is in cents and the API answers in units", async () => {
  const c = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa, { amount: 19.99 }));
  const got = await get(t, m.sandboxKey, `/v1/charges/${c.id}`);
  assert.equal(got.json().amount, 19.99);
  assert.equal(got.json().net, 19.99, "no fees configured: net = amount");
});

test("fees from the merchant's tx_spread and anticipation definitions: spread, anticipation fee and net", async () => {
  const fm = await seedMerchant(t);
  const fees = await t.app.inject({
    method: "PUT", url: `/v1/admin/merchants/${fm.id}/fees`, headers: { authorization: basic(t.admin) },
    payload: {
      fees: [
        { feeType: "tx_spread", paymentMethod: "credit_card", currencyCode: "BRL", brand: null, definition: { fixed: 30, percentages: [3.99, 4.49, 4.99] } },
        { feeType: "tx_spread", paymentMethod: "credit_card", currencyCode: "BRL", brand: "mastercard", definition: { fixed: 0, percentages: [2.5] } },
        { feeType: "anticipation", paymentMethod: "credit_card", currencyCode: "BRL", brand: null, definition: { fixed: 0, percentages: [1.5, 2.5, 3.5] } },
        { feeType: "tx_spread", paymentMethod: "pix", currencyCode: "BRL", brand: null, definition: { fixed: 0, percentages: [0.99] } },
      ],
    },
  });
  expectStatus(fees, 200);
  const rows: [Record<string, unknown>, number, number, number][] = [
    // amount R$100.00, visa 1x: spread 30 + 3.99% = 429; anticipation 1.5% = 150
    [cardCharge(CARDS.visa), 4.29, 1.5, 94.21],
    // 3x: spread 30 + 4.99% = 529; anticipation 3.5% = 350
    [cardCharge(CARDS.visa, {}, { installments: 3 }), 5.29, 3.5, 91.21],
    // mastercard override: 2.5% = 250
    [cardCharge(CARDS.mastercard), 2.5, 1.5, 96],
    // pix: 0.99% of 50.50 = 49.995 cents -> 50 (half-up once); no anticipation
    [{ ...cardCharge(CARDS.visa, { amount: 50.5 }), paymentMethod: { type: "pix" } }, 0.5, 0, 50],
  ];
  for (const [body, spread, anticipation, net] of rows) {
    const c = await createCharge(t, fm.sandboxKey, body);
    const got = (await get(t, fm.sandboxKey, `/v1/charges/${c.id}`)).json();
    assert.deepEqual([got.spread, got.anticipationFeeEstimated, got.net], [spread, anticipation, net], JSON.stringify(body.paymentMethod));
  }
});
