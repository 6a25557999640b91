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
  await seedDemo(t.services, demo.merchantId);
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
