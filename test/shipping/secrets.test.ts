import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, test } from "node:test";
import { basic, expectStatus } from "../helpers/app.js";
import { address, buyer, call, card, checkoutLink, connectMerchant, shippingWorld, type ShippingWorld } from "../helpers/shipping.js";

// The client secret and the OAuth tokens never reach a response or a log line.
let w: ShippingWorld;
let logs = "";
before(async () => {
  const stream = new Writable({ write(chunk, _enc, done) { logs += chunk.toString(); done(); } });
  w = await shippingWorld({}, { logLevel: "trace" }, { logger: { level: "trace", stream } });
});
after(async () => { await w.close(); });

test("secrets appear in no response and no log line, through connect, refresh, quote and charge", async () => {
  const { merchant, jwt, clientSecret } = await connectMerchant(w);
  const responses: string[] = [];
  const record = (r: { body: string }) => { responses.push(r.body); return r; };
  record(await call(w.t, jwt, "GET", "/v1/shipping-provider/status"));
  record(await call(w.t, jwt, "GET", "/v1/shipping-provider/services"));
  const firstToken = w.fake.last.authorization!.slice("Bearer ".length);
  w.fake.expireAccessTokens();
  record(await call(w.t, jwt, "GET", "/v1/shipping-provider/services"));
  const secondToken = w.fake.last.authorization!.slice("Bearer ".length);
  assert.notEqual(firstToken, secondToken);
  const link = record(await call(w.t, basic(merchant.sandboxKey), "POST", "/v1/payment-links", checkoutLink())) as { body: string };
  const id = JSON.parse(link.body).id;
  record(await call(w.t, undefined, "POST", `/v1/payment-links/${id}/freight/quote`, { postalCode: "20040020" }));
  const paid = record(await call(w.t, undefined, "POST", `/v1/payment-links/${id}/charge`, { customer: buyer, paymentMethod: card(), shippingAddress: address, freightServiceId: 1 }));
  expectStatus(paid as never, 201);
  const rows = (await w.t.database.db.execute(`select refresh_token_sealed from shipping_integrations` as never) as unknown as { rows: unknown[] }).rows;
  assert.ok(rows.length > 0);
  assert.ok(logs.length > 1000, "the logs were captured");
  for (const secret of [clientSecret, firstToken, secondToken, "4111111111111111"]) {
    assert.ok(!logs.includes(secret), `a secret reached the logs: ${secret.slice(0, 8)}...`);
    for (const body of responses) assert.ok(!body.includes(secret), `a secret reached a response: ${secret.slice(0, 8)}...`);
  }
});
