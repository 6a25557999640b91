import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.js";
import { expectStatus, buildTestApp, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge } from "../helpers/charges.js";
import { activate, assertLedgerInvariants, balanceOf, call, createSubmerchant, FEES, keyOf, seedMaster } from "../connect/helpers.js";

// A card charge whose buyer pays interest, over HTTP: `amount` stays the price, totalAmount and
// installmentAmount are added, the fees are on it, the
// interest is the originator's alone (never split), a full refund returns the total, and more
// installments than the merchant's maximum is a 422 naming paymentMethod.installments.

let t: TestApp;
let master: SeededMerchant;
let recipient: { id: string; key: string };
before(async () => {
  t = await buildTestApp();
  master = await seedMaster(t, FEES);
  const sm = await createSubmerchant(t, master.sandboxKey);
  await activate(t, master.sandboxKey, sm.id);
  recipient = { id: sm.id, key: await keyOf(t, master.sandboxKey, sm.id) };
  expectStatus(await call(t, "PUT", "/v1/settings/installments", master.sandboxKey, { maxInstallments: 10, interestFreeInstallments: 3, monthlyInterestPercent: 1.99 }), 200);
});
after(() => t.close());

const charge = (body: unknown) => call(t, "POST", "/v1/charges", master.sandboxKey, body);
const chargeCount = async () => Number((await queryRows<{ n: string }>(t.database.db, sql`select count(*)::text as n from charges`))[0]!.n);

test("interest-free installments: the charge is the price, as today", async () => {
  const res = await charge(cardCharge(CARDS.visa, { amount: 1000 }, { installments: 3 }));
  expectStatus(res, 201);
  const got = await call(t, "GET", `/v1/charges/${res.json().id}`, master.sandboxKey);
  const body = got.json();
  assert.equal(body.amount, 1000);
  assert.equal("totalAmount" in body, false, got.body);
  assert.equal("installmentAmount" in body, false);
});

test("beyond the interest-free installments the buyer pays the price table's total; the interest is the originator's, never split; a full refund returns the total", async () => {
  const masterBefore = (await balanceOf(t, master.sandboxKey)).pending;
  const res = await charge(cardCharge(CARDS.visa, { amount: 1000, split: [{ merchantId: recipient.id, percentage: 50 }] }, { installments: 10 }));
  expectStatus(res, 201);
  const c = (await call(t, "GET", `/v1/charges/${res.json().id}`, master.sandboxKey)).json();
  assert.equal(c.status, "paid", res.body);
  // R$ 1.000,00 at 1.99 % a month in 10: PMT 111.2682... (computed apart), 10 x PMT = 1112.682...
  assert.deepEqual([c.amount, c.totalAmount, c.installmentAmount], [1000, 1112.68, 111.27]);
  assert.equal(c.paymentDetails.installments, 10);
  // The fees are on what the buyer paid, as the processor's are: 10 % spread and 2.99 % anticipation (FEES).
  assert.equal(c.spread, 111.27);
  assert.equal(Math.round(c.net * 100), 111_268 - Math.round(c.spread * 100) - Math.round(c.anticipationFeeEstimated * 100));

  // The split divides the net of the price; the interest (112.68) goes to the originator alone.
  const interest = 11_268;
  const netMinor = Math.round(c.net * 100);
  const share = Math.round((netMinor - interest) / 2);
  assert.equal((await balanceOf(t, recipient.key)).pending, share);
  assert.equal((await balanceOf(t, master.sandboxKey)).pending - masterBefore, netMinor - share);
  await assertLedgerInvariants(t);

  // A refund of the whole charge is of the total; more than that is refused.
  expectStatus(await call(t, "POST", `/v1/charges/${c.id}/refund`, master.sandboxKey, { amount: 1112.69 }), 422);
  const refund = await call(t, "POST", `/v1/charges/${c.id}/refund`, master.sandboxKey, {});
  expectStatus(refund, 201);
  assert.equal(refund.json().amount, 1112.68);
  const after = (await call(t, "GET", `/v1/charges/${c.id}`, master.sandboxKey)).json();
  assert.deepEqual([after.status, after.amountRefunded], ["refunded", 1112.68]);
  assert.equal((await balanceOf(t, recipient.key)).pending, 0, "the recipient gives back exactly its share");
  await assertLedgerInvariants(t);
});

test("more installments than the merchant's maximum is a 422 naming paymentMethod.installments, and nothing is written", async () => {
  const before = await chargeCount();
  const res = await charge(cardCharge(CARDS.visa, { amount: 1000 }, { installments: 11 }));
  expectStatus(res, 422);
  assert.match(res.json().message, /paymentMethod\.installments must be at most 10/);
  assert.equal(await chargeCount(), before);
});
