import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { basic, buildTestApp, type TestApp } from "../helpers/app.js";
import { seedDemo } from "../../src/web/panel/demo-seed.js";
import { signIn } from "./panel-client.js";

// The first start's demo history: made through the services in the sandbox only, so the panel
// of a newcomer shows charges of each state, a customer, a plan with a subscription, a link and
// a submerchant, and production stays empty.

let t: TestApp;
let demo: { email: string; password: string; sandboxKey: string; merchantId: string };
before(async () => {
  t = await buildTestApp({ adminApiKey: undefined });
  const first = await t.services.merchants.bootstrap({ demoMerchant: true });
  demo = first.demo!;
  await seedDemo(t.services, demo.merchantId, t.database.db);
});
after(async () => t?.close());

test("the demo merchant has sandbox history of every kind, and none in production", async () => {
  const get = (url: string) => t.app.inject({ method: "GET", url, headers: { authorization: basic(demo.sandboxKey) } });
  const charges = (await get("/v1/charges?limit=100")).json().data as { status: string }[];
  const statuses = new Set(charges.map((c) => c.status));
  for (const s of ["paid", "refused", "failed", "in_analysis", "authentication_required", "pending", "refunded"]) assert.ok(statuses.has(s), `a ${s} charge`);
  assert.ok((await get("/v1/customers")).json().data.length >= 3);
  assert.equal((await get("/v1/plans")).json().data.length, 1);
  assert.equal((await get("/v1/subscriptions")).json().data.length, 1);
  assert.equal((await get("/v1/payment-links")).json().data.length, 1);
  assert.equal((await get("/v1/submerchants")).json().total, 1);

  const c = await signIn(t, demo.email, demo.password);
  const home = await c.get("/panel");
  assert.match(home.body, /<svg class="chart"/);
  assert.match(home.body, /Sandbox: test data/);
  await c.post("/panel/environment", { environment: "production", back: "/panel/charges" });
  assert.match((await c.get("/panel/charges")).body, /No charges match/);
});

test("the demo history spreads over the last 30 days, in the past only, so the home chart shows a month", async () => {
  const get = (url: string) => t.app.inject({ method: "GET", url, headers: { authorization: basic(demo.sandboxKey) } });
  const charges = (await get("/v1/charges?limit=100")).json().data as { status: string; createdAt: string }[];
  const now = Date.now();
  const monthAgo = now - 30 * 86_400_000;
  for (const c of charges) assert.ok(Date.parse(c.createdAt) <= now && Date.parse(c.createdAt) > monthAgo, c.createdAt);
  const sold = charges.filter((c) => c.status === "paid" || c.status === "refunded");
  const days = new Set(sold.map((c) => c.createdAt.slice(0, 10)));
  assert.ok(days.size >= 25, `sales on ${days.size} distinct days: ${[...days].sort().join(", ")}`);

  // The list's date filter finds them by their day, and the chart has a bar on those days.
  const day = [...days].sort()[0]!;
  const that = (await get(`/v1/charges?createdGte=${day}T00:00:00.000Z&createdLte=${day}T23:59:59.999Z`)).json().data as { createdAt: string }[];
  assert.ok(that.length > 0 && that.every((c) => c.createdAt.startsWith(day)), JSON.stringify(that));
  const c = await signIn(t, demo.email, demo.password);
  const bars = [...(await c.get("/panel")).body.matchAll(/<rect [^>]*height="(\d+)"/g)].filter((b) => Number(b[1]) > 0);
  assert.ok(bars.length >= 25, `${bars.length} bars`);
});
