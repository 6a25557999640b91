import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { expectStatus, seedMerchant } from "../helpers/app.js";
import { authorizeAndCallback, call, connectMerchant, login, PANEL, shippingWorld, type ShippingWorld } from "../helpers/shipping.js";

let w: ShippingWorld;
before(async () => { w = await shippingWorld(); });
after(async () => { await w.close(); });

test("connect: credentials sealed, authorize URL per spec, callback connects and redirects to the panel", async () => {
  const { merchant, jwt, clientSecret } = await connectMerchant(w);
  const status = await call(w.t, jwt, "GET", "/v1/shipping-provider/status");
  expectStatus(status, 200);
  const body = status.json();
  assert.equal(body.connected, true);
  assert.equal(body.status, "active");
  assert.equal(body.hasCredentials, true);
  assert.equal(body.originPostalCode, "01310100");
  assert.deepEqual(body.enabledServices, [1, 2, 17]);
  assert.ok(Date.parse(body.tokenExpiresAt) > Date.now());
  assert.ok(!status.body.includes(clientSecret), "the secret is never returned");
  // Sealed at rest: neither the secret nor a token is stored in clear.
  const rows = await w.t.database.db.execute(`select * from shipping_integrations where merchant_id = '${merchant.id}'` as never) as unknown as { rows: Record<string, string>[] };
  const row = JSON.stringify(rows.rows);
  assert.ok(!row.includes(clientSecret));
  assert.match(rows.rows[0]!.access_token_sealed!, /^v1:/);
  assert.equal(w.fake.calls["token:authorization_code"], 1);
  // The availability flag is public.
  const avail = await call(w.t, undefined, "GET", `/v1/payment-links/freight-availability?merchantId=${merchant.id}`);
  expectStatus(avail, 200);
  assert.deepEqual(avail.json(), { hasFreightTool: true });
});

test("the authorize URL carries response_type, client_id, the callback, the scope and a signed state", async () => {
  const m = await seedMerchant(w.t);
  const jwt = await login(w.t, m);
  expectStatus(await call(w.t, jwt, "POST", "/v1/shipping-provider/credentials", { clientId: "abc", clientSecret: "s3cret-value" }), 200);
  const res = await call(w.t, jwt, "GET", "/v1/shipping-provider/oauth/authorize");
  expectStatus(res, 200);
  const url = new URL(res.json().url);
  assert.equal(url.origin + url.pathname, `${w.fake.url}/oauth/authorize`);
  assert.equal(url.searchParams.get("response_type"), "code");
  assert.equal(url.searchParams.get("client_id"), "abc");
  assert.equal(url.searchParams.get("redirect_uri"), `${w.t.config.publicBaseUrl}/v1/shipping-provider/oauth/callback`);
  assert.match(url.searchParams.get("scope")!, /(^| )shipping-calculate( |$)/);
  assert.match(url.searchParams.get("state")!, /^[\w-]+\.[\w-]+$/);
});

test("a missing, forged, tampered, reused or other merchant's state connects nothing", async () => {
  const m = await seedMerchant(w.t);
  const jwt = await login(w.t, m);
  const clientId = `forge-${m.id}`;
  w.fake.registerApp({ clientId, clientSecret: "forge-secret", redirectUri: `${w.t.config.publicBaseUrl}/v1/shipping-provider/oauth/callback` });
  expectStatus(await call(w.t, jwt, "POST", "/v1/shipping-provider/credentials", { clientId, clientSecret: "forge-secret" }), 200);
  const { callbackUrl, callback } = await authorizeAndCallback(w, jwt);
  expectStatus(callback, 303);
  const code = callbackUrl.searchParams.get("code")!;
  const state = callbackUrl.searchParams.get("state")!;
  const [body, sig] = state.split(".");
  const exchanges = w.fake.calls["token:authorization_code"] ?? 0;

  const attempt = async (query: string) => {
    const res = await w.t.app.inject({ method: "GET", url: `/v1/shipping-provider/oauth/callback?${query}` });
    expectStatus(res, 303);
    const location = new URL(String(res.headers.location));
    assert.equal(location.origin + location.pathname, PANEL);
    return location.searchParams;
  };
  // Reused (the first callback consumed it).
  assert.equal((await attempt(`code=${code}&state=${encodeURIComponent(state)}`)).get("reason"), "invalid_state");
  assert.equal((await attempt(`code=${code}`)).get("reason"), "invalid_state");
  assert.equal((await attempt(`code=${code}&state=forged.value`)).get("reason"), "invalid_state");
  // Tampered payload: another merchant's id with the old signature.
  const other = Buffer.from(JSON.stringify(["n", "mer_other", "sandbox", Date.now() + 60_000])).toString("base64url");
  assert.equal((await attempt(`code=${code}&state=${other}.${sig}`)).get("reason"), "invalid_state");
  assert.equal((await attempt(`code=${code}&state=${body}.${"A".repeat(sig!.length)}`)).get("reason"), "invalid_state");
  assert.equal(w.fake.calls["token:authorization_code"] ?? 0, exchanges, "no code was exchanged for a bad state");
});

