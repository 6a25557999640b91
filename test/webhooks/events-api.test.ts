import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { basic, expectStatus, seedMerchant, type SeededMerchant } from "../helpers/app.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
import { STEPS_DELIVERY, buildWebhookTestApp, call, chargeData, createEndpoint, record, settle, type WebhookTestApp } from "./harness.js";

let t: WebhookTestApp;
let r: Receiver;
let pb: Receiver;

before(async () => {
  t = await buildWebhookTestApp({ noWorkerProcesses: STEPS_DELIVERY });
  r = await startReceiver();
  pb = await startReceiver();
});
after(async () => {
  await Promise.all([r.close(), pb.close()]);
  await t.close();
});

const event = (merchant: SeededMerchant, type: "charge.created" | "charge.paid" | "charge.refunded" | "payout.approved", chargeId: string, postbackUrl?: string) =>
  record(t, { merchantId: merchant.id, environment: "sandbox", type, objectId: chargeId, data: chargeData(chargeId, type.split(".")[1]!), postbackUrl });

describe("GET /v1/events", () => {
  let m: SeededMerchant;
  const ids: string[] = [];
  let middle = "";
  before(async () => {
    m = await seedMerchant(t);
    ids.push(await event(m, "charge.created", "ch_1"));
    ids.push(await event(m, "charge.paid", "ch_1"));
    await sleep(20);
    middle = new Date().toISOString();
    await sleep(20);
    ids.push(await event(m, "charge.refunded", "ch_1"));
    ids.push(await event(m, "payout.approved", "po_1"));
  });

  test("lists the merchant's events newest first with their data", async () => {
    const body = (await call(t, m.sandboxKey, "GET", "/v1/events", undefined, 200)).json();
    assert.deepEqual(body.data.map((e: { id: string }) => e.id), [...ids].reverse());
    assert.equal(body.hasMore, false);
    const paid = body.data[2];
    assert.deepEqual(Object.keys(paid).sort(), ["createdAt", "data", "id", "livemode", "objectId", "type"]);
    assert.equal(paid.type, "charge.paid");
    assert.equal(paid.livemode, false);
    assert.equal(paid.objectId, "ch_1");
    assert.deepEqual(paid.data, chargeData("ch_1", "paid"));
  });

  test("filters by type, by type family and by date, and pages with a cursor", async () => {
    const list = async (q: string) => (await call(t, m.sandboxKey, "GET", `/v1/events?${q}`, undefined, 200)).json();
    assert.deepEqual((await list("type=charge.paid")).data.map((e: { id: string }) => e.id), [ids[1]]);
    assert.deepEqual((await list("type=charge.*")).data.map((e: { id: string }) => e.id), [ids[2], ids[1], ids[0]]);
    assert.deepEqual((await list(`createdGte=${middle}`)).data.map((e: { id: string }) => e.id), [ids[3], ids[2]]);
    assert.deepEqual((await list(`createdLte=${middle}`)).data.map((e: { id: string }) => e.id), [ids[1], ids[0]]);
    const page1 = await list("limit=3");
    assert.equal(page1.hasMore, true);
    const page2 = await list(`limit=3&startingAfter=${page1.data[2].id}`);
    assert.deepEqual(page2.data.map((e: { id: string }) => e.id), [ids[0]]);
    assert.equal(page2.hasMore, false);
  });

  test("rejects bad filters with 422", async () => {
    for (const q of ["type=Charge%20Paid", "createdGte=yesterday", "limit=0", "limit=101", "color=red"]) {
      await call(t, m.sandboxKey, "GET", `/v1/events?${q}`, undefined, 422);
    }
  });

  test("shows nothing of other merchants or the other environment", async () => {
    const other = await seedMerchant(t);
    assert.deepEqual((await call(t, other.sandboxKey, "GET", "/v1/events", undefined, 200)).json().data, []);
    assert.deepEqual((await call(t, m.productionKey, "GET", "/v1/events", undefined, 200)).json().data, []);
    await call(t, other.sandboxKey, "GET", `/v1/events/${ids[0]}`, undefined, 404);
    await call(t, m.productionKey, "GET", `/v1/events/${ids[0]}`, undefined, 404);
    await call(t, other.sandboxKey, "POST", `/v1/events/${ids[0]}/redeliver`, {}, 404);
    expectStatus(await t.app.inject({ url: "/v1/events" }), 401);
    await call(t, m.sandboxKey, "GET", "/v1/events/evt_nope", undefined, 404);
  });
});

