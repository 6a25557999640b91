import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.js";
import { expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import type { FakePagarme } from "../helpers/fake-pagarme.js";
import { admin, assertLedgerInvariants, call, FEES, keyOf, sandboxPayout, seedMaster } from "./helpers.js";
import { pagarmeSellerWithSale, startPagarmeProvider } from "./pagarme-sellers.js";

// Provider settlement's payouts, over HTTP: a transfer Pagar.me made from a seller's recipient
// balance to its bank (the fake's GET /recipients/{id}/transfers, as the official SDK's
// getTransfers documents it) becomes one read-only payout record with source "provider", however
// many runs race or repeat, booked out of the seller's atProvider balance; the reconciliation
// still agrees; payout.paid is sent once; the operator cannot approve or reject it; another master never sees it.

let t: TestApp, pagarme: FakePagarme, master: SeededMerchant, close: () => Promise<void>;
before(async () => { ({ t, pagarme, master, close } = await startPagarmeProvider()); });
after(() => close());

type Payout = { id: string; merchantId: string; amount: number; status: string; source: string; payoutFee: number; netAmount: number; transfer: { status: string } | null };

async function payoutsOf(key: string, merchantId: string): Promise<Payout[]> {
  const res = await call(t, "GET", `/v1/payout-requests?merchantId=${merchantId}`, key);
  expectStatus(res, 200);
  return (res.json().data as Payout[]).filter((p) => p.merchantId === merchantId);
}

async function atPagarme(id: string): Promise<number> {
  const res = await call(t, "GET", `/v1/submerchants/${id}/balance`, master.productionKey);
  expectStatus(res, 200);
  return (res.json().atProvider as { processor: string; amount: number }[]).filter((a) => a.processor === "pagarme").reduce((s, a) => s + a.amount, 0);
}

/** A seller whose 2640 cents were released and 2000 of them transferred to its bank by Pagar.me. */
async function sellerWithTransfer() {
  const seller = await pagarmeSellerWithSale(t, pagarme, master);
  pagarme.releaseFunds(seller.recipient, 2640);
  const transfer = pagarme.transfer(seller.recipient, 2000);
  assert.equal(typeof transfer, "object", String(transfer));
  return { ...seller, transferId: (transfer as { id: string }).id };
}

test("a transfer at Pagar.me: one read-only payout with source provider however many runs race or repeat, booked out of atProvider", async () => {
  const seller = await sellerWithTransfer();
  assert.equal(await atPagarme(seller.id), 2640);
  await Promise.all([t.services.connect.providerTransfers.runDue(), t.services.connect.providerTransfers.runDue()]);
  await t.services.connect.providerTransfers.runDue();
  const payouts = await payoutsOf(master.productionKey, seller.id);
  assert.equal(payouts.length, 1, JSON.stringify(payouts));
  assert.deepEqual(
    [payouts[0]!.source, payouts[0]!.status, payouts[0]!.amount, payouts[0]!.payoutFee, payouts[0]!.netAmount, payouts[0]!.transfer],
    ["provider", "approved", 2000, 0, 2000, { status: "sent" }],
  );
  const rows = await queryRows<{ n: string }>(t.database.db, sql`select count(*)::text as n from payout_requests where transfer_id = ${seller.transferId}`);
  assert.equal(rows[0]!.n, "1", "one record per transfer");
  assert.equal(await atPagarme(seller.id), 640, "the transfer left the seller's atProvider balance");
  const events = await call(t, "GET", "/v1/events?type=payout.paid&limit=100", await keyOf(t, master.productionKey, seller.id));
  expectStatus(events, 200);
  const paid = (events.json().data as { data: { id: string; amount: number; source: string; transferId: string } }[]).map((e) => e.data);
  assert.deepEqual(paid.map((d) => [d.id, d.amount, d.source, d.transferId]), [[payouts[0]!.id, 2000, "provider", seller.transferId]], "payout.paid once");
  await assertLedgerInvariants(t);
});

test("after the transfer the daily reconciliation still matches: both figures leave the transfer out", async () => {
  const seller = await sellerWithTransfer();
  await t.services.connect.providerTransfers.runDue();
  await t.services.connect.reconciliations.runDue();
  const res = await call(t, "GET", `/v1/submerchants/${seller.id}/reconciliation`, master.productionKey);
  expectStatus(res, 200);
  const [r] = res.json().accounts as { status: string; feiraAmount: number; processorAmount: number }[];
  assert.deepEqual([r?.status, r?.feiraAmount, r?.processorAmount], ["matched", 640, 640]);
  assert.equal((await payoutsOf(master.productionKey, seller.id)).length, 1);
});

test("the operator cannot approve or reject a processor's transfer (409, the error shape); feira's own payouts are source platform", async () => {
  const seller = await sellerWithTransfer();
  await t.services.connect.providerTransfers.runDue();
  const [p] = await payoutsOf(master.productionKey, seller.id);
  for (const action of ["approve", "reject"]) {
    const res = await admin(t, "POST", `/v1/admin/payout-requests/${p!.id}/${action}`);
    expectStatus(res, 409);
    const err = res.json() as { code: string; message: string };
    assert.equal(err.code, "conflict");
    assert.match(err.message, /read-only/);
  }
  const own = await sandboxPayout(t, (await seedMaster(t, FEES)).sandboxKey, 1000);
  const res = await call(t, "GET", `/v1/payout-requests/${own.id}`, own.key);
  expectStatus(res, 200);
  assert.equal(res.json().source, "platform");
  await assertLedgerInvariants(t);
});

test("another master never sees the seller's transfer, nor does a sandbox key", async () => {
  const seller = await sellerWithTransfer();
  await t.services.connect.providerTransfers.runDue();
  const [p] = await payoutsOf(master.productionKey, seller.id);
  const other = await seedMaster(t, FEES);
  expectStatus(await call(t, "GET", `/v1/payout-requests/${p!.id}`, other.productionKey), 404);
  expectStatus(await call(t, "GET", `/v1/payout-requests/${p!.id}`, master.sandboxKey), 404);
  assert.deepEqual(await payoutsOf(other.productionKey, seller.id), []);
});
