import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { withTx } from "../../src/db/client.js";
import { recordEvent } from "../../src/modules/webhooks/outbox.js";
import { seedMerchant, type SeededMerchant } from "../helpers/app.js";
import { startReceiver } from "../helpers/webhook-receiver.js";
import { drainTasks } from "../../src/jobs/runner.js";
import {
  STEPS_DELIVERY, buildWebhookTestApp, call, chargeData, createEndpoint, deliveriesOf as logOf, paidEvent, receiverPool, record, settle, verified,
  type WebhookTestApp,
} from "./harness.js";

// The delivery worker against real HTTP receivers on 127.0.0.1, driven by the module's task
// (settle) instead of sleeping. WEBHOOK_RETRY_SCALE is 0.001 (test default), so the endpoint
// schedule's first retries are 5 ms and 300 ms. The HTTP timeout is 3 s, far above what a local
// receiver needs even on a loaded machine; the timeout test builds its own app with 300 ms.
let t: WebhookTestApp;
let m: SeededMerchant;
const receivers = receiverPool();
const receiver = receivers.start;
const paid = paidEvent;

before(async () => {
  t = await buildWebhookTestApp({ timeoutMs: 3_000, noWorkerProcesses: STEPS_DELIVERY });
  m = await seedMerchant(t);
});
after(async () => {
  await receivers.close();
  await t.close();
});

describe("signing and envelopes", () => {
  test("a standard event reaches the endpoint and the postback URL, each verifiable by the standardwebhooks library", async () => {
    const merchant = await seedMerchant(t);
    const endpoint = await receiver();
    const postback = await receiver();
    const ep = await createEndpoint(t, merchant.sandboxKey, { url: `${endpoint.url}/hooks` });
    const eventId = await record(t, paid(merchant.id, "ch_sig", { postbackUrl: `${postback.url}/pb` }));
    await settle(t);

    assert.equal(endpoint.requests.length, 1);
    const got = endpoint.requests[0]!;
    assert.equal(got.path, "/hooks");
    assert.equal(got.headers["content-type"], "application/json");
    assert.equal(got.headers["webhook-id"], eventId);
    assert.match(String(got.headers["webhook-signature"]), /^v1,[A-Za-z0-9+/]+=*$/);
    const body = verified(ep.secret, got);
    assert.deepEqual(Object.keys(body), ["id", "event", "livemode", "data"]);
    assert.equal(body.id, eventId);
    assert.equal(body.event, "charge.paid");
    assert.equal(body.livemode, false);
    assert.deepEqual(body.data, chargeData("ch_sig", "paid"));

    // The postback carries the same body, signed with the merchant's postback secret.
    const secret = (await call(t, merchant.sandboxKey, "GET", "/v1/webhook-endpoints/postback-secret", undefined, 200)).json().secret;
    assert.match(secret, /^whsec_/);
    assert.equal(postback.requests.length, 1);
    assert.equal(postback.requests[0]!.path, "/pb");
    assert.deepEqual(verified(secret, postback.requests[0]!), body);
    assert.throws(() => verified(ep.secret, postback.requests[0]!), /signature/i);
    // A tampered body fails verification.
    assert.throws(() => new Webhook(ep.secret).verify(got.body.replace("paid", "PAID"), got.headers as Record<string, string>));
  });

  test("production events say livemode true; payout events use {id, event, data}; notifications are the bare data", async () => {
    const merchant = await seedMerchant(t);
    const prod = await receiver();
    const sandbox = await receiver();
    const pb = await receiver();
    await createEndpoint(t, merchant.productionKey, { url: prod.url });
    await createEndpoint(t, merchant.sandboxKey, { url: sandbox.url });
    const live = await record(t, paid(merchant.id, "ch_live", { environment: "production" }));
    const payout = await record(t, {
      merchantId: merchant.id, environment: "sandbox", type: "payout.approved", objectId: "po_1",
      data: { id: "po_1", amount: 5000, status: "approved" }, postbackUrl: pb.url,
    });
    await record(t, {
      merchantId: merchant.id, environment: "sandbox", type: "submerchant.status_changed", objectId: "mer_sub",
      data: { merchantId: "mer_sub", status: "active", date: "2025-01-01T00:00:00.000Z" }, postbackUrl: pb.url,
    });
    await settle(t);
    assert.equal(prod.requests.length, 1, "production endpoint gets only production events");
    assert.deepEqual(JSON.parse(prod.requests[0]!.body), { id: live, event: "charge.paid", livemode: true, data: chargeData("ch_live", "paid") });
    assert.equal(sandbox.requests.length, 1, "the notification goes only to the postback URL");
    assert.deepEqual(JSON.parse(sandbox.requests[0]!.body), { id: payout, event: "payout.approved", data: { id: "po_1", amount: 5000, status: "approved" } });
    const bodies = pb.requests.map((r) => JSON.parse(r.body)).sort((a, b) => String(a.id ?? "").localeCompare(String(b.id ?? "")));
    assert.deepEqual(bodies, [
      { merchantId: "mer_sub", status: "active", date: "2025-01-01T00:00:00.000Z" },
      { id: payout, event: "payout.approved", data: { id: "po_1", amount: 5000, status: "approved" } },
    ]);
  });

  test("nothing is recorded, so nothing is sent, when the caller's transaction rolls back", async () => {
    const merchant = await seedMerchant(t);
    const r = await receiver();
    await createEndpoint(t, merchant.sandboxKey, { url: r.url });
    await assert.rejects(withTx(t.database.db, async (tx) => {
      await recordEvent(tx, paid(merchant.id, "ch_rolled_back"));
      throw new Error("the charge failed after all");
    }), /failed after all/);
    await settle(t);
    assert.equal(r.requests.length, 0);
    assert.equal((await call(t, merchant.sandboxKey, "GET", "/v1/events", undefined, 200)).json().data.length, 0);
  });
});

