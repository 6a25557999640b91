import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { LightMyRequestResponse } from "fastify";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { methodCharge } from "../helpers/charges.js";
import { activate, call, createSubmerchant, FEES, keyOf, multipart, REQUIRED_FILES, seedMaster } from "./helpers.js";

// Every Connect route that names a resource, called by someone who must not reach it: no key,
// another master, another master's submerchant, a merchant without Connect, and the other
// environment for environment-bound resources. The answer is 401, 403 or 404, never the data.

let t: TestApp;
let master: SeededMerchant;
let sm: { id: string; key: string };
let payoutId: string;
let documentId: string;
const callers: Record<string, string | null> = {};

before(async () => {
  t = await buildTestApp();
  master = await seedMaster(t, FEES);
  const created = await createSubmerchant(t, master.sandboxKey);
  await activate(t, master.sandboxKey, created.id);
  sm = { id: created.id, key: await keyOf(t, master.sandboxKey, created.id) };
  const c = await call(t, "POST", "/v1/charges", sm.key, methodCharge({ type: "pix" }, { amount: 100 }));
  expectStatus(await call(t, "POST", `/v1/sandbox/charges/${c.json().id}/pay`, sm.key), 200);
  expectStatus(await call(t, "POST", "/v1/sandbox/settle", sm.key), 200);
  const p = await call(t, "POST", `/v1/submerchants/${sm.id}/payout-requests`, sm.key, { amount: 1000 });
  expectStatus(p, 201);
  payoutId = p.json().id;
  documentId = (await call(t, "GET", `/v1/submerchants/${sm.id}/documents`, master.sandboxKey)).json().documents[0].id;

  const other = await seedMaster(t, FEES);
  const foreign = await createSubmerchant(t, other.sandboxKey);
  callers["no key"] = null;
  callers["another master"] = other.sandboxKey;
  callers["another master's submerchant"] = await keyOf(t, other.sandboxKey, foreign.id);
  callers["a merchant without Connect"] = (await seedMerchant(t)).sandboxKey;
  callers["a revoked-looking key"] = "sk_test_doesnotexist00000000000000";
});
after(async () => { await t.close(); });

function uploadAs(key: string | null, path: string) {
  const body = multipart(REQUIRED_FILES);
  return t.app.inject({ method: "POST", url: path, payload: body.payload, headers: { ...body.headers, ...(key ? { authorization: basic(key) } : {}) } });
}

type Route = [string, (key: string | null) => Promise<LightMyRequestResponse>];
const routes = (): Route[] => [
  ["GET submerchant", (k) => call(t, "GET", `/v1/submerchants/${sm.id}`, k)],
  ["GET api-keys", (k) => call(t, "GET", `/v1/submerchants/${sm.id}/api-keys`, k)],
  ["GET documents", (k) => call(t, "GET", `/v1/submerchants/${sm.id}/documents`, k)],
  ["GET document content", (k) => call(t, "GET", `/v1/submerchants/${sm.id}/documents/${documentId}/content`, k)],
  ["POST document", (k) => uploadAs(k, `/v1/submerchants/${sm.id}/document`)],
  ["POST documents", (k) => uploadAs(k, `/v1/submerchants/${sm.id}/documents`)],
  ["POST payout-requests", (k) => call(t, "POST", `/v1/submerchants/${sm.id}/payout-requests`, k, { amount: 100 })],
  ["GET payout-request", (k) => call(t, "GET", `/v1/payout-requests/${payoutId}`, k)],
];

test("every Connect route: no key, another master, another master's submerchant, no Connect: only 401, 403 or 404, never the data", async () => {
  const problems: string[] = [];
  for (const [who, key] of Object.entries(callers)) {
    for (const [name, send] of routes()) {
      const res = await send(key);
      if (![401, 403, 404].includes(res.statusCode)) problems.push(`${name} by ${who}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      // An error may echo the id the caller sent; it must not carry a key, a file or a record.
      if (/sk_(test|live)_[A-Za-z0-9]{32}/.test(res.body) || /%PDF|companyTaxId|netAmount|"keys"/.test(res.body)) {
        problems.push(`${name} by ${who} leaks data: ${res.body.slice(0, 200)}`);
      }
      if (key === null && res.statusCode !== 401) problems.push(`${name} without a key: ${res.statusCode}`);
    }
  }
  assert.deepEqual(problems, []);
});

test("lists never show another Connect's submerchants or payouts; fees-info shows a foreign caller only its own data", async () => {
  for (const [who, key] of Object.entries(callers)) {
    for (const url of ["/v1/submerchants?size=100", "/v1/payout-requests?size=100", `/v1/connect/sub-accounts/${sm.id}/fees-info`, "/v1/connect/settings"]) {
      const res = await call(t, "GET", url, key);
      assert.ok([200, 401, 403, 404].includes(res.statusCode), `${url} by ${who}: ${res.statusCode}`);
      if (res.statusCode === 200) assert.ok(!res.body.includes(sm.id) && !res.body.includes(payoutId), `${url} by ${who} shows ${res.body.slice(0, 200)}`);
    }
  }
});

test("a sandbox submerchant does not exist for the master's production key: its payouts, its registration and new payouts are 404", async () => {
  expectStatus(await call(t, "GET", `/v1/payout-requests/${payoutId}`, master.productionKey), 404);
  const list = await call(t, "GET", "/v1/payout-requests", master.productionKey);
  expectStatus(list, 200);
  assert.equal(list.json().total, 0);
  expectStatus(await call(t, "POST", `/v1/submerchants/${sm.id}/payout-requests`, master.productionKey, { amount: 1000 }), 404);
  expectStatus(await call(t, "GET", `/v1/submerchants/${sm.id}`, master.productionKey), 404);
});

test("admin routes refuse merchant keys and no key (401)", async () => {
  for (const key of [null, master.sandboxKey, sm.key]) {
    expectStatus(await call(t, "POST", `/v1/admin/submerchants/${sm.id}/status`, key, { status: "blocked" }), 401);
    expectStatus(await call(t, "POST", `/v1/admin/payout-requests/${payoutId}/approve`, key), 401);
    expectStatus(await call(t, "POST", `/v1/admin/payout-requests/${payoutId}/reject`, key, {}), 401);
  }
  const p = await call(t, "GET", `/v1/payout-requests/${payoutId}`, master.sandboxKey);
  assert.equal(p.json().status, "pending");
});
