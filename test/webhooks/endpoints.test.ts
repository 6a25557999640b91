import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { basic, expectStatus, seedMerchant, type SeededMerchant } from "../helpers/app.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
import { buildWebhookTestApp, call, createEndpoint, type WebhookTestApp } from "./harness.js";

let t: WebhookTestApp;
let m: SeededMerchant;
let r: Receiver;

before(async () => {
  t = await buildWebhookTestApp();
  m = await seedMerchant(t);
  r = await startReceiver();
});
after(async () => {
  await r.close();
  await t.close();
});

const ENDPOINT_KEYS = ["id", "url", "events", "enabled", "description", "disabledReason", "failingSince", "livemode", "createdAt", "updatedAt"];

describe("create, read, update, delete", () => {
  test("creation returns the secret once; reads never do", async () => {
    const created = await call(t, m.sandboxKey, "POST", "/v1/webhook-endpoints", { url: `${r.url}/a`, description: "orders" }, 201);
    const body = created.json();
    assert.match(body.id, /^whe_/);
    assert.match(body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(body.events, ["*"]);
    assert.equal(body.enabled, true);
    assert.equal(body.livemode, false);
    assert.equal(body.description, "orders");

    const got = (await call(t, m.sandboxKey, "GET", `/v1/webhook-endpoints/${body.id}`, undefined, 200)).json();
    assert.deepEqual(Object.keys(got).sort(), [...ENDPOINT_KEYS].sort());
    const listed = await call(t, m.sandboxKey, "GET", "/v1/webhook-endpoints", undefined, 200);
    assert.ok(!listed.body.includes(body.secret));
    assert.ok(!listed.body.includes("secret"));
    assert.equal(listed.json().data[0].id, body.id);
  });

  test("the secret is stored sealed, never in plain text", async () => {
    const ep = await createEndpoint(t, m.sandboxKey, { url: r.url });
    const { webhookEndpoints } = await import("../../src/db/schema.js");
    const { eq } = await import("drizzle-orm");
    const [row] = await t.database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, ep.id));
    assert.ok(row && !row.secretSealed.includes(ep.secret.slice(6)));
    assert.match(row.secretSealed, /^v1:/);
  });

  test("PATCH changes url, events, description and enabled; DELETE hides the endpoint", async () => {
    const ep = await createEndpoint(t, m.sandboxKey, { url: r.url, events: ["charge.paid"] });
    const patched = (await call(t, m.sandboxKey, "PATCH", `/v1/webhook-endpoints/${ep.id}`, {
      url: `${r.url}/b`, events: ["charge.created", "payout.approved"], description: null, enabled: false,
    }, 200)).json();
    assert.equal(patched.url, `${r.url}/b`);
    assert.deepEqual(patched.events, ["charge.created", "payout.approved"]);
    assert.equal(patched.enabled, false);
    assert.equal(patched.description, null);
    assert.ok(Date.parse(patched.updatedAt) >= Date.parse(patched.createdAt));

    const deleted = (await call(t, m.sandboxKey, "DELETE", `/v1/webhook-endpoints/${ep.id}`, undefined, 200)).json();
    assert.deepEqual(deleted, { id: ep.id, deleted: true });
    await call(t, m.sandboxKey, "GET", `/v1/webhook-endpoints/${ep.id}`, undefined, 404);
    await call(t, m.sandboxKey, "PATCH", `/v1/webhook-endpoints/${ep.id}`, { enabled: true }, 404);
    await call(t, m.sandboxKey, "DELETE", `/v1/webhook-endpoints/${ep.id}`, undefined, 404);
    const list = (await call(t, m.sandboxKey, "GET", "/v1/webhook-endpoints?limit=100", undefined, 200)).json();
    assert.ok(!list.data.some((e: { id: string }) => e.id === ep.id));
  });

  test('an events filter naming "*" is stored as ["*"]', async () => {
    const ep = await createEndpoint(t, m.sandboxKey, { url: r.url, events: ["charge.paid", "*"] });
    assert.deepEqual(ep.events, ["*"]);
  });

  test("lists page with a cursor", async () => {
    const merchant = await seedMerchant(t);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await createEndpoint(t, merchant.sandboxKey, { url: r.url })).id);
    const first = (await call(t, merchant.sandboxKey, "GET", "/v1/webhook-endpoints?limit=2", undefined, 200)).json();
    assert.deepEqual(first.data.map((e: { id: string }) => e.id), [ids[2], ids[1]]);
    assert.equal(first.hasMore, true);
    const second = (await call(t, merchant.sandboxKey, "GET", `/v1/webhook-endpoints?limit=2&startingAfter=${ids[1]}`, undefined, 200)).json();
    assert.deepEqual(second.data.map((e: { id: string }) => e.id), [ids[0]]);
    assert.equal(second.hasMore, false);
  });

  test("a merchant has at most 16 endpoints per environment", async () => {
    const merchant = await seedMerchant(t);
    for (let i = 0; i < 16; i++) await createEndpoint(t, merchant.sandboxKey, { url: r.url });
    const res = await call(t, merchant.sandboxKey, "POST", "/v1/webhook-endpoints", { url: r.url }, 422);
    assert.match(res.json().message, /At most 16/);
    await createEndpoint(t, merchant.productionKey, { url: r.url });
  });

  test("the same Idempotency-Key replays the creation instead of making a second endpoint", async () => {
    const merchant = await seedMerchant(t);
    const send = () => t.app.inject({
      method: "POST", url: "/v1/webhook-endpoints", payload: { url: r.url },
      headers: { authorization: basic(merchant.sandboxKey), "idempotency-key": "ep-1" },
    });
    const a = await send();
    const b = await send();
    expectStatus(a, 201);
    expectStatus(b, 201);
    assert.equal(a.json().id, b.json().id);
    assert.equal((await call(t, merchant.sandboxKey, "GET", "/v1/webhook-endpoints", undefined, 200)).json().data.length, 1);
  });
});

