import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { queryRows, sql } from "../../src/db/client.js";
import { basic, buildTestApp, expectStatus, seedMerchant, storedKey, type TestApp } from "../helpers/app.js";

// A secret is shown once (when it is created or rotated): an idempotent replay of the response that showed it
// answers the secret fields as null and names them, and the stored response never holds them.

let t: TestApp;
before(async () => { t = await buildTestApp(); });
after(async () => { await t.close(); });

async function storedBodies(key: string): Promise<string[]> {
  const rows = await queryRows<{ scope: string; environment: string; route: string; response_body: string }>(t.database.db,
    sql`select scope, environment, route, response_body from idempotency_keys where key = ${storedKey(t, key)}`);
  return rows.map((r) => t.services.sealer.open(r.response_body, `idempotency:${r.scope}:${r.environment}:${r.route}:${key}`));
}

test("admin: a replay of a merchant's creation answers its keys as null and says so; the stored answer holds no key", async () => {
  const key = randomUUID();
  const payload = { name: "Replay", email: `replay-${randomUUID()}@example.com`, password: "correct horse battery" };
  const send = () => t.app.inject({ method: "POST", url: "/v1/admin/merchants", headers: { authorization: basic(t.admin), "idempotency-key": key }, payload });
  const first = await send();
  expectStatus(first, 201);
  assert.match(first.json().apiKeys.sandbox, /^sk_test_/);
  const again = await send();
  expectStatus(again, 201);
  assert.equal(again.headers["idempotent-replayed"], "true");
  assert.equal(again.headers["idempotent-redacted-fields"], "apiKeys.sandbox, apiKeys.production");
  assert.deepEqual(again.json().apiKeys, { sandbox: null, production: null });
  assert.equal(again.json().id, first.json().id);
  const [stored] = await storedBodies(key);
  assert.ok(stored && !stored.includes("sk_test_") && !stored.includes("sk_live_"), stored);
});

test("admin: a replay of a key rotation does not show the new keys again", async () => {
  const m = await seedMerchant(t);
  const key = randomUUID();
  const send = () => t.app.inject({ method: "POST", url: `/v1/admin/merchants/${m.id}/rotate-keys`, headers: { authorization: basic(t.admin), "idempotency-key": key } });
  const first = await send();
  expectStatus(first, 200);
  assert.match(first.json().apiKeys.production, /^sk_live_/);
  const again = await send();
  assert.deepEqual(again.json().apiKeys, { sandbox: null, production: null });
  // The rotation happened once: the keys of the first answer work.
  const res = await t.app.inject({ url: "/v1/customers", headers: { authorization: basic(first.json().apiKeys.sandbox) } });
  expectStatus(res, 200);
});

test("webhooks: replays of an endpoint's creation and of secret rotations answer the secret as null", async () => {
  const m = await seedMerchant(t);
  const post = (url: string, key: string, payload?: unknown) => t.app.inject({
    method: "POST", url, headers: { authorization: basic(m.sandboxKey), "idempotency-key": key }, ...(payload ? { payload: payload as never } : {}),
  });
  const createKey = randomUUID();
  const created = await post("/v1/webhook-endpoints", createKey, { url: "http://127.0.0.1:9/hooks" });
  expectStatus(created, 201);
  assert.match(created.json().secret, /^whsec_/);
  const replay = await post("/v1/webhook-endpoints", createKey, { url: "http://127.0.0.1:9/hooks" });
  expectStatus(replay, 201);
  assert.equal(replay.json().secret, null);
  assert.equal(replay.headers["idempotent-redacted-fields"], "secret");
  assert.equal(replay.json().id, created.json().id);

  for (const url of [`/v1/webhook-endpoints/${created.json().id}/rotate-secret`, "/v1/webhook-endpoints/postback-secret/rotate"]) {
    const key = randomUUID();
    const first = await post(url, key);
    expectStatus(first, 200);
    assert.match(first.json().secret, /^whsec_/);
    const again = await post(url, key);
    expectStatus(again, 200);
    assert.equal(again.json().secret, null, url);
    const [stored] = await storedBodies(key);
    assert.ok(stored && !stored.includes("whsec_"), stored);
  }
});
