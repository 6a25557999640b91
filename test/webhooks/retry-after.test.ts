import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "../../src/db/client.js";
import { drainTasks } from "../../src/jobs/runner.js";
import { seedMerchant, type SeededMerchant } from "../helpers/app.js";
import { STEPS_DELIVERY, buildWebhookTestApp, call, createEndpoint, paidEvent, record, settle, type WebhookTestApp } from "./harness.js";

// Retry-After from a real receiver on 127.0.0.1. WEBHOOK_RETRY_SCALE is 1 here, so the bounds
// are the production ones (endpoint retries 5 s .. 10 h, legacy 1 s / 2 s / 4 s) and every
// value a receiver asks for is distinguishable from the schedule's own delay. Nothing waits
// for those delays: the test reads next_attempt_at through the delivery API, then moves it to
// now with SQL to let the next attempt happen.
let t: WebhookTestApp;
let m: SeededMerchant;
const servers: http.Server[] = [];

interface Answer { status: number; headers?: Record<string, string> }

/** A receiver whose answers carry headers (the shared test receiver sets none). */
async function receiver(answers: Answer[]): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const answer = answers[Math.min(hits, answers.length - 1)]!;
      hits++;
      res.writeHead(answer.status, answer.headers).end("busy");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

before(async () => {
  t = await buildWebhookTestApp({ timeoutMs: 3_000, config: { webhookRetryScale: 1 }, noWorkerProcesses: STEPS_DELIVERY });
});
// A merchant per test, so that each test's endpoint is the only one its events go to.
beforeEach(async () => {
  m = await seedMerchant(t);
});
after(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await t.close();
});

interface Delivery {
  id: string;
  status: string;
  nextAttemptAt: string | null;
  lastError: string | null;
  attempts: { error: string | null; responseStatus: number | null }[];
}

async function deliveryOf(eventId: string): Promise<Delivery> {
  const event = (await call(t, m.sandboxKey, "GET", `/v1/events/${eventId}`, undefined, 200)).json();
  assert.equal(event.deliveries.length, 1);
  return event.deliveries[0];
}

/** Runs the worker once and returns the delivery with when that attempt was recorded. */
async function attemptOnce(eventId: string): Promise<{ d: Delivery; from: number; to: number }> {
  const from = Date.now();
  await drainTasks(t.webhooks.tasks);
  return { d: await deliveryOf(eventId), from, to: Date.now() };
}

/**
 * Asserts the next attempt is between minMs and maxMs after the attempt, which was recorded
 * between from and to (50 ms of slack for the clock's and the database's rounding).
 */
function assertNextIn(got: { d: Delivery; from: number; to: number }, minMs: number, maxMs = minMs): void {
  const next = Date.parse(got.d.nextAttemptAt ?? "");
  assert.equal(got.d.status, "pending", JSON.stringify(got.d));
  assert.ok(next >= got.from + minMs - 50 && next <= got.to + maxMs + 50,
    `next attempt ${next - got.from}ms after the run started, expected ${minMs}-${maxMs}ms: ${JSON.stringify(got.d)}`);
}

const dueNow = (deliveryId: string) =>
  t.database.db.execute(sql`update webhook_deliveries set next_attempt_at = now(), created_at = now() - interval '1 minute' where id = ${deliveryId}`);

/** Lets the last, successful attempt happen now. */
async function deliverNow(eventId: string, deliveryId: string): Promise<Delivery> {
  await dueNow(deliveryId);
  await settle(t);
  const done = await deliveryOf(eventId);
  assert.equal(done.status, "delivered", JSON.stringify(done));
  return done;
}

async function endpointEvent(url: string, chargeId: string): Promise<string> {
  await createEndpoint(t, m.sandboxKey, { url, events: ["charge.paid"] });
  return record(t, paidEvent(m.id, chargeId));
}