describe("validation", () => {
  const cases: [string, unknown, RegExp][] = [
    ["missing url", {}, /url is required/],
    ["not http", { url: "ftp://example.com/x" }, /url must be an absolute http\(s\) URL/],
    ["credentials", { url: "http://user:pw@127.0.0.1/x" }, /url must not contain credentials/],
    ["legacy-only event", { url: "http://127.0.0.1/x", events: ["charge.updated"] }, /events\.0/],
    ["unknown event", { url: "http://127.0.0.1/x", events: ["charge.exploded"] }, /events\.0/],
    ["empty filter", { url: "http://127.0.0.1/x", events: [] }, /events/],
    ["duplicate events", { url: "http://127.0.0.1/x", events: ["charge.paid", "charge.paid"] }, /events/],
    ["unknown field", { url: "http://127.0.0.1/x", secret: "whsec_mine" }, /secret is not a recognized field/],
    ["long description", { url: "http://127.0.0.1/x", description: "x".repeat(501) }, /description/],
    ["enabled not boolean", { url: "http://127.0.0.1/x", enabled: "yes" }, /enabled/],
  ];
  for (const [name, payload, message] of cases) {
    test(`POST rejects ${name} with 422`, async () => {
      const res = await call(t, m.sandboxKey, "POST", "/v1/webhook-endpoints", payload, 422);
      assert.match(res.json().message, message);
    });
  }

  test("PATCH rejects an empty body and bad values, and changes nothing", async () => {
    const ep = await createEndpoint(t, m.sandboxKey, { url: r.url });
    await call(t, m.sandboxKey, "PATCH", `/v1/webhook-endpoints/${ep.id}`, {}, 422);
    await call(t, m.sandboxKey, "PATCH", `/v1/webhook-endpoints/${ep.id}`, { url: "ftp://x" }, 422);
    await call(t, m.sandboxKey, "PATCH", `/v1/webhook-endpoints/${ep.id}`, { events: ["submerchant.status_changed"] }, 422);
    const got = (await call(t, m.sandboxKey, "GET", `/v1/webhook-endpoints/${ep.id}`, undefined, 200)).json();
    assert.equal(got.url, ep.url);
    assert.deepEqual(got.events, ["*"]);
  });
});

