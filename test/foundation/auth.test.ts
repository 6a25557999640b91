import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";

// Secret keys by HTTP Basic (username = key), merchant JWTs by Bearer, the admin key by Basic.
// Every failure is the same bare 401, so that a caller learns nothing about which part was wrong.

let t: TestApp;
let m: SeededMerchant;
before(async () => {
  t = await buildTestApp({}, {
    // No product route takes a JWT yet; these two show what a JWT route and a key-or-JWT
    // route see, through the real authentication hook.
    beforeReady: (app) => {
      const whoami = async (req: { ctx: unknown }) => req.ctx;
      app.get("/test/jwt-only", { config: { auth: "jwt" }, schema: { hide: true } }, whoami);
      app.get("/test/key-or-jwt", { config: { auth: "keyOrJwt" }, schema: { hide: true } }, whoami);
    },
  });
  m = await seedMerchant(t);
});
after(async () => { await t.close(); });

const basicRaw = (text: string) => `Basic ${Buffer.from(text).toString("base64")}`;
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** An HS256 JWT signed with `secret`: the shape of ours, with a key an attacker could pick. */
function hs256(secret: string, claims: Record<string, unknown>): string {
  const unsigned = `${b64url({ alg: "HS256", typ: "JWT" })}.${b64url(claims)}`;
  return `${unsigned}.${createHmac("sha256", secret).update(unsigned).digest("base64url")}`;
}

async function expect401(authorization: string | undefined, url = "/v1/customers") {
  const res = await t.app.inject({ url, headers: authorization === undefined ? {} : { authorization } });
  expectStatus(res, 401);
  const body = res.json();
  assert.deepEqual({ ...body, message: undefined }, { statusCode: 401, message: undefined, error: "Unauthorized", code: "unauthorized" });
  // It says what the route expected, and names the scheme in WWW-Authenticate.
  assert.match(body.message, /^Unauthorized: /);
  if (url === "/test/jwt-only") {
    assert.match(body.message, /Authorization: Bearer <accessToken from POST \/v1\/auth\/login>/);
    assert.equal(res.headers["www-authenticate"], 'Bearer realm="feira"');
  } else {
    assert.match(body.message, /HTTP Basic username with an empty password/);
    assert.match(String(res.headers["www-authenticate"]), /^Basic realm="feira"/);
  }
}

async function login(body: Record<string, unknown>) {
  return t.app.inject({ method: "POST", url: "/v1/auth/login", payload: body });
}

test("a secret key by Basic (empty password) authenticates; the scheme is case-insensitive", async () => {
  expectStatus(await t.app.inject({ url: "/v1/customers", headers: { authorization: basic(m.sandboxKey) } }), 200);
  expectStatus(await t.app.inject({ url: "/v1/customers", headers: { authorization: basicRaw(m.sandboxKey) } }), 200);
  const lower = `basic ${Buffer.from(`${m.sandboxKey}:`).toString("base64")}`;
  expectStatus(await t.app.inject({ url: "/v1/customers", headers: { authorization: lower } }), 200);
});

test("missing credentials are 401", async () => {
  await expect401(undefined);
  await expect401("");
});

test("malformed credentials are 401", async () => {
  for (const header of [
    "Basic", "Basic ", "Basic !!!not-base64!!!", basicRaw(""), basicRaw(":"), basicRaw(":password-only"),
    `Basic ${"A".repeat(400)}`, "Bearer", "Bearer ", "Bearer not.a.jwt", m.sandboxKey,
  ]) await expect401(header);
});

test("a wrong or unknown key is 401", async () => {
  await expect401(basic("sk_test_" + "x".repeat(32)));
  await expect401(basic("sk_live_" + "x".repeat(32)));
  await expect401(basic(m.sandboxKey.slice(0, -1)));
  await expect401(basic(m.sandboxKey + "x"));
  await expect401(basic(m.sandboxKey.replace("sk_test_", "sk_live_")));
  await expect401(basic("pk_test_whatever"));
  await expect401(basic(t.admin), "/v1/customers");
});

test("a wrong scheme is 401: the key as Bearer, as Digest, or as a Token", async () => {
  await expect401(`Bearer ${m.sandboxKey}`);
  await expect401(`Digest ${m.sandboxKey}`);
  await expect401(`Token ${m.sandboxKey}`);
  await expect401(`Digest ${Buffer.from(`${m.sandboxKey}:`).toString("base64")}`);
});

test("the key decides the environment", async () => {
  const live = await t.app.inject({ url: "/test/key-or-jwt", headers: { authorization: basic(m.productionKey) } });
  expectStatus(live, 200);
  assert.equal(live.json().environment, "production");
  assert.equal(live.json().merchantId, m.id);
  const sandbox = await t.app.inject({ url: "/test/key-or-jwt", headers: { authorization: basic(m.sandboxKey) } });
  expectStatus(sandbox, 200);
  assert.equal(sandbox.json().environment, "sandbox");
  assert.deepEqual(sandbox.json().actor.type, "api_key");
});

