import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createServices } from "../../src/app.js";
import { queryRows, sql } from "../../src/db/client.js";
import { basic, buildTestApp, expectStatus, seedMerchant, testConfig, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { freshDatabase } from "../helpers/db.js";

// The operator's endpoints under /v1/admin/, with the admin key by Basic.

let t: TestApp;
let m: SeededMerchant;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
});
after(async () => { await t.close(); });

const admin = () => ({ authorization: basic(t.admin) });
const uniqueEmail = () => `admin-${randomBytes(4).toString("hex")}@example.com`;

function createMerchant(payload: Record<string, unknown>) {
  return t.app.inject({ method: "POST", url: "/v1/admin/merchants", headers: admin(), payload });
}

const fee = (over: Record<string, unknown> = {}) => ({
  feeType: "tx_spread", paymentMethod: "credit_card", currencyCode: "BRL", brand: null,
  definition: { fixed: 30, percentages: [2.99, 3.49, 3.99] },
  ...over,
});

function putFees(merchantId: string, fees: unknown[]) {
  return t.app.inject({ method: "PUT", url: `/v1/admin/merchants/${merchantId}/fees`, headers: admin(), payload: { fees } });
}

async function status(key: string): Promise<number> {
  return (await t.app.inject({ url: "/v1/customers", headers: { authorization: basic(key) } })).statusCode;
}

test("create a merchant: 201 with both full keys, shown this once, and both work in their environment", async () => {
  const email = uniqueEmail();
  const res = await createMerchant({ name: "Loja Azul", email: email.toUpperCase(), password: "a long enough password", connectEnabled: true });
  expectStatus(res, 201);
  const body = res.json();
  assert.match(body.id, /^mer_/);
  assert.equal(body.name, "Loja Azul");
  assert.equal(body.email, email, "stored lower-case");
  assert.equal(body.status, "active");
  assert.equal(body.connectEnabled, true);
  assert.equal(body.parentId, null);
  assert.match(body.apiKeys.sandbox, /^sk_test_[A-Za-z0-9]{32}$/);
  assert.match(body.apiKeys.production, /^sk_live_[A-Za-z0-9]{32}$/);
  assert.equal("password" in body || "passwordHash" in body, false);

  const sandbox = await t.app.inject({
    method: "POST", url: "/v1/customers", headers: { authorization: basic(body.apiKeys.sandbox) },
    payload: { name: "Cliente", email: "c@example.com", documentId: "52998224725", documentType: "cpf" },
  });
  expectStatus(sandbox, 201);
  const live = await t.app.inject({ url: `/v1/customers/${sandbox.json().id}`, headers: { authorization: basic(body.apiKeys.production) } });
  expectStatus(live, 404);

  const defaults = await createMerchant({ name: "Loja Verde", email: uniqueEmail(), password: "a long enough password" });
  expectStatus(defaults, 201);
  assert.equal(defaults.json().connectEnabled, false);
});

test("create a merchant: duplicate email (any case) is 409", async () => {
  const res = await createMerchant({ name: "Copy", email: m.email.toUpperCase(), password: "a long enough password" });
  expectStatus(res, 409);
  assert.equal(res.json().code, "conflict");
});

test("create a merchant: invalid bodies are 422 naming the field", async () => {
  const ok = { name: "Loja", email: uniqueEmail(), password: "a long enough password" };
  for (const [payload, message] of [
    [{ ...ok, name: undefined }, /^name is required$/],
    [{ ...ok, email: "nope" }, /^email must match format "email"$/],
    [{ ...ok, password: "short" }, /^password must NOT have fewer than 10 characters$/],
    [{ ...ok, connectEnabled: "yes" }, /^connectEnabled must be boolean$/],
    [{ ...ok, role: "admin" }, /^role is not a recognized field$/],
  ] as const) {
    const res = await createMerchant(payload);
    expectStatus(res, 422);
    assert.match(res.json().message, message);
  }
});

test("PATCH: status inactive or blocked makes the merchant's keys 403; active restores them", async () => {
  const other = await seedMerchant(t);
  const patch = (payload: Record<string, unknown>) =>
    t.app.inject({ method: "PATCH", url: `/v1/admin/merchants/${other.id}`, headers: admin(), payload });

  for (const state of ["inactive", "blocked"]) {
    const res = await patch({ status: state });
    expectStatus(res, 200);
    assert.equal(res.json().status, state);
    assert.equal(await status(other.sandboxKey), 403);
    assert.equal(await status(other.productionKey), 403);
    assert.equal(await status(m.sandboxKey), 200, "other merchants are untouched");
  }
  expectStatus(await patch({ status: "active" }), 200);
  assert.equal(await status(other.sandboxKey), 200);
  assert.equal(await status(other.productionKey), 200);

  const connect = await patch({ connectEnabled: true });
  expectStatus(connect, 200);
  assert.equal(connect.json().connectEnabled, true);
  assert.equal(connect.json().status, "active");
  assert.equal("apiKeys" in connect.json(), false, "keys are never shown again");
});

