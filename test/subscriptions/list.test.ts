import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { merchants } from "../../src/db/schema.js";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { call, card, CARDS, createPlan, subscribe } from "./helpers.js";

let t: TestApp;
let m: SeededMerchant;
const ids: Record<string, string> = {};
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
  const gold = await createPlan(t, m.sandboxKey, { name: "Gold 100%_off\\deal" });
  const basic = await createPlan(t, m.sandboxKey, { name: "Basic" });
  ids.ana = (await subscribe(t, m.sandboxKey, { planId: gold.id, customer: { name: "Ana Souza", email: "ana@example.com" } })).id;
  ids.bruno = (await subscribe(t, m.sandboxKey, { planId: basic.id, customer: { name: "Bruno Lima", email: "bruno@shop.example" }, paymentMethod: card(CARDS.declined) })).id;
  ids.carla = (await subscribe(t, m.sandboxKey, { planId: basic.id, customer: { name: "Carla 50% Dias", email: "carla@example.com" } })).id;
  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/subscriptions/${ids.carla}/cancel`, {}), 200);
});
after(async () => t.close());

const list = async (query: string, key = m.sandboxKey) => call(t, key, "GET", `/v1/subscriptions${query}`);

test("the list has its {data, meta} envelope and item fields, newest first", async () => {
  const res = await list("");
  expectStatus(res, 200);
  const body = res.json();
  assert.deepEqual(body.meta, { total: 3, page: 1, limit: 10, totalPages: 1 });
  assert.deepEqual(body.data.map((s: { id: string }) => s.id), [ids.carla, ids.bruno, ids.ana]);
  const item = body.data[2];
  assert.deepEqual(Object.keys(item).sort(), [
    "billingDay", "cancellationType", "cancelledAt", "createdAt", "currentPeriodEnd", "currentPeriodStart", "customer", "id", "plan", "refunded", "status", "updatedAt",
  ]);
  assert.deepEqual(item.plan, { name: "Gold 100%_off\\deal", price: 29.9, currency: "BRL" });
  assert.deepEqual(item.customer, { name: "Ana Souza", email: "ana@example.com" });
  assert.equal(item.cancelledAt, null);
  assert.equal(body.data[0].cancellationType, "immediate");
});

test("filters: status, customer, search in name, e-mail and plan name, case-insensitive", async () => {
  const only = async (q: string) => (await list(q)).json().data.map((s: { id: string }) => s.id);
  assert.deepEqual(await only("?status=pending_activation"), [ids.bruno]);
  assert.deepEqual(await only("?status=cancelled"), [ids.carla]);
  assert.deepEqual(await only("?status=paused"), []);
  assert.deepEqual(await only("?search=SOUZA"), [ids.ana]);
  assert.deepEqual(await only("?search=shop.EXAMPLE"), [ids.bruno]);
  assert.deepEqual(await only("?search=basic"), [ids.carla, ids.bruno]);
  const ana = (await list(`?search=ana`)).json().data[0];
  const customerId = (await call(t, m.sandboxKey, "GET", `/v1/subscriptions/${ana.id}`)).json().customerId;
  assert.deepEqual(await only(`?customerId=${customerId}`), [ids.ana]);
  assert.deepEqual(await only("?status=active&search=basic"), []);
});

test("search is safe against LIKE wildcards: % _ and \\ match themselves", async () => {
  const only = async (q: string) => (await list(q)).json().data.map((s: { id: string }) => s.id);
  assert.deepEqual(await only("?search=%25"), [ids.carla, ids.ana]); // "50% Dias" and "100%_off"
  assert.deepEqual(await only("?search=_"), [ids.ana]);
  assert.deepEqual(await only("?search=%5C"), [ids.ana]);
  assert.deepEqual(await only("?search=0%25_o"), [ids.ana]);
  assert.deepEqual(await only("?search=a%25a"), []);
  assert.deepEqual(await only(`?search=${encodeURIComponent("'; drop table subscriptions; --")}`), []);
});

test("pages: page and limit, with total and totalPages", async () => {
  const p1 = (await list("?limit=2&page=1")).json();
  const p2 = (await list("?limit=2&page=2")).json();
  assert.deepEqual(p1.meta, { total: 3, page: 1, limit: 2, totalPages: 2 });
  assert.equal(p1.data.length, 2);
  assert.equal(p2.data.length, 1);
  assert.equal((await list("?limit=2&page=5")).json().data.length, 0);
});

test("invalid queries are 422; no key is 401", async () => {
  for (const q of ["?status=trialing", "?status=ACTIVE", "?page=0", "?limit=0", "?limit=101", "?page=x", "?unknown=1", "?search="]) {
    const res = await list(q);
    assert.equal(res.statusCode, 422, `${q}: ${res.body}`);
  }
  expectStatus(await t.app.inject({ method: "GET", url: "/v1/subscriptions" }), 401);
});

test("isolation: another merchant or environment sees nothing; merchantId of a stranger is 404", async () => {
  const other = await seedMerchant(t);
  assert.equal((await list("", other.sandboxKey)).json().meta.total, 0);
  assert.equal((await list("", m.productionKey)).json().meta.total, 0);
  expectStatus(await list(`?merchantId=${other.id}`), 404);
  expectStatus(await list(`?merchantId=${m.id}`), 200);
  assert.equal((await list(`?merchantId=${m.id}`)).json().meta.total, 3);
});

test("a Connect master lists its submerchant's subscriptions with merchantId", async () => {
  const master = await seedMerchant(t, { connectEnabled: true });
  // The submerchant link is merchants.parent_id (set by the Connect module).
  await t.database.db.update(merchants).set({ parentId: master.id }).where(eq(merchants.id, m.id));
  const res = await list(`?merchantId=${m.id}`, master.sandboxKey);
  expectStatus(res, 200);
  assert.equal(res.json().meta.total, 3);
  // The submerchant cannot list its master's.
  expectStatus(await list(`?merchantId=${master.id}`), 404);
});
