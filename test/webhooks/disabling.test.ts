import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { drainTasks } from "../../src/jobs/runner.js";
import { seedMerchant } from "../helpers/app.js";
import {
  STEPS_DELIVERY, buildWebhookTestApp, call, createEndpoint, deliveriesOf as logOf, paidEvent, receiverPool, record, settle, type WebhookTestApp,
} from "./harness.js";

// Endpoints that are disabled, deleted, gone (410) or failing for days, and the two retry
// schedules in real time. Driven by the module's task (settle), with real receivers.
let t: WebhookTestApp;
const receivers = receiverPool();
const receiver = receivers.start;
const paid = paidEvent;

before(async () => {
  t = await buildWebhookTestApp({ timeoutMs: 3_000, noWorkerProcesses: STEPS_DELIVERY });
});
after(async () => {
  await receivers.close();
  await t.close();
});

function deliveriesOf(key: string, endpointId: string) {
  return logOf(t, key, endpointId);
}

describe("disabled and deleted endpoints", () => {
  test("deliveries pending for an endpoint disabled or deleted before sending are skipped, not sent", async () => {
    const merchant = await seedMerchant(t);
    const r = await receiver();
    const a = await createEndpoint(t, merchant.sandboxKey, { url: r.url });
    const b = await createEndpoint(t, merchant.sandboxKey, { url: r.url });
    await record(t, paid(merchant.id, "ch_skip"));
    await call(t, merchant.sandboxKey, "PATCH", `/v1/webhook-endpoints/${a.id}`, { enabled: false }, 200);
    await call(t, merchant.sandboxKey, "DELETE", `/v1/webhook-endpoints/${b.id}`, undefined, 200);
    await settle(t);
    assert.equal(r.requests.length, 0);
    const [d] = await deliveriesOf(merchant.sandboxKey, a.id);
    assert.equal(d!.status, "skipped");
    assert.equal(d!.attempts.length, 0);
    assert.match(d!.lastError ?? "", /disabled/);
    await call(t, merchant.sandboxKey, "GET", `/v1/webhook-endpoints/${b.id}/deliveries`, undefined, 404);
  });

  test("410 Gone disables the endpoint at once; re-enabling it makes it receive again", async () => {
    const merchant = await seedMerchant(t);
    let gone = true;
    const r = await receiver(() => (gone ? { status: 410, body: "gone" } : { status: 200 }));
    const ep = await createEndpoint(t, merchant.sandboxKey, { url: r.url });
    await record(t, paid(merchant.id, "ch_410"));
    await settle(t);
    assert.equal(r.requests.length, 1, "no retry after 410");
    const [d] = await deliveriesOf(merchant.sandboxKey, ep.id);
    assert.equal(d!.status, "failed");
    let got = (await call(t, merchant.sandboxKey, "GET", `/v1/webhook-endpoints/${ep.id}`, undefined, 200)).json();
    assert.equal(got.enabled, false);
    assert.match(got.disabledReason, /410/);

    await record(t, paid(merchant.id, "ch_410b"));
    await settle(t);
    assert.equal(r.requests.length, 1, "a disabled endpoint gets no new events");

    gone = false;
    got = (await call(t, merchant.sandboxKey, "PATCH", `/v1/webhook-endpoints/${ep.id}`, { enabled: true }, 200)).json();
    assert.equal(got.enabled, true);
    assert.equal(got.disabledReason, null);
    await record(t, paid(merchant.id, "ch_410c"));
    await settle(t);
    assert.equal(r.requests.length, 2);
  });

  test("pending retries follow the endpoint's new URL", async () => {
    const merchant = await seedMerchant(t);
    const broken = await receiver(() => ({ status: 503 }));
    const fixed = await receiver();
    const ep = await createEndpoint(t, merchant.sandboxKey, { url: broken.url });
    const eventId = await record(t, paid(merchant.id, "ch_move"));
    await drainTasks(t.webhooks.tasks); // the first attempt and maybe the 5 ms retry; the next one waits 300 ms
    assert.ok(broken.requests.length >= 1);
    assert.equal((await deliveriesOf(merchant.sandboxKey, ep.id))[0]!.status, "pending");
    await call(t, merchant.sandboxKey, "PATCH", `/v1/webhook-endpoints/${ep.id}`, { url: `${fixed.url}/new` }, 200);
    await settle(t);
    assert.equal(fixed.requests.length, 1);
    assert.equal(fixed.requests[0]!.path, "/new");
    assert.equal(fixed.requests[0]!.headers["webhook-id"], eventId);
    const [d] = await deliveriesOf(merchant.sandboxKey, ep.id);
    assert.equal(d!.status, "delivered");
    assert.equal(d!.attemptCount, broken.requests.length + 1);
  });
});

