import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.js";
import { expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge } from "../helpers/charges.js";
import type { FakePagarme } from "../helpers/fake-pagarme.js";
import { activeSubmerchants, assertLedgerInvariants, call, FEES, seedMaster } from "./helpers.js";
import { pagarmeSellerWithSale, startPagarmeProvider } from "./pagarme-sellers.js";

// Provider settlement's daily reconciliation, over HTTP: each seller's balance at the processor
// (the fake Pagar.me's GET /recipients/{id}/balance, as its reference documents it; the
// simulator's own figure) against feira's atProvider figure, once per account and day however
// many runs race or repeat; a mismatch sends connect.balance_mismatch with both figures, a match
// sends nothing; GET /v1/submerchants/{id}/reconciliation shows the last result.

let t: TestApp, pagarme: FakePagarme, master: SeededMerchant, close: () => Promise<void>;
before(async () => { ({ t, pagarme, master, close } = await startPagarmeProvider()); });
after(() => close());

const sellerWithSale = () => pagarmeSellerWithSale(t, pagarme, master);

async function lastOf(key: string, id: string) {
  const res = await call(t, "GET", `/v1/submerchants/${id}/reconciliation`, key);
  expectStatus(res, 200);
  return res.json() as { submerchantId: string; accounts: { processor: string; currency: string; day: string; status: string; feiraAmount: number; processorAmount: number; difference: number }[] };
}

async function mismatchEvents(key: string, submerchantId: string) {
  const res = await call(t, "GET", "/v1/events?type=connect.balance_mismatch&limit=100", key);
  expectStatus(res, 200);
  return (res.json().data as { data: { submerchantId: string } & Record<string, unknown> }[]).filter((e) => e.data.submerchantId === submerchantId);
}

const rowsOf = async (id: string) =>
  (await queryRows<{ n: string }>(t.database.db, sql`select count(*)::text as n from provider_reconciliations where submerchant_id = ${id}`))[0]!.n;

test("balances that agree: recorded as matched with both figures, no event; racing and repeated runs make one record", async () => {
  const seller = await sellerWithSale();
  assert.deepEqual((await lastOf(master.productionKey, seller.id)).accounts, [], "nothing until the first run");
  await Promise.all([t.services.connect.reconciliations.runDue(), t.services.connect.reconciliations.runDue()]);
  await t.services.connect.reconciliations.runDue();
  const last = await lastOf(master.productionKey, seller.id);
  assert.equal(last.accounts.length, 1);
  assert.deepEqual({ ...last.accounts[0], day: undefined }, {
    processor: "pagarme", currency: "BRL", day: undefined, status: "matched", feiraAmount: 2640, processorAmount: 2640, difference: 0,
    checkedAt: (last.accounts[0] as unknown as { checkedAt: string }).checkedAt,
  });
  assert.equal(await rowsOf(seller.id), "1", "one record per account and day");
  assert.deepEqual(await mismatchEvents(master.productionKey, seller.id), [], "a match emits nothing");
  await assertLedgerInvariants(t);
});

test("a balance moved at Pagar.me: mismatch recorded and connect.balance_mismatch sent once, with feira's and Pagar.me's figures", async () => {
  const seller = await sellerWithSale();
  pagarme.moveBalance(seller.recipient, -500);
  await Promise.all([t.services.connect.reconciliations.runDue(), t.services.connect.reconciliations.runDue()]);
  await t.services.connect.reconciliations.runDue();
  const [result] = (await lastOf(master.productionKey, seller.id)).accounts;
  assert.equal(result?.status, "mismatch");
  assert.deepEqual([result?.feiraAmount, result?.processorAmount, result?.difference], [2640, 2140, -500]);
  const events = await mismatchEvents(master.productionKey, seller.id);
  assert.equal(events.length, 1, "one event for the day, however many runs");
  const data = events[0]!.data;
  assert.deepEqual([data.processor, data.currency, data.feiraAmount, data.processorAmount, data.difference, data.day], ["pagarme", "BRL", 2640, 2140, -500, result?.day]);
  assert.equal(await rowsOf(seller.id), "1");
  await assertLedgerInvariants(t);
});

test("Pagar.me released the funds and transferred part to the seller's bank: the transfer is recorded first, and both figures leave it out", async () => {
  const seller = await sellerWithSale();
  pagarme.releaseFunds(seller.recipient, 2640);
  assert.equal(typeof pagarme.transfer(seller.recipient, 2000), "object");
  await t.services.connect.reconciliations.runDue();
  const [result] = (await lastOf(master.productionKey, seller.id)).accounts;
  assert.deepEqual([result?.status, result?.feiraAmount, result?.processorAmount], ["matched", 640, 640]);
  assert.deepEqual(await mismatchEvents(master.productionKey, seller.id), []);
});

test("another master's submerchant: 404; a sandbox key sees nothing of production", async () => {
  const seller = await sellerWithSale();
  const other = await seedMaster(t, FEES);
  expectStatus(await call(t, "GET", `/v1/submerchants/${seller.id}/reconciliation`, other.productionKey), 404);
  expectStatus(await call(t, "GET", `/v1/submerchants/${seller.id}/reconciliation`, master.sandboxKey), 404);
});

test("the sandbox: the test clock's advance reconciles its sellers for the new day against the simulator's own figure", async () => {
  const m = await seedMaster(t, FEES);
  const [sub] = await activeSubmerchants(t, m.sandboxKey, 1);
  expectStatus(await call(t, "POST", `/v1/submerchants/${sub!.id}/provider-accounts`, m.sandboxKey, { processor: "sandbox" }), 201);
  expectStatus(await call(t, "PUT", "/v1/connect/settings", m.sandboxKey, { settlement: "provider" }), 200);
  expectStatus(await call(t, "POST", "/v1/charges", m.sandboxKey, cardCharge(CARDS.visa, { split: [{ merchantId: sub!.id, percentage: 30 }] })), 201);
  const adv = await call(t, "POST", "/v1/sandbox/clock/advance", m.sandboxKey, { days: 1 });
  expectStatus(adv, 200);
  const [result] = (await lastOf(m.sandboxKey, sub!.id)).accounts;
  assert.equal(result?.processor, "sandbox");
  assert.equal(result?.status, "matched");
  assert.ok(result!.feiraAmount > 0);
  assert.equal(result?.day, new Intl.DateTimeFormat("en-CA", { timeZone: "America/Sao_Paulo" }).format(new Date(adv.json().now)), "the test clock's day");
  assert.deepEqual(await mismatchEvents(m.sandboxKey, sub!.id), []);
  await assertLedgerInvariants(t);
});