describe("GET /v1/events/{id} and the delivery log", () => {
  test("an event shows each delivery, endpoint and postback, with every attempt", async () => {
    const m = await seedMerchant(t);
    const failing = await startReceiver({ respond: (_q, i) => (i === 0 ? { status: 500, body: "x".repeat(5000) } : { status: 200, body: "thanks" }) });
    try {
      const ep = await createEndpoint(t, m.sandboxKey, { url: failing.url });
      const id = await event(m, "charge.paid", "ch_log", `${pb.url}/pb`);
      await settle(t);
      const detail = (await call(t, m.sandboxKey, "GET", `/v1/events/${id}`, undefined, 200)).json();
      assert.equal(detail.id, id);
      assert.equal(detail.deliveries.length, 2);
      const [toEndpoint, toPostback] = [detail.deliveries.find((d: { kind: string }) => d.kind === "endpoint"), detail.deliveries.find((d: { kind: string }) => d.kind === "postback")];
      assert.equal(toEndpoint.endpointId, ep.id);
      assert.equal(toEndpoint.status, "delivered");
      assert.equal(toEndpoint.attemptCount, 2);
      assert.equal(toEndpoint.attempts[0].responseStatus, 500);
      assert.equal(toEndpoint.attempts[0].responseExcerpt.length, 1024, "the excerpt is cut at 1 KiB");
      assert.equal(toEndpoint.attempts[1].responseExcerpt, "thanks");
      assert.ok(toEndpoint.deliveredAt);
      assert.equal(toPostback.endpointId, null);
      assert.equal(toPostback.url, `${pb.url}/pb`);
      assert.equal(toPostback.status, "delivered");

      const log = (await call(t, m.sandboxKey, "GET", `/v1/webhook-endpoints/${ep.id}/deliveries`, undefined, 200)).json();
      assert.equal(log.data.length, 1);
      assert.deepEqual(log.data[0], toEndpoint);
    } finally {
      await failing.close();
    }
  });

  test("the delivery log filters by status and event and pages with a cursor", async () => {
    const m = await seedMerchant(t);
    const ep = await createEndpoint(t, m.sandboxKey, { url: r.url });
    const ids = [await event(m, "charge.created", "ch_a"), await event(m, "charge.paid", "ch_a"), await event(m, "charge.created", "ch_b")];
    const pending = (await call(t, m.sandboxKey, "GET", `/v1/webhook-endpoints/${ep.id}/deliveries?status=pending`, undefined, 200)).json();
    assert.equal(pending.data.length, 3);
    assert.ok(pending.data.every((d: { nextAttemptAt: string | null }) => d.nextAttemptAt !== null));
    await settle(t);
    const base = `/v1/webhook-endpoints/${ep.id}/deliveries`;
    assert.equal((await call(t, m.sandboxKey, "GET", `${base}?status=pending`, undefined, 200)).json().data.length, 0);
    const one = (await call(t, m.sandboxKey, "GET", `${base}?eventId=${ids[1]}`, undefined, 200)).json();
    assert.deepEqual(one.data.map((d: { eventId: string; eventType: string }) => [d.eventId, d.eventType]), [[ids[1], "charge.paid"]]);
    const page = (await call(t, m.sandboxKey, "GET", `${base}?limit=2`, undefined, 200)).json();
    assert.equal(page.hasMore, true);
    const rest = (await call(t, m.sandboxKey, "GET", `${base}?limit=2&startingAfter=${page.data[1].id}`, undefined, 200)).json();
    assert.deepEqual(rest.data.map((d: { eventId: string }) => d.eventId), [ids[0]]);
    await call(t, m.sandboxKey, "GET", `${base}?status=lost`, undefined, 422);
  });
});