describe("routing", () => {
  test("each endpoint gets only the types it subscribes to; disabled, other merchants' and other environments' endpoints get nothing", async () => {
    const merchant = await seedMerchant(t);
    const other = await seedMerchant(t);
    const [onlyPaid, all, disabled, otherMerchant, production] = await Promise.all([receiver(), receiver(), receiver(), receiver(), receiver()]);
    await createEndpoint(t, merchant.sandboxKey, { url: onlyPaid.url, events: ["charge.paid"] });
    await createEndpoint(t, merchant.sandboxKey, { url: all.url });
    await createEndpoint(t, merchant.sandboxKey, { url: disabled.url, enabled: false });
    await createEndpoint(t, other.sandboxKey, { url: otherMerchant.url });
    await createEndpoint(t, merchant.productionKey, { url: production.url });
    await record(t, { ...paid(merchant.id, "ch_r"), type: "charge.created", data: chargeData("ch_r", "pending") });
    await record(t, paid(merchant.id, "ch_r"));
    await settle(t);
    assert.deepEqual(onlyPaid.requests.map((r) => JSON.parse(r.body).event), ["charge.paid"]);
    assert.deepEqual(all.requests.map((r) => JSON.parse(r.body).event).sort(), ["charge.created", "charge.paid"]);
    assert.equal(disabled.requests.length, 0);
    assert.equal(otherMerchant.requests.length, 0);
    assert.equal(production.requests.length, 0);
  });

  test("legacy charge.updated goes only to the postbackUrl, as {event, data} in camelCase, signed with the postback secret", async () => {
    const merchant = await seedMerchant(t);
    const endpoint = await receiver();
    const pb = await receiver();
    await createEndpoint(t, merchant.sandboxKey, { url: endpoint.url });
    const data = { id: "ch_leg", status: "refused", pspRefId: null, paymentMethod: { type: "credit_card", firstSixDigits: "400000" }, isBlocked: true };
    const eventId = await record(t, { merchantId: merchant.id, environment: "sandbox", type: "charge.updated", objectId: "ch_leg", data, postbackUrl: pb.url });
    await settle(t);
    assert.equal(endpoint.requests.length, 0, "never to endpoints");
    assert.equal(pb.requests.length, 1);
    const secret = (await call(t, merchant.sandboxKey, "GET", "/v1/webhook-endpoints/postback-secret", undefined, 200)).json().secret;
    assert.deepEqual(verified(secret, pb.requests[0]!), { event: "charge.updated", data });
    assert.equal(pb.requests[0]!.headers["webhook-id"], eventId);
  });
});

