import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { call, CARDS, card, createPlan, customer } from "./helpers.js";

let t: TestApp;
let m: SeededMerchant;
before(async () => { t = await buildTestApp(); m = await seedMerchant(t); });
after(async () => t.close());

test("create: the price in currency units, stored in cents, with defaults", async () => {
  const res = await call(t, m.sandboxKey, "POST", "/v1/plans", { name: " Pro ", price: 29.9, currency: "brl", interval: "month" });
  expectStatus(res, 201);
  const plan = res.json();
  assert.match(plan.id, /^plan_/);
  assert.equal(plan.name, "Pro");
  assert.equal(plan.price, 29.9);
  assert.equal(plan.currency, "BRL");
  assert.equal(plan.intervalCount, 1);
  assert.equal(plan.trialDays, 0);
  assert.equal(plan.archived, false);
  assert.equal(plan.livemode, false);
  const yen = await createPlan(t, m.sandboxKey, { price: 1000, currency: "JPY", interval: "year", intervalCount: 2, trialDays: 14 });
  assert.equal(yen.price, 1000);
});

test("the money rules of charges apply", async () => {
  const bad = [
    { price: 0 }, { price: -1 }, { price: 10.001 }, { price: "10" }, { price: 1.5, currency: "JPY" }, { currency: "XXQ" },
    { interval: "fortnight" }, { intervalCount: 0 }, { trialDays: -1 }, { name: "" }, { extra: true },
  ];
  for (const b of bad) {
    const res = await call(t, m.sandboxKey, "POST", "/v1/plans", { name: "X", price: 10, currency: "BRL", interval: "month", ...b });
    assert.equal(res.statusCode, 422, `${JSON.stringify(b)}: ${res.body}`);
  }
});

test("get, list with cursor pagination, rename, archive", async () => {
  const a = await createPlan(t, m.sandboxKey, { name: "A" });
  const b = await createPlan(t, m.sandboxKey, { name: "B" });
  expectStatus(await call(t, m.sandboxKey, "GET", `/v1/plans/${a.id}`), 200);
  const page = (await call(t, m.sandboxKey, "GET", "/v1/plans?limit=1")).json();
  assert.equal(page.data[0].id, b.id);
  assert.equal(page.hasMore, true);
  const next = (await call(t, m.sandboxKey, "GET", `/v1/plans?limit=1&startingAfter=${b.id}`)).json();
  assert.equal(next.data[0].id, a.id);
  const renamed = await call(t, m.sandboxKey, "PATCH", `/v1/plans/${a.id}`, { name: "A2", description: "new" });
  expectStatus(renamed, 200);
  assert.equal(renamed.json().name, "A2");
  assert.equal(renamed.json().price, 29.9);
  expectStatus(await call(t, m.sandboxKey, "PATCH", `/v1/plans/${a.id}`, { price: 1 }), 422);
  expectStatus(await call(t, m.sandboxKey, "PATCH", `/v1/plans/${a.id}`, {}), 422);
  const archived = await call(t, m.sandboxKey, "POST", `/v1/plans/${a.id}/archive`);
  expectStatus(archived, 200);
  assert.equal(archived.json().archived, true);
  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/plans/${a.id}/archive`), 200);
  const active = (await call(t, m.sandboxKey, "GET", "/v1/plans?archived=false")).json().data.map((p: { id: string }) => p.id);
  assert.ok(!active.includes(a.id) && active.includes(b.id));
  const res = await call(t, m.sandboxKey, "POST", "/v1/subscriptions", { planId: a.id, customer, paymentMethod: card(CARDS.visa) });
  expectStatus(res, 409);
  assert.match(res.json().message, /archived/);
});

test("per merchant and environment; 401 without a key; idempotent create", async () => {
  const plan = await createPlan(t, m.sandboxKey);
  const other = await seedMerchant(t);
  expectStatus(await call(t, other.sandboxKey, "GET", `/v1/plans/${plan.id}`), 404);
  expectStatus(await call(t, m.productionKey, "GET", `/v1/plans/${plan.id}`), 404);
  expectStatus(await call(t, other.sandboxKey, "PATCH", `/v1/plans/${plan.id}`, { name: "mine" }), 404);
  expectStatus(await call(t, other.sandboxKey, "POST", `/v1/plans/${plan.id}/archive`), 404);
  expectStatus(await t.app.inject({ method: "GET", url: "/v1/plans" }), 401);
  const body = { name: "Once", price: 10, currency: "BRL", interval: "week" };
  const first = await call(t, m.sandboxKey, "POST", "/v1/plans", body, { "idempotency-key": "plan-1" });
  const second = await call(t, m.sandboxKey, "POST", "/v1/plans", body, { "idempotency-key": "plan-1" });
  assert.equal(first.json().id, second.json().id);
});

test("every subscriptions route is in the OpenAPI document with an operationId, the tag, a summary and examples", async () => {
  const doc = (await t.app.inject({ method: "GET", url: "/openapi.json" })).json();
  type Op = { operationId?: string; tags?: string[]; summary?: string; description?: string; requestBody?: { content: Record<string, { example?: unknown }> }; responses: Record<string, { content?: Record<string, { example?: unknown }> }> };
  const ops = Object.entries(doc.paths as Record<string, Record<string, Op>>)
    .filter(([path]) => /\/v1\/(plans|subscriptions|subscription-settings|sandbox\/clock)/.test(path))
    .flatMap(([, methods]) => Object.values(methods));
  assert.ok(ops.length >= 14, `${ops.length} operations`);
  for (const op of ops) {
    assert.ok(op.operationId && op.summary && op.description, JSON.stringify(op));
    assert.ok(op.tags?.includes("subscriptions"));
    assert.doesNotMatch(op.description!, /spec|CONTRACT/i);
    if (op.requestBody) assert.ok(op.requestBody.content["application/json"]!.example, `${op.operationId} request example`);
    const ok = Object.entries(op.responses).find(([status]) => status.startsWith("2"))!;
    assert.ok(ok[1].content!["application/json"]!.example, `${op.operationId} response example`);
  }
  const text = JSON.stringify(doc);
  assert.ok(text.includes("subscription.renewed"), "subscription events in the endpoint filter enum");
});