describe("POST /v1/events/{id}/redeliver", () => {
  test("redelivers to every matching endpoint and the postback URL, with the same webhook-id", async () => {
    const m = await seedMerchant(t);
    const a = await startReceiver();
    const p = await startReceiver();
    try {
      await createEndpoint(t, m.sandboxKey, { url: a.url });
      await createEndpoint(t, m.sandboxKey, { url: a.url, events: ["charge.refunded"] });
      const id = await event(m, "charge.paid", "ch_re", p.url);
      await settle(t);
      const res = (await call(t, m.sandboxKey, "POST", `/v1/events/${id}/redeliver`, undefined, 201)).json();
      assert.deepEqual(res.data.map((d: { kind: string }) => d.kind).sort(), ["endpoint", "postback"]);
      assert.ok(res.data.every((d: { status: string; attemptCount: number }) => d.status === "pending" && d.attemptCount === 0));
      await settle(t);
      assert.equal(a.requests.length, 2);
      assert.equal(p.requests.length, 2);
      for (const q of [...a.requests, ...p.requests]) assert.equal(q.headers["webhook-id"], id);
      assert.equal(a.requests[0]!.body, a.requests[1]!.body);
      const detail = (await call(t, m.sandboxKey, "GET", `/v1/events/${id}`, undefined, 200)).json();
      assert.equal(detail.deliveries.length, 4);
    } finally {
      await Promise.all([a.close(), p.close()]);
    }
  });

  test("redelivers to one endpoint, and refuses unknown, disabled or unsubscribed endpoints", async () => {
    const m = await seedMerchant(t);
    const other = await seedMerchant(t);
    const one = await createEndpoint(t, m.sandboxKey, { url: r.url });
    const off = await createEndpoint(t, m.sandboxKey, { url: r.url, enabled: false });
    const picky = await createEndpoint(t, m.sandboxKey, { url: r.url, events: ["charge.refunded"] });
    const foreign = await createEndpoint(t, other.sandboxKey, { url: r.url });
    const id = await event(m, "charge.paid", "ch_one");
    await settle(t);
    const res = (await call(t, m.sandboxKey, "POST", `/v1/events/${id}/redeliver`, { endpointId: one.id }, 201)).json();
    assert.deepEqual(res.data.map((d: { endpointId: string }) => d.endpointId), [one.id]);
    assert.match((await call(t, m.sandboxKey, "POST", `/v1/events/${id}/redeliver`, { endpointId: off.id }, 409)).json().message, /disabled/);
    assert.match((await call(t, m.sandboxKey, "POST", `/v1/events/${id}/redeliver`, { endpointId: picky.id }, 422)).json().message, /does not receive charge\.paid/);
    await call(t, m.sandboxKey, "POST", `/v1/events/${id}/redeliver`, { endpointId: foreign.id }, 404);
    await call(t, m.sandboxKey, "POST", `/v1/events/${id}/redeliver`, { endpointId: "whe_missing" }, 404);
    await call(t, m.sandboxKey, "POST", `/v1/events/${id}/redeliver`, { endpointId: one.id, extra: 1 }, 422);
    await settle(t);
  });

  test("legacy charge.updated is redelivered to its postback URL only, on the legacy schedule", async () => {
    const m = await seedMerchant(t);
    const p = await startReceiver();
    try {
      const ep = await createEndpoint(t, m.sandboxKey, { url: r.url });
      const id = await record(t, { merchantId: m.id, environment: "sandbox", type: "charge.updated", objectId: "ch_u", data: { id: "ch_u", status: "refused" }, postbackUrl: p.url });
      await settle(t);
      assert.match((await call(t, m.sandboxKey, "POST", `/v1/events/${id}/redeliver`, { endpointId: ep.id }, 422)).json().message, /only to postback URLs/);
      const res = (await call(t, m.sandboxKey, "POST", `/v1/events/${id}/redeliver`, {}, 201)).json();
      assert.deepEqual(res.data.map((d: { kind: string; url: string }) => [d.kind, d.url]), [["legacy", p.url]]);
      await settle(t);
      assert.equal(p.requests.length, 2);
      assert.deepEqual(JSON.parse(p.requests[1]!.body), { event: "charge.updated", data: { id: "ch_u", status: "refused" } });
    } finally {
      await p.close();
    }
  });

  test("an event with no destination left is a 409; the same Idempotency-Key does not queue twice", async () => {
    const m = await seedMerchant(t);
    const id = await event(m, "charge.paid", "ch_none");
    assert.match((await call(t, m.sandboxKey, "POST", `/v1/events/${id}/redeliver`, {}, 409)).json().message, /no destination/);
    await createEndpoint(t, m.sandboxKey, { url: r.url });
    const send = () => t.app.inject({
      method: "POST", url: `/v1/events/${id}/redeliver`, payload: {},
      headers: { authorization: basic(m.sandboxKey), "idempotency-key": "again" },
    });
    const first = await send();
    const second = await send();
    expectStatus(first, 201);
    assert.equal(second.body, first.body);
    assert.equal(second.headers["idempotent-replayed"], "true");
    const detail = (await call(t, m.sandboxKey, "GET", `/v1/events/${id}`, undefined, 200)).json();
    assert.equal(detail.deliveries.length, 1);
    await settle(t);
  });
});