describe("schedules in real time", () => {
  test("legacy charge.updated: exactly 3 attempts, about 1 s, 2 s and 4 s apart (scaled), then failed", async () => {
    // Scale 0.1: waits of 100 ms, 200 ms and 400 ms, long enough to measure.
    const slow = await buildWebhookTestApp({ config: { webhookRetryScale: 0.1 }, timeoutMs: 3_000, noWorkerProcesses: STEPS_DELIVERY });
    try {
      const merchant = await seedMerchant(slow);
      const pb = await receiver(() => ({ status: 500 }));
      const recordedAt = Date.now();
      await record(slow, { merchantId: merchant.id, environment: "sandbox", type: "charge.updated", objectId: "ch_l3", data: { id: "ch_l3", status: "failed" }, postbackUrl: pb.url });
      await settle(slow);
      await sleep(500);
      await settle(slow);
      assert.equal(pb.requests.length, 3);
      const at = pb.requests.map((q) => q.receivedAt);
      assert.ok(at[0]! - recordedAt >= 90, `first attempt after ${at[0]! - recordedAt} ms`);
      // Lower bounds are the schedule; the upper bounds only say "about" (a loaded machine is slow).
      assert.ok(at[1]! - at[0]! >= 190 && at[1]! - at[0]! < 1_000, `second gap ${at[1]! - at[0]!} ms`);
      assert.ok(at[2]! - at[1]! >= 390 && at[2]! - at[1]! < 1_500, `third gap ${at[2]! - at[1]!} ms`);
      const event = (await call(slow, merchant.sandboxKey, "GET", "/v1/events?type=charge.updated", undefined, 200)).json().data[0];
      const detail = (await call(slow, merchant.sandboxKey, "GET", `/v1/events/${event.id}`, undefined, 200)).json();
      assert.equal(detail.deliveries[0].kind, "legacy");
      assert.equal(detail.deliveries[0].status, "failed");
      assert.equal(detail.deliveries[0].attempts.length, 3);
    } finally {
      await slow.close();
    }
  });

  test("an endpoint gives up after 8 attempts; one failing for over 5 days (scaled) is disabled; success clears the streak", async () => {
    // Scale 1e-5: the whole 8-attempt schedule takes about 1 s and "5 days" is 4.3 s.
    const fast = await buildWebhookTestApp({ config: { webhookRetryScale: 0.00001 }, timeoutMs: 3_000, noWorkerProcesses: STEPS_DELIVERY });
    try {
      const merchant = await seedMerchant(fast);
      let up = false;
      const r = await receiver(() => ({ status: up ? 200 : 500 }));
      const ep = await createEndpoint(fast, merchant.sandboxKey, { url: r.url });
      await record(fast, paid(merchant.id, "ch_x1"));
      await settle(fast);
      assert.equal(r.requests.length, 8);
      let got = (await call(fast, merchant.sandboxKey, "GET", `/v1/webhook-endpoints/${ep.id}`, undefined, 200)).json();
      assert.equal(got.enabled, true);
      assert.ok(got.failingSince, "failing since the first failure");
      const log = (await call(fast, merchant.sandboxKey, "GET", `/v1/webhook-endpoints/${ep.id}/deliveries`, undefined, 200)).json().data;
      assert.equal(log[0].status, "failed");
      assert.equal(log[0].nextAttemptAt, null);
      assert.deepEqual(log[0].attempts.map((a: { attempt: number }) => a.attempt), [1, 2, 3, 4, 5, 6, 7, 8]);

      await sleep(4_500);
      await record(fast, paid(merchant.id, "ch_x2"));
      await settle(fast);
      assert.equal(r.requests.length, 9, "disabled at the first failure past the limit, no more retries");
      got = (await call(fast, merchant.sandboxKey, "GET", `/v1/webhook-endpoints/${ep.id}`, undefined, 200)).json();
      assert.equal(got.enabled, false);
      assert.match(got.disabledReason, /more than 5 days/);
      const latest = (await call(fast, merchant.sandboxKey, "GET", `/v1/webhook-endpoints/${ep.id}/deliveries?limit=1`, undefined, 200)).json().data[0];
      assert.equal(latest.status, "failed");
      assert.match(latest.lastError, /disabled/);

      up = true;
      got = (await call(fast, merchant.sandboxKey, "PATCH", `/v1/webhook-endpoints/${ep.id}`, { enabled: true }, 200)).json();
      assert.deepEqual([got.enabled, got.disabledReason, got.failingSince], [true, null, null]);
      await record(fast, paid(merchant.id, "ch_x3"));
      await settle(fast);
      assert.equal(r.requests.length, 10);
    } finally {
      await fast.close();
    }
  });
});
