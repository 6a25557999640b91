import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { methodCharge } from "../helpers/charges.js";
import { openDispute } from "../disputes/helpers.js";
import { assertLedgerInvariants, call, activeSubmerchants, FEES, seedMaster, submerchantBalance } from "./helpers.js";

// Holds (issue 47 item 7): a seller's holdDays (below) and a split rule with hold: true keep its share held (not pending, not
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

const balanceOfA = () => submerchantBalance(t, master.sandboxKey, a.id);

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

// holdDays per seller: PATCH /v1/submerchants/{id} {holdDays} keeps the submerchant's split
// shares held that many days after payment, counted by the sandbox's test clock; then they move
// to pending and settle as usual. Charges made before a change keep their terms.

/** A paid R$ 100 Pix of the master with 25.00 for a. */
async function paidCharge(): Promise<string> {
  const res = await call(t, "POST", "/v1/charges", master.sandboxKey, methodCharge({ type: "pix" }, { amount: 100, split: [{ merchantId: a.id, amount: 25 }] }));
  expectStatus(res, 201);
  const id = res.json().id as string;
  const got = await call(t, "GET", `/v1/charges/${id}`, master.sandboxKey);
  assert.deepEqual(got.json().split, [{ merchantId: a.id, amount: 25 }], `the seller's holdDays kept on the rule are the ledger's, not the answer's: ${got.body}`);
  expectStatus(await call(t, "POST", `/v1/sandbox/charges/${id}/pay`, master.sandboxKey), 200);
  return id;
}

const setHoldDays = (key: string, holdDays: unknown) => call(t, "PATCH", `/v1/submerchants/${a.id}`, key, { holdDays });
const advance = async (days: number) => expectStatus(await call(t, "POST", "/v1/sandbox/clock/advance", master.sandboxKey, { days }), 200);

test("PATCH holdDays: shown on the submerchant; bounds checked; another master's submerchant is a 404", async () => {
  const res = await setHoldDays(master.sandboxKey, 3);
  expectStatus(res, 200);
  assert.equal(res.json().holdDays, 3);
  expectStatus(await setHoldDays(master.sandboxKey, -1), 422);
  expectStatus(await setHoldDays(master.sandboxKey, 1.5), 422);
  expectStatus(await setHoldDays(other.sandboxKey, 5), 404);
  const got = await call(t, "GET", `/v1/submerchants/${a.id}`, master.sandboxKey);
  assert.equal(got.json().holdDays, 3);
});

test("a share of a seller with holdDays is held until that many days after payment on the test clock, then pending, then available", async () => {
  expectStatus(await setHoldDays(master.sandboxKey, 3), 200);
  const start = await balanceOfA();
  await paidCharge();
  assert.deepEqual(await balanceOfA(), { ...start, held: start.held + 2500 });
  // Settling now leaves it alone, and a payout cannot take it.
  expectStatus(await call(t, "POST", "/v1/sandbox/settle", a.key), 200);
  const settled = await balanceOfA();
  assert.equal(settled.held, start.held + 2500);
  expectStatus(await call(t, "POST", `/v1/submerchants/${a.id}/payout-requests`, a.key, { amount: settled.available + 1 }), 422);
  // Two days on: still held. Past the third: pending, and it settles.
  await advance(2);
  assert.equal((await balanceOfA()).held, start.held + 2500);
  await advance(2);
  assert.deepEqual(await balanceOfA(), { ...settled, held: settled.held - 2500, pending: settled.pending + 2500 });
  expectStatus(await call(t, "POST", "/v1/sandbox/settle", a.key), 200);
  assert.deepEqual(await balanceOfA(), { available: settled.available + 2500, pending: settled.pending, held: settled.held - 2500 });
  // The release is the clock's once: a second advance moves nothing more.
  await advance(1);
  assert.deepEqual(await balanceOfA(), { available: settled.available + 2500, pending: settled.pending, held: settled.held - 2500 });
  await assertLedgerInvariants(t);
});

test("holdDays 0 again: charges after it are not held; a refund and a dispute draw on held money first", async () => {
  expectStatus(await setHoldDays(master.sandboxKey, 5), 200);
  const start = await balanceOfA();
  const refunded = await paidCharge();
  const disputed = await paidCharge();
  assert.deepEqual(await balanceOfA(), { ...start, held: start.held + 5000 });
  // Half the gross refunded: a gives back half its share (1250), from what is held.
  expectStatus(await call(t, "POST", `/v1/charges/${refunded}/refund`, master.sandboxKey, { amount: 50 }), 201);
  assert.deepEqual(await balanceOfA(), { ...start, held: start.held + 3750 });
  await openDispute(t, master.sandboxKey, disputed);
  assert.deepEqual(await balanceOfA(), { ...start, held: start.held + 1250 }, "the dispute took a's 25.00 from held");
  expectStatus(await setHoldDays(master.sandboxKey, 0), 200);
  await paidCharge();
  assert.deepEqual(await balanceOfA(), { ...start, held: start.held + 1250, pending: start.pending + 2500 });
  await assertLedgerInvariants(t);
});
