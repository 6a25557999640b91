import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";

// GET and PATCH /v1/merchant: a merchant reads and changes its own name and default soft
// descriptor with its secret key or login token; one profile for both environments; the
// descriptor's rules (Pagar.me's and Stripe's statement_descriptor) answered in words.

let t: TestApp;
let m: SeededMerchant;
let other: SeededMerchant;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
  other = await seedMerchant(t);
});
after(() => t.close());

const get = (authorization: string) => t.app.inject({ method: "GET", url: "/v1/merchant", headers: { authorization } });
const patch = (authorization: string, payload: unknown) =>
  t.app.inject({ method: "PATCH", url: "/v1/merchant", headers: { authorization, "content-type": "application/json" }, payload: JSON.stringify(payload) });

async function token(s: SeededMerchant): Promise<string> {
  const res = await t.app.inject({ method: "POST", url: "/v1/auth/login", payload: { email: s.email, password: s.password } });
  expectStatus(res, 200);
  return `Bearer ${res.json().accessToken}`;
}

function expect422(res: Awaited<ReturnType<typeof get>>, message: string): void {
  expectStatus(res, 422);
  assert.deepEqual(res.json(), { statusCode: 422, message, error: "Unprocessable Entity", code: "validation_failed" });
}

test("GET /v1/merchant answers the key's own merchant, with no soft descriptor at first", async () => {
  const res = await get(basic(m.sandboxKey));
  expectStatus(res, 200);
  const body = res.json();
  assert.equal(body.id, m.id);
  assert.equal(body.email, m.email);
  assert.equal(body.softDescriptor, null);
  assert.equal(body.status, "active");
  assert.ok(!("passwordHash" in body) && !("pixKey" in body), "no internal fields");
  expectStatus(await get(basic(other.sandboxKey)), 200);
  assert.equal((await get(basic(other.sandboxKey))).json().id, other.id, "another key, its own merchant");
});

test("PATCH /v1/merchant with the login token sets name and soft descriptor, seen by both environments' keys", async () => {
  const res = await patch(await token(m), { name: "  Padaria Aurora ", softDescriptor: "PADARIA AURORA".slice(0, 13) });
  expectStatus(res, 200);
  assert.equal(res.json().name, "Padaria Aurora", "trimmed");
  assert.equal(res.json().softDescriptor, "PADARIA AUROR");
  for (const key of [m.sandboxKey, m.productionKey]) {
    const seen = (await get(basic(key))).json();
    assert.equal(seen.name, "Padaria Aurora");
    assert.equal(seen.softDescriptor, "PADARIA AUROR");
  }
  // The operator's view of the merchant has the new name too.
  const admin = await t.app.inject({ method: "PATCH", url: `/v1/admin/merchants/${m.id}`, headers: { authorization: basic(t.admin) }, payload: { connectEnabled: false } });
  assert.equal(admin.json().name, "Padaria Aurora");
  // Another merchant is untouched.
  assert.equal((await get(basic(other.sandboxKey))).json().softDescriptor, null);

  const cleared = await patch(basic(m.sandboxKey), { softDescriptor: null });
  expectStatus(cleared, 200);
  assert.equal(cleared.json().softDescriptor, null);
  assert.equal(cleared.json().name, "Padaria Aurora", "a field left out is kept");
});

test("the soft descriptor's rules and the name's are answered 422 naming the field, and nothing changes", async () => {
  const key = basic(m.sandboxKey);
  expectStatus(await patch(key, { softDescriptor: "LOJA 1" }), 200);
  expect422(await patch(key, { softDescriptor: "LOJA EXEMPLO 1" }), "softDescriptor must NOT have more than 13 characters");
  for (const bad of ["PÃO QUENTE", "LOJA*SP", "LOJA\tSP", "loja.com"]) {
    expect422(await patch(key, { softDescriptor: bad }), "softDescriptor may hold only letters A to Z without accents, digits and spaces");
  }
  expect422(await patch(key, { softDescriptor: "" }), "softDescriptor must NOT have fewer than 1 characters");
  expect422(await patch(key, { name: "   " }), "name must not be blank");
  expect422(await patch(key, { name: "x".repeat(201) }), "name must NOT have more than 200 characters");
  expect422(await patch(key, { email: "new@example.com" }), "email is not a recognized field");
  expect422(await patch(key, {}), "body must NOT have fewer than 1 properties");
  expect422(await patch(key, { softDescriptor: 42 }), "softDescriptor must be string");
  assert.equal((await get(key)).json().softDescriptor, "LOJA 1");
});

test("no credentials, a wrong one, or an inactive merchant are refused", async () => {
  const none = await t.app.inject({ method: "PATCH", url: "/v1/merchant", payload: { name: "x" } });
  expectStatus(none, 401);
  assert.equal(none.json().code, "unauthorized");
  expectStatus(await get(basic("sk_test_wrong")), 401);
  expectStatus(await get("Bearer not-a-token"), 401);
  const blocked = await seedMerchant(t);
  expectStatus(await t.app.inject({ method: "PATCH", url: `/v1/admin/merchants/${blocked.id}`, headers: { authorization: basic(t.admin) }, payload: { status: "inactive" } }), 200);
  const refused = await patch(basic(blocked.sandboxKey), { name: "Still here" });
  expectStatus(refused, 403);
  assert.equal(refused.json().code, "forbidden");
});
