import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { methodCharge } from "../helpers/charges.js";
import { openDispute } from "../disputes/helpers.js";
import { assertLedgerInvariants, call, activeSubmerchants, FEES, seedMaster } from "./helpers.js";

// Holds (issue 47 item 7): a split rule with hold: true keeps its share held (not pending, not
// available) until POST /v1/charges/{id}/release or the charge's refund; refunds and disputes
// draw on held money first; the submerchant's balance shows it; releasing twice moves it once.

let t: TestApp;
let master: SeededMerchant;
let other: SeededMerchant;
let a: { id: string; key: string };

before(async () => {
  t = await buildTestApp();
  master = await seedMaster(t, FEES);
  other = await seedMaster(t, FEES);
  [a] = (await activeSubmerchants(t, master.sandboxKey, 1)) as [typeof a];
});
after(async () => { await t.close(); });

const brl = (rows: { currency: string; amount: number }[]) => rows.find((r) => r.currency === "BRL")?.amount ?? 0;

/** a's balance as its master reads it: available, pending, held (BRL cents). */
async function balanceOfA(): Promise<{ available: number; pending: number; held: number }> {
  const res = await call(t, "GET", `/v1/submerchants/${a.id}/balance`, master.sandboxKey);
  expectStatus(res, 200);
  const b = res.json();
  return { available: brl(b.available), pending: brl(b.pending), held: brl(b.held) };
}

/** A paid R$ 100 Pix of the master with 25.00 held for a. */
async function heldCharge(): Promise<string> {
  const res = await call(t, "POST", "/v1/charges", master.sandboxKey, methodCharge({ type: "pix" }, { amount: 100, split: [{ merchantId: a.id, amount: 25, hold: true }] }));
  expectStatus(res, 201);
  const id = res.json().id as string;
  expectStatus(await call(t, "POST", `/v1/sandbox/charges/${id}/pay`, master.sandboxKey), 200);
  return id;
}

const release = (key: string, id: string, body: unknown = {}, headers: Record<string, string> = {}) => call(t, "POST", `/v1/charges/${id}/release`, key, body, headers);

test("a held share is in held, not pending, until released; settlement leaves it alone; releasing twice moves it once", async () => {
  const start = await balanceOfA();
  const id = await heldCharge();
  assert.deepEqual(await balanceOfA(), { ...start, held: start.held + 2500 });
  // Settling everything now does not touch held money: payouts cannot take it.
  expectStatus(await call(t, "POST", "/v1/sandbox/settle", a.key), 200);
  const settled = await balanceOfA();
  assert.equal(settled.held, start.held + 2500);
  const payout = await call(t, "POST", `/v1/submerchants/${a.id}/payout-requests`, a.key, { amount: settled.available + 1 });
  expectStatus(payout, 422);

  // Another merchant cannot release it, nor read the balance: 404.
  expectStatus(await release(other.sandboxKey, id), 404);
  expectStatus(await call(t, "GET", `/v1/submerchants/${a.id}/balance`, other.sandboxKey), 404);
  // A submerchant with no share in the charge: 422.
  expectStatus(await release(master.sandboxKey, id, { submerchantId: other.id }), 422);

  const first = await release(master.sandboxKey, id, { submerchantId: a.id }, { "idempotency-key": `rel-${id}` });
  expectStatus(first, 200);
  assert.deepEqual(first.json().released, [{ merchantId: a.id, currency: "BRL", amount: 2500 }]);
  const retried = await release(master.sandboxKey, id, { submerchantId: a.id }, { "idempotency-key": `rel-${id}` });
  assert.deepEqual(retried.json(), first.json(), "the same key answers the first answer");
  const again = await release(master.sandboxKey, id, {}, { "idempotency-key": `rel-again-${id}` });
  expectStatus(again, 200);
  assert.deepEqual(again.json().released, [], "a second release moves nothing");
  assert.deepEqual(await balanceOfA(), { ...settled, held: settled.held - 2500, pending: settled.pending + 2500 });
  // Released, it settles like any share.
  expectStatus(await call(t, "POST", "/v1/sandbox/settle", a.key), 200);
  assert.deepEqual(await balanceOfA(), { available: settled.available + 2500, pending: settled.pending, held: settled.held - 2500 });
  await assertLedgerInvariants(t);
});

test("a refund draws on held money first; a full refund leaves nothing to release", async () => {
  const start = await balanceOfA();
  const id = await heldCharge();
  // Half the gross: a gives back half its share (1250), from what is held.
  expectStatus(await call(t, "POST", `/v1/charges/${id}/refund`, master.sandboxKey, { amount: 50 }), 201);
  assert.deepEqual(await balanceOfA(), { ...start, held: start.held + 1250 });
  expectStatus(await call(t, "POST", `/v1/charges/${id}/refund`, master.sandboxKey, {}), 201);
  assert.deepEqual(await balanceOfA(), start);
  const res = await release(master.sandboxKey, id);
  expectStatus(res, 200);
  assert.deepEqual(res.json().released, []);
  await assertLedgerInvariants(t);
});

test("a dispute draws on held money first, before pending and available", async () => {
  const start = await balanceOfA();
  const id = await heldCharge();
  await openDispute(t, master.sandboxKey, id);
  assert.deepEqual(await balanceOfA(), start, "the dispute took a's 25.00 from held");
  await assertLedgerInvariants(t);
});
