import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { seedMerchant, type SeededMerchant } from "../helpers/app.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
import { buildWebhookTestApp, call, createEndpoint, settle, verified, type WebhookTestApp } from "./harness.js";

// End to end through the charges API: the events a charge produces reach the endpoint and the
// charge's postbackUrl, in the envelopes of src/modules/webhooks/catalog.ts.
let t: WebhookTestApp;
let m: SeededMerchant;
let endpoint: Receiver;
let postback: Receiver;

before(async () => {
  t = await buildWebhookTestApp({ timeoutMs: 3_000 });
  m = await seedMerchant(t);
  endpoint = await startReceiver();
  postback = await startReceiver();
});
after(async () => {
  await Promise.all([endpoint.close(), postback.close()]);
  await t.close();
});

const charge = (number: string) => ({
  amount: 100,
  currency: "BRL",
  customer: { name: "Maria Silva", email: "maria@example.com", document: { type: "cpf", id: "529.982.247-25" } },
  paymentMethod: { type: "credit_card", number, holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2030", cvv: "123", installments: 1 },
  postbackUrl: `${postback.url}/pb`,
});

test("a paid card charge sends charge.created and charge.paid to the endpoint and the postback URL", async () => {
  const ep = await createEndpoint(t, m.sandboxKey, { url: `${endpoint.url}/hooks` });
  const created = (await call(t, m.sandboxKey, "POST", "/v1/charges", charge("4111111111111111"), 201)).json();
  await settle(t);
  const secret = (await call(t, m.sandboxKey, "GET", "/v1/webhook-endpoints/postback-secret", undefined, 200)).json().secret;
  const toEndpoint = endpoint.requests.map((r) => verified(ep.secret, r));
  const toPostback = postback.requests.map((r) => verified(secret, r));
  for (const bodies of [toEndpoint, toPostback]) {
    assert.deepEqual(bodies.map((b) => b.event).sort(), ["charge.created", "charge.paid"]);
    for (const b of bodies) {
      assert.deepEqual(Object.keys(b), ["id", "event", "livemode", "data"]);
      assert.equal(b.livemode, false);
      const data = b.data as Record<string, unknown>;
      assert.equal(data.id, created.id);
      assert.equal(data.amount, 10_000, "events carry cents");
      assert.ok("payment_method" in data && "merchant_id" in data, "snake_case data");
    }
  }
  const paid = toEndpoint.find((b) => b.event === "charge.paid")!;
  assert.equal((paid.data as { status: string }).status, "paid");
  const events = (await call(t, m.sandboxKey, "GET", "/v1/events?type=charge.*", undefined, 200)).json().data;
  assert.deepEqual(events.map((e: { id: string }) => e.id).sort(), toEndpoint.map((b) => b.id).sort());
});

test("a declined card sends the legacy charge.updated only to the postback URL, in camelCase", async () => {
  const endpointBefore = endpoint.requests.length;
  const postbackBefore = postback.requests.length;
  const created = (await call(t, m.sandboxKey, "POST", "/v1/charges", charge("4000000000000002"), 201)).json();
  await settle(t);
  const legacy = postback.requests.slice(postbackBefore).map((r) => JSON.parse(r.body)).filter((b) => b.event === "charge.updated");
  assert.equal(legacy.length, 1);
  assert.deepEqual(Object.keys(legacy[0]), ["event", "data"]);
  assert.equal(legacy[0].data.id, created.id);
  assert.ok("paymentMethod" in legacy[0].data && !("payment_method" in legacy[0].data), "camelCase data");
  const endpointEvents = endpoint.requests.slice(endpointBefore).map((r) => JSON.parse(r.body).event);
  assert.ok(!endpointEvents.includes("charge.updated"), "never to endpoints");
});