test("PATCH: unknown merchant 404, empty or invalid body 422", async () => {
  expectStatus(await t.app.inject({ method: "PATCH", url: "/v1/admin/merchants/mer_nobody", headers: admin(), payload: { status: "inactive" } }), 404);
  for (const payload of [{}, { status: "deleted" }, { name: "Renamed" }]) {
    const res = await t.app.inject({ method: "PATCH", url: `/v1/admin/merchants/${m.id}`, headers: admin(), payload });
    expectStatus(res, 422);
  }
});

test("PUT fees: stores and returns the definitions, normalized; a new PUT replaces them", async () => {
  const res = await putFees(m.id, [
    fee({ currencyCode: "brl", definition: { fixed: 30, percentages: [1.19, 0.35, 12.34, 4.9999] } }),
    fee({ brand: "VISA", definition: { fixed: 0, percentages: [2.5] } }),
    fee({ feeType: "anticipation", definition: { fixed: 0, percentages: [1.99] } }),
    fee({ feeType: "payout", paymentMethod: "pix", definition: { fixed: 367, percentages: [] } }),
  ]);
  expectStatus(res, 200);
  const body = res.json();
  assert.equal(body.merchantId, m.id);
  assert.equal(body.fees.length, 4);
  assert.deepEqual(body.fees[0], fee({ currencyCode: "BRL", definition: { fixed: 30, percentages: [1.19, 0.35, 12.34, 4.9999] } }));
  assert.equal(body.fees[1].brand, "visa");

  const replaced = await putFees(m.id, [fee()]);
  expectStatus(replaced, 200);
  assert.deepEqual(replaced.json().fees, [fee()]);
  const cleared = await putFees(m.id, []);
  expectStatus(cleared, 200);
  assert.deepEqual(cleared.json().fees, []);
});

test("PUT fees: duplicate definitions are 422 and nothing is replaced", async () => {
  expectStatus(await putFees(m.id, [fee()]), 200);
  for (const fees of [
    [fee(), fee({ definition: { fixed: 0, percentages: [1] } })],
    [fee({ brand: "visa" }), fee({ brand: "VISA", currencyCode: "brl" })],
  ]) {
    const res = await putFees(m.id, fees);
    expectStatus(res, 422);
    assert.match(res.json().message, /^fees\.1 repeats feeType, paymentMethod, currencyCode and brand/);
  }
  // Same type and method for another brand or currency is not a duplicate.
  expectStatus(await putFees(m.id, [fee(), fee({ brand: "visa" }), fee({ currencyCode: "USD" })]), 200);
});

test("PUT fees: bounds and shapes are 422 naming the field", async () => {
  const cases: [unknown, RegExp][] = [
    [fee({ definition: { fixed: 0, percentages: [100.0001] } }), /^fees\.0\.definition\.percentages\.0 must be <= 100$/],
    [fee({ definition: { fixed: 0, percentages: [1, -0.01] } }), /^fees\.0\.definition\.percentages\.1 must be >= 0$/],
    [fee({ definition: { fixed: 0, percentages: [1.00001] } }), /^fees\.0\.definition\.percentages\.0 must be multiple of 0\.0001$/],
    [fee({ definition: { fixed: 0, percentages: Array(13).fill(1) } }), /^fees\.0\.definition\.percentages must NOT have more than 12 items$/],
    [fee({ definition: { fixed: 0, percentages: ["2.5"] } }), /^fees\.0\.definition\.percentages\.0 must be a number, not a string$/],
    [fee({ definition: { fixed: -1, percentages: [] } }), /^fees\.0\.definition\.fixed must be >= 0$/],
    [fee({ definition: { fixed: 1.5, percentages: [] } }), /^fees\.0\.definition\.fixed must be integer$/],
    [fee({ definition: { percentages: [] } }), /^fees\.0\.definition\.fixed is required$/],
    [fee({ feeType: "chargeback" }), /^fees\.0\.feeType /],
    [fee({ currencyCode: "REAL" }), /^fees\.0\.currencyCode /],
    [fee({ brand: undefined }), /^fees\.0\.brand is required$/],
    [fee({ extra: 1 }), /^fees\.0\.extra is not a recognized field$/],
  ];
  for (const [definition, message] of cases) {
    const res = await putFees(m.id, [definition]);
    expectStatus(res, 422);
    assert.match(res.json().message, message, JSON.stringify(definition));
  }
  expectStatus(await putFees(m.id, [fee({ definition: { fixed: 0, percentages: [0, 100] } })]), 200);
  expectStatus(await putFees("mer_nobody", [fee()]), 404);
});