describe("endpoint deliveries", () => {
  test("a 429 with delta-seconds postpones the next attempt by exactly that, logged; then a 200 delivers", async () => {
    const r = await receiver([{ status: 429, headers: { "retry-after": "120" } }, { status: 200 }]);
    const eventId = await endpointEvent(r.url, "ch_429");
    const first = await attemptOnce(eventId);
    assertNextIn(first, 120_000);
    assert.equal(first.d.lastError, "HTTP 429; next attempt in 120s (Retry-After: 120)");
    assert.equal(first.d.attempts[0]!.error, first.d.lastError);
    await drainTasks(t.webhooks.tasks);
    assert.equal(r.hits(), 1, "not retried before its time");

    const done = await deliverNow(eventId, first.d.id);
    assert.deepEqual(done.attempts.map((a) => a.responseStatus), [429, 200]);
    assert.equal(r.hits(), 2);
  });

  test("a 503 with an HTTP-date postpones the next attempt until that date", async () => {
    const at = new Date(Math.ceil((Date.now() + 600_000) / 1000) * 1000);
    const r = await receiver([{ status: 503, headers: { "retry-after": at.toUTCString() } }, { status: 204 }]);
    const eventId = await endpointEvent(r.url, "ch_503");
    const first = await attemptOnce(eventId);
    const next = Date.parse(first.d.nextAttemptAt ?? "");
    // The delay is computed from the date when the answer arrives and added to now() when the
    // outcome is recorded, a few milliseconds later.
    assert.ok(next >= at.getTime() - 50 && next <= at.getTime() + (first.to - first.from) + 50, `${next - at.getTime()}ms off`);
    assert.match(first.d.lastError ?? "", /^HTTP 503; next attempt in (599|600|601)s \(Retry-After: .* GMT\)$/);
    await deliverNow(eventId, first.d.id);
  });

  test("Retry-After is bounded: never sooner than the schedule, never later than its 10 h step", async () => {
    const r = await receiver([
      { status: 429, headers: { "retry-after": "1" } },
      { status: 503, headers: { "retry-after": "2592000" } },
      { status: 200 },
    ]);
    const eventId = await endpointEvent(r.url, "ch_bounds");
    const first = await attemptOnce(eventId);
    // The schedule's 5 s after a first failure, with its +-10% jitter.
    assertNextIn(first, 4_500, 5_500);
    assert.match(first.d.lastError ?? "", /^HTTP 429; next attempt in [4-6]s \(Retry-After: 1, raised to the retry schedule\)$/);

    await dueNow(first.d.id);
    const second = await attemptOnce(eventId);
    assertNextIn(second, 36_000_000);
    assert.equal(second.d.lastError, "HTTP 503; next attempt in 36000s (Retry-After: 2592000, capped by the retry schedule)");
    await deliverNow(eventId, second.d.id);
  });

  test("Retry-After is ignored on other statuses and when it is not a time; the schedule applies", async () => {
    const r = await receiver([
      { status: 500, headers: { "retry-after": "3600" } },
      { status: 429, headers: { "retry-after": "in a while" } },
      { status: 200 },
    ]);
    const eventId = await endpointEvent(r.url, "ch_ignored");
    const first = await attemptOnce(eventId);
    assertNextIn(first, 4_500, 5_500);
    assert.equal(first.d.lastError, "HTTP 500");
    await dueNow(first.d.id);
    const second = await attemptOnce(eventId);
    // The schedule's second retry: 5 min +-10%.
    assertNextIn(second, 270_000, 330_000);
    assert.equal(second.d.lastError, "HTTP 429");
    await deliverNow(eventId, second.d.id);
  });
});

describe("legacy charge.updated postbacks", () => {
  test("keep their 3 attempts and their 4 s longest step whatever Retry-After says", async () => {
    const r = await receiver([{ status: 429, headers: { "retry-after": "3600" } }]);
    const eventId = await record(t, {
      merchantId: m.id, environment: "sandbox", type: "charge.updated", objectId: "ch_legacy_busy",
      data: { id: "ch_legacy_busy", status: "refused" }, postbackUrl: r.url,
    });
    const { id } = await deliveryOf(eventId);
    for (const attempt of [1, 2]) {
      await dueNow(id);
      const got = await attemptOnce(eventId);
      assertNextIn(got, 4_000);
      assert.equal(got.d.lastError, "HTTP 429; next attempt in 4s (Retry-After: 3600, capped by the retry schedule)", `attempt ${attempt}`);
    }
    await dueNow(id);
    await drainTasks(t.webhooks.tasks);
    const last = await deliveryOf(eventId);
    assert.equal(last.status, "failed");
    assert.equal(last.attempts.length, 3);
    assert.equal(last.lastError, "HTTP 429", "no next attempt to announce");
    assert.equal(r.hits(), 3);
  });
});