describe("retries", () => {
  test("after 500s the endpoint gets the same event, same id and body, until it answers 2xx; the log shows every attempt", async () => {
    const r = await receiver((_req, i) => (i < 2 ? { status: 500, body: `boom ${i}` } : { status: 204, body: "" }));
    const ep = await createEndpoint(t, m.sandboxKey, { url: r.url, events: ["charge.refunded"] });
    const eventId = await record(t, { ...paid(m.id, "ch_retry"), type: "charge.refunded" });
    await settle(t);
    assert.equal(r.requests.length, 3);
    for (const req of r.requests) {
      assert.equal(req.headers["webhook-id"], eventId);
      assert.equal(req.body, r.requests[0]!.body);
      verified(ep.secret, req);
    }
    const [delivery] = await deliveriesOf(m.sandboxKey, ep.id);
    assert.equal(delivery!.status, "delivered");
    assert.equal(delivery!.attemptCount, 3);
    assert.deepEqual(delivery!.attempts.map((a) => [a.attempt, a.responseStatus, a.error, a.responseExcerpt]), [
      [1, 500, "HTTP 500", "boom 0"], [2, 500, "HTTP 500", "boom 1"], [3, 204, null, ""],
    ]);
    for (const a of delivery!.attempts) assert.ok(a.durationMs >= 0 && !Number.isNaN(Date.parse(a.startedAt)));
  });

  test("a receiver slower than the timeout is a failed attempt, retried with the same event id", async () => {
    const quick = await buildWebhookTestApp({ timeoutMs: 300, noWorkerProcesses: STEPS_DELIVERY });
    try {
      const merchant = await seedMerchant(quick);
      const r = await receiver((_req, i) => (i === 0 ? { status: 200, delayMs: 2_000 } : { status: 200 }));
      const ep = await createEndpoint(quick, merchant.sandboxKey, { url: r.url, events: ["charge.pending"] });
      const eventId = await record(quick, { ...paid(merchant.id, "ch_slow"), type: "charge.pending", data: chargeData("ch_slow", "pending") });
      await settle(quick);
      assert.ok(r.requests.length >= 2);
      assert.ok(r.requests.every((q) => q.headers["webhook-id"] === eventId));
      const [delivery] = (await call(quick, merchant.sandboxKey, "GET", `/v1/webhook-endpoints/${ep.id}/deliveries`, undefined, 200)).json().data;
      assert.equal(delivery.status, "delivered");
      assert.equal(delivery.attempts[0].responseStatus, null);
      assert.equal(delivery.attempts[0].error, "timeout after 300ms");
      // It gave up at the timeout instead of waiting the receiver's 2 s.
      assert.ok(delivery.attempts[0].durationMs >= 250 && delivery.attempts[0].durationMs < 1_900, `${delivery.attempts[0].durationMs}`);
    } finally {
      await quick.close();
    }
  });

  test("a receiver that refuses connections is retried; a 3xx is a failure and is not followed", async () => {
    const r = await receiver((_req, i) => (i === 0 ? { status: 302, body: "moved" } : { status: 200 }));
    const ep = await createEndpoint(t, m.sandboxKey, { url: r.url, events: ["charge.created"] });
    await record(t, { ...paid(m.id, "ch_3xx"), type: "charge.created" });
    await settle(t);
    const [delivery] = await deliveriesOf(m.sandboxKey, ep.id);
    assert.deepEqual(delivery!.attempts.map((a) => a.responseStatus), [302, 200]);

    const merchant = await seedMerchant(t);
    const closed = await startReceiver();
    const url = closed.url;
    await closed.close(); // nothing listens there now
    const dead = await createEndpoint(t, merchant.sandboxKey, { url });
    await record(t, paid(merchant.id, "ch_refused"));
    await drainTasks(t.webhooks.tasks);
    const [d] = await deliveriesOf(merchant.sandboxKey, dead.id);
    assert.equal(d!.status, "pending");
    assert.match(d!.attempts[0]!.error ?? "", /ECONNREFUSED/);
    await call(t, merchant.sandboxKey, "DELETE", `/v1/webhook-endpoints/${dead.id}`, undefined, 200);
    await settle(t);
  });

  test("receivers deduplicate by webhook-id whatever the order and number of copies", async () => {
    const merchant = await seedMerchant(t);
    // The first copy of every other event gets a 500 (it is retried later, so arrives out of
    // order); redeliveries add more copies.
    const seen = new Set<string>();
    const accepted: string[] = [];
    const r = await receiver((req) => {
      const id = String(req.headers["webhook-id"]);
      const first = !seen.has(id);
      seen.add(id);
      if (first && (JSON.parse(req.body).data.n as number) % 2 === 0) return { status: 500 };
      accepted.push(id);
      return { status: 200 };
    });
    await createEndpoint(t, merchant.sandboxKey, { url: r.url });
    const ids: string[] = [];
    for (let n = 0; n < 10; n++) {
      ids.push(await record(t, { ...paid(merchant.id, `ch_d${n}`), data: { ...chargeData(`ch_d${n}`, "paid"), n } }));
    }
    await settle(t);
    await call(t, merchant.sandboxKey, "POST", `/v1/events/${ids[3]}/redeliver`, {}, 201);
    await call(t, merchant.sandboxKey, "POST", `/v1/events/${ids[4]}/redeliver`, {}, 201);
    await settle(t);
    assert.equal(r.requests.length, 10 + 5 + 2);
    const firstAccepted = [...new Set(accepted)];
    assert.notDeepEqual(firstAccepted, ids, "events were accepted out of order");
    const byId = new Map<string, string>();
    for (const req of [...r.requests].reverse()) {
      const id = String(req.headers["webhook-id"]);
      assert.equal(JSON.parse(req.body).id, id, "the envelope id is the webhook-id");
      if (byId.has(id)) assert.equal(byId.get(id), req.body, "every copy has the same body");
      byId.set(id, req.body);
    }
    assert.deepEqual([...byId.keys()].sort(), [...ids].sort());
  });
});

function deliveriesOf(key: string, endpointId: string) {
  return logOf(t, key, endpointId);
}
