import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { expectStatus } from "../helpers/app.js";
import { call, connectMerchant, shippingWorld, type ShippingWorld } from "../helpers/shipping.js";

let w: ShippingWorld;
before(async () => { w = await shippingWorld(); });
after(async () => { await w.close(); });

const refreshes = () => w.fake.calls["token:refresh_token"] ?? 0;

test("an expired access token is refreshed once, transparently, even under concurrent requests", async () => {
  const { jwt } = await connectMerchant(w);
  const before = (await call(w.t, jwt, "GET", "/v1/shipping-provider/status")).json().tokenExpiresAt;
  // The provider considers the token expired while feira still thinks it valid: the 401 path.
  w.fake.expireAccessTokens();
  w.fake.refreshDelayMs = 150; // widen the window in which requests pile up on the row lock
  const start = refreshes();
  const results = await Promise.all(Array.from({ length: 6 }, () => call(w.t, jwt, "GET", "/v1/shipping-provider/services")));
  w.fake.refreshDelayMs = 0;
  for (const r of results) expectStatus(r, 200);
  assert.equal(refreshes() - start, 1, "refreshed once, not once per request");
  const after = (await call(w.t, jwt, "GET", "/v1/shipping-provider/status")).json();
  assert.equal(after.status, "active");
  assert.ok(after.tokenExpiresAt >= before);
});

test("a token about to expire is renewed before use", async () => {
  const { merchant, jwt } = await connectMerchant(w);
  await w.t.database.db.execute(`update shipping_integrations set token_expires_at = now() + interval '1 minute' where merchant_id = '${merchant.id}'` as never);
  const start = refreshes();
  expectStatus(await call(w.t, jwt, "GET", "/v1/shipping-provider/services"), 200);
  assert.equal(refreshes() - start, 1);
  expectStatus(await call(w.t, jwt, "GET", "/v1/shipping-provider/services"), 200);
  assert.equal(refreshes() - start, 1, "the renewed token is used from then on");
});

test("a refused refresh leaves the integration inactive and tells the merchant", async () => {
  const { merchant, jwt } = await connectMerchant(w);
  w.fake.revokeAll();
  const res = await call(w.t, jwt, "GET", "/v1/shipping-provider/services");
  assert.equal(res.statusCode, 409, res.body);
  assert.match(res.json().message, /connect again/);
  const status = (await call(w.t, jwt, "GET", "/v1/shipping-provider/status")).json();
  assert.equal(status.status, "inactive");
  const events = await call(w.t, `Basic ${Buffer.from(`${merchant.sandboxKey}:`).toString("base64")}`, "GET", "/v1/events?limit=10");
  expectStatus(events, 200);
  const inactive = events.json().data.find((e: { type?: string; event?: string }) => (e.type ?? e.event) === "shipping.integration_inactive");
  assert.ok(inactive, `no shipping.integration_inactive event in ${events.body}`);
});

test("provider 5xx and 429 are a clear 503 without provider text", async () => {
  const { jwt } = await connectMerchant(w);
  for (const status of [500, 503, 429]) {
    w.fake.failNext(status);
    const res = await call(w.t, jwt, "GET", "/v1/shipping-provider/services");
    assert.equal(res.statusCode, 503, res.body);
    assert.ok(!/Server Error|Too Many/.test(res.body), res.body);
  }
});