test("an expired state connects nothing", async () => {
  const m = await seedMerchant(w.t);
  const jwt = await login(w.t, m);
  const clientId = `exp-${m.id}`;
  w.fake.registerApp({ clientId, clientSecret: "exp-secret", redirectUri: `${w.t.config.publicBaseUrl}/v1/shipping-provider/oauth/callback` });
  expectStatus(await call(w.t, jwt, "POST", "/v1/shipping-provider/credentials", { clientId, clientSecret: "exp-secret" }), 200);
  const auth = await call(w.t, jwt, "GET", "/v1/shipping-provider/oauth/authorize");
  const state = new URL(auth.json().url).searchParams.get("state")!;
  await w.t.database.db.execute(`update shipping_oauth_states set expires_at = now() - interval '1 second'` as never);
  const res = await w.t.app.inject({ method: "GET", url: `/v1/shipping-provider/oauth/callback?code=x&state=${encodeURIComponent(state)}` });
  expectStatus(res, 303);
  assert.match(String(res.headers.location), /reason=invalid_state/);
  const status = await call(w.t, jwt, "GET", "/v1/shipping-provider/status");
  assert.equal(status.json().connected, false);
});

test("management routes take the merchant's JWT only: none, a secret key or a bad token is 401", async () => {
  const m = await seedMerchant(w.t);
  const routes: [string, string, unknown?][] = [
    ["GET", "/v1/shipping-provider/status"], ["GET", "/v1/shipping-provider/services"], ["GET", "/v1/shipping-provider/oauth/authorize"],
    ["POST", "/v1/shipping-provider/credentials", { clientId: "a", clientSecret: "b" }],
    ["PUT", "/v1/shipping-provider/settings", { originPostalCode: "01310100", enabledServices: [1] }], ["DELETE", "/v1/shipping-provider"],
  ];
  for (const [method, url, payload] of routes) {
    for (const auth of [undefined, `Basic ${Buffer.from(`${m.sandboxKey}:`).toString("base64")}`, "Bearer not.a.jwt"]) {
      const res = await call(w.t, auth, method as never, url, payload);
      assert.equal(res.statusCode, 401, `${method} ${url} with ${auth?.slice(0, 6)}: ${res.body}`);
    }
  }
});

test("settings: CEP format and service ids are checked; environments and merchants are apart", async () => {
  const { merchant, jwt } = await connectMerchant(w);
  for (const cep of ["0131010", "01310-10a", "013101000", ""]) {
    const res = await call(w.t, jwt, "PUT", "/v1/shipping-provider/settings", { originPostalCode: cep, enabledServices: [1] });
    assert.equal(res.statusCode, 422, res.body);
  }
  const unknown = await call(w.t, jwt, "PUT", "/v1/shipping-provider/settings", { originPostalCode: "01310100", enabledServices: [1, 999] });
  assert.equal(unknown.statusCode, 422);
  assert.match(unknown.json().message, /999/);
  const services = await call(w.t, jwt, "GET", "/v1/shipping-provider/services");
  expectStatus(services, 200);
  assert.deepEqual(services.json()[0], { id: 1, name: "PAC", company: { id: 1, name: "Correios" } });
  assert.match(w.fake.last.userAgent!, new RegExp(`^feira \\(${merchant.email.replace(/[.]/g, "\\.")}\\)$`));
  assert.equal(w.fake.last.accept, "application/json");
  // The same merchant in production is not connected; another merchant sees nothing of it.
  const prod = await login(w.t, merchant, "production");
  assert.equal((await call(w.t, prod, "GET", "/v1/shipping-provider/status")).json().connected, false);
  assert.equal((await call(w.t, prod, "GET", "/v1/shipping-provider/services")).statusCode, 409);
  const other = await login(w.t, await seedMerchant(w.t));
  assert.equal((await call(w.t, other, "GET", "/v1/shipping-provider/status")).json().hasCredentials, false);
});

test("disconnect: 204, inactive, and the availability flag goes false", async () => {
  const { merchant, jwt } = await connectMerchant(w);
  const res = await call(w.t, jwt, "DELETE", "/v1/shipping-provider");
  assert.equal(res.statusCode, 204);
  const status = (await call(w.t, jwt, "GET", "/v1/shipping-provider/status")).json();
  assert.equal(status.status, "inactive");
  assert.equal(status.connected, false);
  assert.equal(status.tokenExpiresAt, null);
  const avail = await call(w.t, undefined, "GET", `/v1/payment-links/freight-availability?merchantId=${merchant.id}`);
  assert.deepEqual(avail.json(), { hasFreightTool: false });
});