test("rotate-keys: the old keys are 401 at once, the new ones work", async () => {
  const other = await seedMerchant(t);
  const res = await t.app.inject({ method: "POST", url: `/v1/admin/merchants/${other.id}/rotate-keys`, headers: admin() });
  expectStatus(res, 200);
  const { id, apiKeys } = res.json();
  assert.equal(id, other.id);
  assert.match(apiKeys.sandbox, /^sk_test_/);
  assert.match(apiKeys.production, /^sk_live_/);
  assert.notEqual(apiKeys.sandbox, other.sandboxKey);

  assert.equal(await status(other.sandboxKey), 401);
  assert.equal(await status(other.productionKey), 401);
  assert.equal(await status(apiKeys.sandbox), 200);
  assert.equal(await status(apiKeys.production), 200);
  expectStatus(await t.app.inject({ method: "POST", url: "/v1/admin/merchants/mer_nobody/rotate-keys", headers: admin() }), 404);
});

test("admin routes refuse merchant keys, merchant tokens, wrong admin keys and no credentials (401)", async () => {
  const token = (await t.app.inject({ method: "POST", url: "/v1/auth/login", payload: { email: m.email, password: m.password } })).json().accessToken;
  const routes = [
    { method: "POST", url: "/v1/admin/merchants", payload: { name: "X", email: uniqueEmail(), password: "a long enough password" } },
    { method: "PATCH", url: `/v1/admin/merchants/${m.id}`, payload: { status: "inactive" } },
    { method: "PUT", url: `/v1/admin/merchants/${m.id}/fees`, payload: { fees: [] } },
    { method: "POST", url: `/v1/admin/merchants/${m.id}/rotate-keys` },
  ] as const;
  for (const route of routes) {
    for (const authorization of [basic(m.sandboxKey), basic(m.productionKey), `Bearer ${token}`, basic(t.admin + "x"), `Bearer ${t.admin}`, undefined]) {
      const res = await t.app.inject({ ...route, headers: authorization ? { authorization } : {} });
      expectStatus(res, 401);
    }
  }
  assert.equal(await status(m.sandboxKey), 200, "none of them changed anything");
});

test("without ADMIN_API_KEY the first start generates an admin key, stored hashed, shown once", async () => {
  const local = await buildTestApp({ adminApiKey: undefined });
  try {
    const first = await local.services.merchants.bootstrap({ demoMerchant: true });
    assert.match(first.adminKey ?? "", /^adm_[A-Za-z0-9]{40}$/);
    assert.ok(first.demo);
    assert.match(first.demo.sandboxKey, /^sk_test_/);
    const again = await local.services.merchants.bootstrap({ demoMerchant: true });
    assert.deepEqual(again, {}, "nothing is created or shown twice");

    const res = await local.app.inject({
      method: "POST", url: "/v1/admin/merchants", headers: { authorization: basic(first.adminKey!) },
      payload: { name: "Via chave gerada", email: uniqueEmail(), password: "a long enough password" },
    });
    expectStatus(res, 201);
    expectStatus(await local.app.inject({ url: "/v1/customers", headers: { authorization: basic(first.demo.sandboxKey) } }), 200);
    const login = await local.app.inject({ method: "POST", url: "/v1/auth/login", payload: { email: first.demo.email, password: first.demo.password } });
    expectStatus(login, 200);
    expectStatus(await local.app.inject({ method: "POST", url: "/v1/admin/merchants", headers: { authorization: basic("adm_guess") }, payload: {} }), 401);
  } finally {
    await local.close();
  }
});

test("API processes starting together on a fresh database make and print one admin key between them", async () => {
  const database = await freshDatabase();
  try {
    const config = testConfig({ adminApiKey: undefined });
    // Each process has its own services (and pool connection) on the one database.
    const processes = Array.from({ length: 6 }, () => createServices({ config, db: database.db }).merchants);
    // Six connections open first, so the six bootstraps run side by side rather than one per connect.
    await Promise.all(processes.map(() => database.db.execute(sql`select pg_sleep(0.05)`)));
    const started = await Promise.all(processes.map((merchants) => merchants.bootstrap({ demoMerchant: false })));
    assert.equal(started.filter((s) => s.adminKey).length, 1, "exactly one process shows a key");
    const [row] = await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from admin_keys`);
    assert.equal(row!.n, 1);
  } finally {
    await database.close();
  }
});
