import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { queryRows, sql } from "../../src/db/client.js";
import { basic, buildTestApp, expectStatus, seedMerchant, storedKey, type SeededMerchant, type TestApp } from "../helpers/app.js";

// Idempotency-Key (docs/guarantees.md): the same key and body replay the first answer and
// create nothing; another body is 422; keys are scoped by merchant, environment and route;
// concurrent duplicates create one object.

let t: TestApp;
let m: SeededMerchant;
let flakyCalls = 0;
before(async () => {
  t = await buildTestApp({}, {
    beforeReady: (app) => {
      // A second merchant POST route, and one that fails once with a 500 and then succeeds.
      const opts = { config: { auth: "secretKey" as const }, schema: { hide: true } };
      app.post("/test/echo", opts, async (req, reply) => reply.code(201).send({ echoed: req.body }));
      app.post("/test/flaky", opts, async (_req, reply) => {
        flakyCalls += 1;
        if (flakyCalls === 1) throw new Error("transient failure");
        return reply.code(201).send({ call: flakyCalls });
      });
    },
  });
  m = await seedMerchant(t);
});
after(async () => { await t.close(); });

const body = (email: string) => ({ name: "Ana Souza", email, documentId: "52998224725", documentType: "cpf" });

function post(url: string, key: string, idempotencyKey: string | undefined, payload: unknown) {
  return t.app.inject({
    method: "POST", url, payload: payload as Record<string, unknown>,
    headers: { authorization: basic(key), ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey }) },
  });
}

async function customersWith(key: string, email: string): Promise<number> {
  const res = await t.app.inject({ url: `/v1/customers?email=${encodeURIComponent(email)}&limit=100`, headers: { authorization: basic(key) } });
  expectStatus(res, 200);
  return res.json().data.length;
}

test("the same key and body replay the first answer, marked idempotent-replayed, and create one customer", async () => {
  const key = randomUUID();
  const first = await post("/v1/customers", m.sandboxKey, key, body("replay@example.com"));
  expectStatus(first, 201);
  assert.equal(first.headers["idempotent-replayed"], undefined);

  for (let i = 0; i < 2; i++) {
    const again = await post("/v1/customers", m.sandboxKey, key, body("replay@example.com"));
    expectStatus(again, 201);
    assert.equal(again.body, first.body);
    assert.equal(again.headers["idempotent-replayed"], "true");
    assert.match(String(again.headers["content-type"]), /^application\/json/);
    assert.notEqual(again.headers["x-request-id"], first.headers["x-request-id"], "a replay is still its own request");
  }
  assert.equal(await customersWith(m.sandboxKey, "replay@example.com"), 1);
});

test("the same body with its fields in another order is the same request", async () => {
  const key = randomUUID();
  const b = body("order@example.com");
  expectStatus(await post("/v1/customers", m.sandboxKey, key, b), 201);
  const reordered = Object.fromEntries(Object.entries(b).reverse());
  const again = await post("/v1/customers", m.sandboxKey, key, reordered);
  expectStatus(again, 201);
  assert.equal(again.headers["idempotent-replayed"], "true");
  assert.equal(await customersWith(m.sandboxKey, "order@example.com"), 1);
});

test("the same key with another body is 422 and creates nothing", async () => {
  const key = randomUUID();
  expectStatus(await post("/v1/customers", m.sandboxKey, key, body("first-body@example.com")), 201);
  const other = await post("/v1/customers", m.sandboxKey, key, body("second-body@example.com"));
  expectStatus(other, 422);
  assert.equal(other.json().code, "idempotency_mismatch");
  assert.match(other.json().message, /Idempotency-Key/);
  assert.equal(await customersWith(m.sandboxKey, "second-body@example.com"), 0);
});

test("a key over 255 characters, or an empty one, is 400 on every POST route", async () => {
  for (const url of ["/v1/customers", "/test/echo"]) {
    for (const key of ["k".repeat(256), ""]) {
      const res = await post(url, m.sandboxKey, key, body("long-key@example.com"));
      expectStatus(res, 400);
      assert.match(res.json().message, /Idempotency-Key must be a single value of 1 to 255 characters/);
    }
  }
  expectStatus(await post("/v1/customers", m.sandboxKey, "k".repeat(255), body("long-key@example.com")), 201);
  assert.equal(await customersWith(m.sandboxKey, "long-key@example.com"), 1);
});

test("a key is independent per route, per merchant and per environment", async () => {
  const key = randomUUID();
  const other = await seedMerchant(t);
  const b = body("scoped@example.com");

  const mine = await post("/v1/customers", m.sandboxKey, key, b);
  expectStatus(mine, 201);
  const otherRoute = await post("/test/echo", m.sandboxKey, key, b);
  expectStatus(otherRoute, 201);
  assert.deepEqual(otherRoute.json(), { echoed: b }, "the other route ran instead of replaying");
  const otherMerchant = await post("/v1/customers", other.sandboxKey, key, b);
  expectStatus(otherMerchant, 201);
  const production = await post("/v1/customers", m.productionKey, key, b);
  expectStatus(production, 201);

  for (const res of [otherRoute, otherMerchant, production]) assert.equal(res.headers["idempotent-replayed"], undefined);
  assert.equal(new Set([mine, otherMerchant, production].map((r) => r.json().id)).size, 3);
  assert.equal(await customersWith(m.sandboxKey, "scoped@example.com"), 1);
  assert.equal(await customersWith(other.sandboxKey, "scoped@example.com"), 1);
  assert.equal(await customersWith(m.productionKey, "scoped@example.com"), 1);

  // Admin routes: the path is part of the scope, so one key rotates two merchants' keys.
  const admin = { authorization: basic(t.admin), "idempotency-key": key };
  const r1 = await t.app.inject({ method: "POST", url: `/v1/admin/merchants/${other.id}/rotate-keys`, headers: admin });
  expectStatus(r1, 200);
  const mine2 = await seedMerchant(t);
  const r2 = await t.app.inject({ method: "POST", url: `/v1/admin/merchants/${mine2.id}/rotate-keys`, headers: admin });
  expectStatus(r2, 200);
  assert.equal(r2.headers["idempotent-replayed"], undefined);
  const r1again = await t.app.inject({ method: "POST", url: `/v1/admin/merchants/${other.id}/rotate-keys`, headers: admin });
  expectStatus(r1again, 200);
  // A replayed rotation rotates nothing, and does not show the keys a second time.
  assert.deepEqual(r1again.json(), { ...r1.json(), apiKeys: { sandbox: null, production: null } });
  expectStatus(await t.app.inject({ url: "/v1/customers", headers: { authorization: basic(r1.json().apiKeys.sandbox) } }), 200);
});

