import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";

// GET/PUT /v1/settings/installments and GET /v1/installments over HTTP: per environment, per
// merchant, the defaults of today (12 installments, all interest-free), each bad value a 422
// naming its field with nothing written, and the quote's price table.

let t: TestApp;
let m: SeededMerchant;
let other: SeededMerchant;
before(async () => {
  t = await buildTestApp();
  [m, other] = [await seedMerchant(t), await seedMerchant(t)];
});
after(() => t.close());

const call = (method: "GET" | "PUT", url: string, key: string, payload?: unknown) =>
  t.app.inject({ method, url, headers: { authorization: basic(key) }, ...(payload === undefined ? {} : { payload: payload as never }) });

// A change answers once every API process has forgotten the terms it kept (config-changes.ts):
// in the topology run (two API processes answering in turn) the very next read, on either, sees it.

test("unset, the settings are today's behaviour: 12 installments, all interest-free; the quote divides the price", async () => {
  const res = await call("GET", "/v1/settings/installments", m.sandboxKey);
  expectStatus(res, 200);
  assert.deepEqual(res.json(), { maxInstallments: 12, interestFreeInstallments: 12, monthlyInterestPercent: 0 });
  const quote = await call("GET", "/v1/installments?amount=100&currency=BRL", m.sandboxKey);
  expectStatus(quote, 200);
  const data = quote.json().data;
  assert.equal(data.length, 12);
  assert.deepEqual(data[2], { installments: 3, installmentAmount: 33.33, totalAmount: 100, interestFree: true });
  assert.ok(data.every((p: { interestFree: boolean; totalAmount: number }) => p.interestFree && p.totalAmount === 100));
});

test("PUT sets one environment's terms; the quote applies the price table beyond the interest-free installments", async () => {
  const put = await call("PUT", "/v1/settings/installments", m.sandboxKey, { maxInstallments: 12, interestFreeInstallments: 3, monthlyInterestPercent: 1.99 });
  expectStatus(put, 200);
  assert.deepEqual(put.json(), { maxInstallments: 12, interestFreeInstallments: 3, monthlyInterestPercent: 1.99 });
  for (let i = 0; i < 2; i++) assert.deepEqual((await call("GET", "/v1/settings/installments", m.sandboxKey)).json(), put.json());
  // The other environment and the other merchant keep the defaults.
  assert.equal((await call("GET", "/v1/settings/installments", m.productionKey)).json().interestFreeInstallments, 12);
  assert.equal((await call("GET", "/v1/settings/installments", other.sandboxKey)).json().interestFreeInstallments, 12);

  const data = (await call("GET", "/v1/installments?amount=1000&currency=BRL", m.sandboxKey)).json().data;
  assert.deepEqual(data[2], { installments: 3, installmentAmount: 333.33, totalAmount: 1000, interestFree: true });
  // R$ 1.000,00 at 1.99 % a month: PMT 262.5600..., in 12: PMT 94.5015... (computed apart).
  assert.deepEqual(data[3], { installments: 4, installmentAmount: 262.56, totalAmount: 1050.24, interestFree: false });
  assert.deepEqual(data[11], { installments: 12, installmentAmount: 94.5, totalAmount: 1134.02, interestFree: false });

  // Fewer installments at most: the quote stops there.
  expectStatus(await call("PUT", "/v1/settings/installments", m.sandboxKey, { maxInstallments: 6, interestFreeInstallments: 6, monthlyInterestPercent: 0 }), 200);
  for (let i = 0; i < 2; i++) assert.equal((await call("GET", "/v1/installments?amount=1000&currency=BRL", m.sandboxKey)).json().data.length, 6);
});

test("bad settings are a 422 naming the field, and change nothing", async () => {
  const before = (await call("GET", "/v1/settings/installments", other.productionKey)).json();
  const cases: [unknown, RegExp][] = [
    [{ maxInstallments: 13, interestFreeInstallments: 1, monthlyInterestPercent: 0 }, /maxInstallments/],
    [{ maxInstallments: 0, interestFreeInstallments: 1, monthlyInterestPercent: 0 }, /maxInstallments/],
    [{ maxInstallments: 6, interestFreeInstallments: 7, monthlyInterestPercent: 0 }, /interestFreeInstallments/],
    [{ maxInstallments: 6, interestFreeInstallments: 0, monthlyInterestPercent: 0 }, /interestFreeInstallments/],
    [{ maxInstallments: 6, interestFreeInstallments: 1, monthlyInterestPercent: 10 }, /monthlyInterestPercent/],
    [{ maxInstallments: 6, interestFreeInstallments: 1, monthlyInterestPercent: -1 }, /monthlyInterestPercent/],
    [{ maxInstallments: 6, interestFreeInstallments: 1, monthlyInterestPercent: 1.999 }, /monthlyInterestPercent/],
    [{ maxInstallments: 6, interestFreeInstallments: 1 }, /monthlyInterestPercent/],
  ];
  for (const [payload, field] of cases) {
    const res = await call("PUT", "/v1/settings/installments", other.productionKey, payload);
    expectStatus(res, 422);
    assert.match(res.json().message, field, JSON.stringify(payload));
  }
  assert.deepEqual((await call("GET", "/v1/settings/installments", other.productionKey)).json(), before);
});

test("the quote: a bad amount or currency is a 422; no key is a 401", async () => {
  expectStatus(await call("GET", "/v1/installments?amount=0&currency=BRL", m.sandboxKey), 422);
  expectStatus(await call("GET", "/v1/installments?amount=abc&currency=BRL", m.sandboxKey), 422);
  expectStatus(await call("GET", "/v1/installments?amount=10&currency=XYZ", m.sandboxKey), 422);
  expectStatus(await call("GET", "/v1/installments?amount=10", m.sandboxKey), 422);
  expectStatus(await t.app.inject({ method: "GET", url: "/v1/installments?amount=10&currency=BRL" }), 401);
  expectStatus(await t.app.inject({ method: "GET", url: "/v1/settings/installments" }), 401);
});