test("login: 200 with a Bearer JWT for the merchant and environment", async () => {
  const res = await login({ email: m.email, password: m.password });
  expectStatus(res, 200);
  const body = res.json();
  assert.equal(body.tokenType, "Bearer");
  assert.equal(body.expiresIn, 3600);
  assert.deepEqual(Object.keys(body).sort(), ["accessToken", "expiresIn", "tokenType"]);
  const claims = t.app.jwt.verify<{ sub: string; env: string; exp: number; iat: number }>(body.accessToken);
  assert.equal(claims.sub, m.id);
  assert.equal(claims.env, "sandbox");
  assert.equal(claims.exp - claims.iat, 3600);

  const live = await login({ email: m.email.toUpperCase(), password: m.password, environment: "production" });
  expectStatus(live, 200);
  assert.equal(t.app.jwt.verify<{ env: string }>(live.json().accessToken).env, "production");
});

test("login: the token is accepted as Bearer where a JWT is, and not where only a key is", async () => {
  const token = (await login({ email: m.email, password: m.password, environment: "production" })).json().accessToken as string;
  for (const url of ["/test/jwt-only", "/test/key-or-jwt"]) {
    const res = await t.app.inject({ url, headers: { authorization: `Bearer ${token}` } });
    expectStatus(res, 200);
    assert.equal(res.json().merchantId, m.id);
    assert.equal(res.json().environment, "production");
    assert.equal(res.json().actor.type, "jwt");
  }
  await expect401(`Bearer ${token}`, "/v1/customers");
  await expect401(basic(m.sandboxKey), "/test/jwt-only");
});

test("a forged, expired or orphan JWT is 401", async () => {
  const now = Math.floor(Date.now() / 1000);
  const forged = hs256("a".repeat(64), { sub: m.id, env: "sandbox", iat: now, exp: now + 3600 });
  const none = `${b64url({ alg: "none", typ: "JWT" })}.${b64url({ sub: m.id, env: "sandbox" })}.`;
  // The same construction with the real secret passes: the forged one fails only by its key.
  expectStatus(await t.app.inject({
    url: "/test/jwt-only", headers: { authorization: `Bearer ${hs256(t.config.jwtSecret, { sub: m.id, env: "sandbox", iat: now, exp: now + 3600 })}` },
  }), 200);
  const expired = t.app.jwt.sign({ sub: m.id, env: "sandbox", iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 });
  const orphan = t.app.jwt.sign({ sub: "mer_doesnotexist", env: "sandbox" });
  const noSub = t.app.jwt.sign({ env: "sandbox" });
  for (const token of [forged, none, expired, orphan, noSub]) await expect401(`Bearer ${token}`, "/test/jwt-only");
});

test("login: wrong password and unknown email are the same 401", async () => {
  for (const body of [
    { email: m.email, password: "wrong password" },
    { email: "nobody@example.com", password: m.password },
  ]) {
    const res = await login(body);
    expectStatus(res, 401);
    assert.deepEqual(res.json(), { statusCode: 401, message: "Unauthorized", error: "Unauthorized", code: "unauthorized" });
  }
});

test("login: a malformed body is 422 naming the field", async () => {
  for (const [body, message] of [
    [{ email: m.email }, /^password is required$/],
    [{ email: "not-an-email", password: "x" }, /^email must match format "email"$/],
    [{ email: m.email, password: m.password, environment: "staging" }, /^environment /],
    [{ email: m.email, password: m.password, remember: true }, /^remember is not a recognized field$/],
  ] as const) {
    const res = await login(body);
    expectStatus(res, 422);
    assert.match(res.json().message, message);
  }
});

test("an inactive merchant: keys and tokens are 403, login is 403; reactivated, all work again", async () => {
  const other = await seedMerchant(t);
  const token = (await login({ email: other.email, password: other.password })).json().accessToken as string;
  const admin = { authorization: basic(t.admin) };
  expectStatus(await t.app.inject({ method: "PATCH", url: `/v1/admin/merchants/${other.id}`, headers: admin, payload: { status: "inactive" } }), 200);

  for (const [url, authorization] of [
    ["/v1/customers", basic(other.sandboxKey)],
    ["/v1/customers", basic(other.productionKey)],
    ["/test/jwt-only", `Bearer ${token}`],
  ] as const) {
    const res = await t.app.inject({ url, headers: { authorization } });
    expectStatus(res, 403);
    assert.equal(res.json().error, "Forbidden");
  }
  expectStatus(await login({ email: other.email, password: other.password }), 403);
  // A wrong password still says nothing about the account's state.
  expectStatus(await login({ email: other.email, password: "wrong password" }), 401);

  expectStatus(await t.app.inject({ method: "PATCH", url: `/v1/admin/merchants/${other.id}`, headers: admin, payload: { status: "active" } }), 200);
  expectStatus(await t.app.inject({ url: "/v1/customers", headers: { authorization: basic(other.sandboxKey) } }), 200);
  expectStatus(await t.app.inject({ url: "/test/jwt-only", headers: { authorization: `Bearer ${token}` } }), 200);
  expectStatus(await login({ email: other.email, password: other.password }), 200);
});

test("public routes need no credentials", async () => {
  for (const url of ["/health", "/openapi.json", "/metrics"]) expectStatus(await t.app.inject({ url }), 200);
});
