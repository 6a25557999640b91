import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.js";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge } from "../helpers/charges.js";
import { call, activeSubmerchants, FEES, seedMaster } from "./helpers.js";

// Settlement as a setting (issue 47 item 1, CONTRACT §12): the master's, per environment,
// platform by default; a charge keeps the settlement it was created under.

let t: TestApp;
let master: SeededMerchant;
let other: SeededMerchant;
let sub: { id: string; key: string };

before(async () => {
  t = await buildTestApp();
  master = await seedMaster(t, FEES);
  other = await seedMaster(t, FEES);
  [sub] = (await activeSubmerchants(t, master.sandboxKey, 1)) as [typeof sub];
});
after(async () => { await t.close(); });

const settings = async (key: string) => {
  const res = await call(t, "GET", "/v1/connect/settings", key);
  expectStatus(res, 200);
  return res.json() as { defaultSplit: unknown[]; settlement: string };
};
const chargeSettlement = async (key: string) => {
  const res = await call(t, "POST", "/v1/charges", key, cardCharge(CARDS.visa));
  expectStatus(res, 201);
  const [row] = await queryRows<{ settlement: string }>(t.database.db, sql`select settlement from charges where id = ${res.json().id as string}`);
  return row!.settlement;
};

test("settlement is platform by default, set per environment by the master, and kept apart from other masters", async () => {
  assert.equal((await settings(master.sandboxKey)).settlement, "platform");
  const put = await call(t, "PUT", "/v1/connect/settings", master.sandboxKey, { settlement: "provider" });
  expectStatus(put, 200);
  assert.deepEqual(put.json(), { defaultSplit: [], settlement: "provider" });
  assert.equal((await settings(master.sandboxKey)).settlement, "provider");
  assert.equal((await settings(master.productionKey)).settlement, "platform", "production keeps its own");
  assert.equal((await settings(other.sandboxKey)).settlement, "platform", "another master keeps its own");
  // A submerchant reads its master's settlement and cannot set it.
  assert.equal((await settings(sub.key)).settlement, "provider");
  const denied = await call(t, "PUT", "/v1/connect/settings", sub.key, { settlement: "platform" });
  expectStatus(denied, 403);
  assert.equal((await settings(master.sandboxKey)).settlement, "provider");
  // Setting one half keeps the other.
  expectStatus(await call(t, "PUT", "/v1/connect/settings", master.sandboxKey, { defaultSplit: [{ merchantId: sub.id, percentage: 10 }] }), 200);
  assert.deepEqual(await settings(master.sandboxKey), { defaultSplit: [{ merchantId: sub.id, percentage: 10 }], settlement: "provider" });
  expectStatus(await call(t, "PUT", "/v1/connect/settings", master.sandboxKey, { defaultSplit: [], settlement: "platform" }), 200);
  assert.deepEqual(await settings(master.sandboxKey), { defaultSplit: [], settlement: "platform" });
});

test("bad settings are 422 naming the field, and change nothing", async () => {
  for (const body of [{ settlement: "operator" }, {}, { settlement: "provider", extra: 1 }]) {
    const res = await call(t, "PUT", "/v1/connect/settings", master.sandboxKey, body);
    expectStatus(res, 422);
    if ("settlement" in body && body.settlement === "operator") assert.match(res.json().message, /settlement/);
  }
  assert.equal((await settings(master.sandboxKey)).settlement, "platform");
  const plain = await seedMerchant(t);
  expectStatus(await call(t, "PUT", "/v1/connect/settings", plain.sandboxKey, { settlement: "provider" }), 403);
});

test("a charge keeps the settlement it was created under; a change applies to later charges, the master's and its submerchants'", async () => {
  const before = await chargeSettlement(master.sandboxKey);
  const subBefore = await chargeSettlement(sub.key);
  expectStatus(await call(t, "PUT", "/v1/connect/settings", master.sandboxKey, { settlement: "provider" }), 200);
  assert.equal(before, "platform");
  assert.equal(subBefore, "platform");
  assert.equal(await chargeSettlement(master.sandboxKey), "provider");
  assert.equal(await chargeSettlement(sub.key), "provider");
  const earlier = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from charges where settlement = 'platform' and merchant_id in (${master.id}, ${sub.id}) and environment = 'sandbox'`);
  assert.equal(earlier[0]!.n, 2, "the charges made before the change keep platform");
  expectStatus(await call(t, "PUT", "/v1/connect/settings", master.sandboxKey, { settlement: "platform" }), 200);
});