test("10 concurrent duplicates create exactly one customer and get identical answers", async () => {
  const key = randomUUID();
  const results = await Promise.all(
    Array.from({ length: 10 }, () => post("/v1/customers", m.sandboxKey, key, body("concurrent@example.com"))),
  );
  for (const res of results) {
    expectStatus(res, 201);
    assert.equal(res.body, results[0]!.body);
  }
  assert.equal(results.filter((r) => r.headers["idempotent-replayed"] === undefined).length, 1, "one ran, nine replayed");
  assert.equal(await customersWith(m.sandboxKey, "concurrent@example.com"), 1);
});

test("concurrent requests with different keys each create their customer", async () => {
  const results = await Promise.all(
    Array.from({ length: 10 }, () => post("/v1/customers", m.sandboxKey, randomUUID(), body("distinct-keys@example.com"))),
  );
  for (const res of results) expectStatus(res, 201);
  assert.equal(new Set(results.map((r) => r.json().id)).size, 10);
  assert.equal(await customersWith(m.sandboxKey, "distinct-keys@example.com"), 10);
});

test("a 500 is not saved: a retry with the same key runs again", async () => {
  const key = randomUUID();
  const failed = await post("/test/flaky", m.sandboxKey, key, { attempt: "same" });
  expectStatus(failed, 500);
  const retried = await post("/test/flaky", m.sandboxKey, key, { attempt: "same" });
  expectStatus(retried, 201);
  assert.deepEqual(retried.json(), { call: 2 });
  assert.equal(retried.headers["idempotent-replayed"], undefined);
  const replayed = await post("/test/flaky", m.sandboxKey, key, { attempt: "same" });
  expectStatus(replayed, 201);
  assert.equal(replayed.headers["idempotent-replayed"], "true");
  assert.equal(flakyCalls, 2);
});

test("without a key, every POST creates", async () => {
  expectStatus(await post("/v1/customers", m.sandboxKey, undefined, body("no-key@example.com")), 201);
  expectStatus(await post("/v1/customers", m.sandboxKey, undefined, body("no-key@example.com")), 201);
  assert.equal(await customersWith(m.sandboxKey, "no-key@example.com"), 2);
});

// Clients put order numbers and other private references in their keys: the database holds a
// keyed hash of each key (HMAC-SHA256 under a key derived from ENCRYPTION_KEY), never the key.
async function rowsHolding(text: string): Promise<string[]> {
  const tables = await queryRows<{ name: string }>(t.database.db, sql`
    select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`);
  const found: string[] = [];
  for (const { name } of tables) {
    const [row] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from ${sql.identifier(name)} r where r::text like ${`%${text}%`}`);
    if (row!.n > 0) found.push(name);
  }
  return found;
}

/** The key replays the first answer, refuses another body, and made one customer. */
async function expectOneCustomer(key: string, email: string, firstBody: string) {
  const again = await post("/v1/customers", m.sandboxKey, key, body(email));
  expectStatus(again, 201);
  assert.equal(again.headers["idempotent-replayed"], "true");
  assert.equal(again.body, firstBody);
  expectStatus(await post("/v1/customers", m.sandboxKey, key, body(`other-${email}`)), 422);
  assert.equal(await customersWith(m.sandboxKey, email), 1);
}

test("a key is stored as a keyed hash, never as typed, and its replay still answers the first response", async () => {
  const key = `order-secret-${randomUUID()}`;
  const email = `hashed-${randomUUID()}@example.com`;
  const first = await post("/v1/customers", m.sandboxKey, key, body(email));
  expectStatus(first, 201);
  assert.deepEqual(await rowsHolding(key), [], "no table holds the key as typed");
  const [stored] = await queryRows<{ key: string }>(t.database.db, sql`select key from idempotency_keys where key = ${storedKey(t, key)}`);
  assert.match(stored?.key ?? "", /^[0-9a-f]{64}$/);
  await expectOneCustomer(key, email, first.body);
});

test("a claim stored before keys were hashed, under the key as typed, is still found by it", async () => {
  const key = `typed-${randomUUID()}`;
  const email = `legacy-${randomUUID()}@example.com`;
  const first = await post("/v1/customers", m.sandboxKey, key, body(email));
  expectStatus(first, 201);
  // What the release before left: the same row under the key as typed.
  await t.database.db.execute(sql`update idempotency_keys set key = ${key} where key = ${storedKey(t, key)}`);
  await expectOneCustomer(key, email, first.body);
  const [rows] = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from idempotency_keys where key in (${key}, ${storedKey(t, key)})`);
  assert.equal(rows!.n, 1, "no second claim beside it");
});