describe("security", () => {
  test("no key or a wrong key: 401", async () => {
    const none = await t.app.inject({ method: "GET", url: "/v1/webhook-endpoints" });
    expectStatus(none, 401);
    await call(t, "sk_test_wrong", "POST", "/v1/webhook-endpoints", { url: r.url }, 401);
    await call(t, "sk_test_wrong", "GET", "/v1/webhook-endpoints/postback-secret", undefined, 401);
  });

  test("another merchant's or another environment's endpoint is 404 everywhere", async () => {
    const owner = await seedMerchant(t);
    const intruder = await seedMerchant(t);
    const ep = await createEndpoint(t, owner.sandboxKey, { url: r.url });
    for (const key of [intruder.sandboxKey, owner.productionKey]) {
      await call(t, key, "GET", `/v1/webhook-endpoints/${ep.id}`, undefined, 404);
      await call(t, key, "PATCH", `/v1/webhook-endpoints/${ep.id}`, { enabled: false }, 404);
      await call(t, key, "DELETE", `/v1/webhook-endpoints/${ep.id}`, undefined, 404);
      await call(t, key, "POST", `/v1/webhook-endpoints/${ep.id}/rotate-secret`, undefined, 404);
      await call(t, key, "GET", `/v1/webhook-endpoints/${ep.id}/deliveries`, undefined, 404);
      const list = (await call(t, key, "GET", "/v1/webhook-endpoints", undefined, 200)).json();
      assert.ok(!list.data.some((e: { id: string }) => e.id === ep.id));
    }
    const still = (await call(t, owner.sandboxKey, "GET", `/v1/webhook-endpoints/${ep.id}`, undefined, 200)).json();
    assert.equal(still.enabled, true);
  });

  test("OpenAPI documents every route with an operationId and never a secret outside create and rotate", async () => {
    const doc = (await t.app.inject({ url: "/openapi.json" })).json();
    const ops: Record<string, { operationId?: string; tags?: string[]; responses: Record<string, unknown> }> = {};
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, never>>)) {
      for (const [method, op] of Object.entries(methods)) if (path.startsWith("/v1/webhook-endpoints") || path.startsWith("/v1/events")) ops[`${method} ${path}`] = op;
    }
    assert.equal(Object.keys(ops).length, 13); // with GET /v1/events/stream
    for (const [name, op] of Object.entries(ops)) {
      assert.ok(op.operationId, `${name} has an operationId`);
      assert.ok(op.tags?.some((tag) => tag === "webhooks" || tag === "events"), `${name} is tagged`);
      const ok = JSON.stringify(op.responses["200"] ?? op.responses["201"]);
      const mayShowSecret = /rotate|postback-secret|^post \/v1\/webhook-endpoints$/.test(name);
      assert.equal(ok.includes('"secret"'), mayShowSecret, `${name} secret in response`);
    }
  });
});

// Rotation and its 24 h overlap are in rotation.test.ts.
describe("secrets", () => {
  test("the postback secret is one per merchant and environment, stable until rotated", async () => {
    const a = await seedMerchant(t);
    const b = await seedMerchant(t);
    const get = async (key: string) => (await call(t, key, "GET", "/v1/webhook-endpoints/postback-secret", undefined, 200)).json();
    const first = await get(a.sandboxKey);
    assert.match(first.secret, /^whsec_/);
    assert.deepEqual(await get(a.sandboxKey), first);
    const others = [await get(a.productionKey), await get(b.sandboxKey)];
    for (const o of others) assert.notEqual(o.secret, first.secret);
    const rotated = (await call(t, a.sandboxKey, "POST", "/v1/webhook-endpoints/postback-secret/rotate", undefined, 200)).json();
    assert.notEqual(rotated.secret, first.secret);
    assert.equal((await get(a.sandboxKey)).secret, rotated.secret);
    assert.equal((await get(a.productionKey)).secret, others[0]!.secret, "the other environment keeps its secret");
  });
});
