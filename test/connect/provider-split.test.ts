import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.js";
import { insertProviderAccount } from "../../src/modules/connect/provider-accounts.repo.js";
import { buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge } from "../helpers/charges.js";
import { assertLedgerInvariants, call, activeSubmerchants, FEES, seedMaster } from "./helpers.js";

// Provider settlement in the sandbox (CONTRACT.md section 12): a split's seller needs an active
// account at the processor (422 submerchant_not_at_provider before any call, nothing written);
// its share is booked to its atProvider balance, never to available; a payout cannot take it
// (paid_by_provider); a refund takes the share back there; a change of the setting moves
// nothing booked; another master's submerchant is refused as in platform settlement.

let t: TestApp;
let master: SeededMerchant;
let a: { id: string; key: string };
let b: { id: string; key: string };

before(async () => {
  t = await buildTestApp();
  master = await seedMaster(t, FEES);
  [a, b] = (await activeSubmerchants(t, master.sandboxKey, 2)) as [typeof a, typeof b];
  // a has its sandbox account (active at once, as POST .../provider-accounts {processor: "sandbox"} makes it); b has none.
  await insertProviderAccount(t.database.db, {
    submerchantId: a.id, processor: "sandbox", parentId: master.id, environment: "sandbox", status: "active", externalId: `sbx_${a.id}`,
  });
});
after(async () => { await t.close(); });

const settle = async (key: string, settlement: "platform" | "provider") => expectStatus(await call(t, "PUT", "/v1/connect/settings", key, { settlement }), 200);
const charge = (body: unknown) => call(t, "POST", "/v1/charges", master.sandboxKey, body);
const counts = async () => (await queryRows<{ charges: string; records: string }>(t.database.db, sql`
  select (select count(*) from charges)::text as charges, (select count(*) from sandbox_processor_records)::text as records`))[0]!;
const balance = async (id: string) => {
  const res = await call(t, "GET", `/v1/submerchants/${id}/balance`, master.sandboxKey);
  expectStatus(res, 200);
  return res.json() as { available: { amount: number }[]; pending: { amount: number }[]; atProvider: { processor: string; currency: string; amount: number }[] };
};

test("provider settlement: a seller without an account at the processor is a 422 naming both, before any call, nothing written", async () => {
  await settle(master.sandboxKey, "provider");
  const before = await counts();
  const res = await charge(cardCharge(CARDS.visa, { split: [{ merchantId: a.id, percentage: 10 }, { merchantId: b.id, percentage: 10 }] }));
  expectStatus(res, 422);
  assert.equal(res.json().code, "submerchant_not_at_provider");
  assert.match(res.json().message, new RegExp(`split\\.1\\.merchantId ${b.id} has no active account at sandbox`));
  assert.deepEqual(await counts(), before, "no charge and no processor call");
  await assertLedgerInvariants(t);
});

test("provider settlement: the share is the seller's atProvider balance, never available; payouts cannot take it; a refund takes it back there", async () => {
  await settle(master.sandboxKey, "provider");
  const res = await charge(cardCharge(CARDS.visa, { split: [{ merchantId: a.id, percentage: 30 }] }));
  expectStatus(res, 201);
  assert.equal(res.json().status, "paid");
  // 100.00 BRL: spread 10 % = 1000, anticipation 1.99 % = 199, net 8801; a: 8801 x 30 % = 2640.3 -> 2640.
  const [row] = await queryRows<{ settlement: string }>(t.database.db, sql`select settlement from charges where id = ${res.json().id}`);
  assert.equal(row?.settlement, "provider");
  let bal = await balance(a.id);
  assert.deepEqual(bal.atProvider, [{ processor: "sandbox", currency: "BRL", amount: 2640 }]);
  assert.deepEqual(bal.pending, [], "nothing pending in feira for the seller");
  expectStatus(await call(t, "POST", "/v1/sandbox/settle", a.key), 200);
  bal = await balance(a.id);
  assert.deepEqual(bal.available, [], "settlement never makes a share at the provider available");

  const payout = await call(t, "POST", `/v1/submerchants/${a.id}/payout-requests`, master.sandboxKey, { amount: 1000 });
  expectStatus(payout, 422);
  assert.equal(payout.json().code, "paid_by_provider");
  assert.match(payout.json().message, /2640 cents at processors/);

  expectStatus(await call(t, "POST", `/v1/charges/${res.json().id}/refund`, master.sandboxKey, { amount: 50 }), 201);
  bal = await balance(a.id);
  assert.deepEqual(bal.atProvider, [{ processor: "sandbox", currency: "BRL", amount: 1320 }], "half the gross refunded takes half the share back at the provider");
  await assertLedgerInvariants(t);
});

test("changing settlement moves nothing booked; platform charges after it book shares to pending as before", async () => {
  const before = await balance(a.id);
  await settle(master.sandboxKey, "platform");
  assert.deepEqual(await balance(a.id), before, "the setting alone moves no money");
  const res = await charge(cardCharge(CARDS.visa, { split: [{ merchantId: b.id, percentage: 10 }] }));
  expectStatus(res, 201);
  const bal = await balance(b.id);
  assert.deepEqual(bal.atProvider, []);
  assert.deepEqual(bal.pending.map((p) => p.amount), [880]);
  await assertLedgerInvariants(t);
});

test("a submerchant's balance is its master's only: another master's key answers 404", async () => {
  const other = await seedMaster(t, FEES);
  const res = await call(t, "GET", `/v1/submerchants/${a.id}/balance`, other.sandboxKey);
  expectStatus(res, 404);
  await settle(other.sandboxKey, "provider");
  const split = await call(t, "POST", "/v1/charges", other.sandboxKey, cardCharge(CARDS.visa, { split: [{ merchantId: a.id, percentage: 10 }] }));
  expectStatus(split, 422);
  assert.match(split.json().message, /is not part of this merchant's Connect/);
});
