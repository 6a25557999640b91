import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import pino from "pino";
import { queryRows, sql } from "../../src/db/client.js";
import { startWorker } from "../../src/jobs/runner.js";
import { claimDue } from "../../src/modules/webhooks/deliveries.repo.js";
import { seedMerchant } from "../helpers/app.js";
import { buildWebhookTestApp, createEndpoint, paidEvent, receiverPool, record, type WebhookTestApp } from "./harness.js";

// A delivery whose worker died (its lease expired) is taken over by a claim that asks for
// expired leases too; the worker asks about once a second rather than on every claim, because
// that scan reads every dead 'delivering' index entry left since the last vacuum
// (deliveries.repo.ts, CLAIM).
let t: WebhookTestApp;
const receivers = receiverPool();
const NO_DELAY = { endpoint: 0, legacy: 0 };

before(async () => {
  t = await buildWebhookTestApp({ noWorkerProcesses: "the test claims by hand, then runs its own worker" });
});
after(async () => {
  await receivers.close();
  await t.close();
});

/** Records one event for a new endpoint at `url`, claims it, and lets its lease run out. */
async function expiredLease(url: string): Promise<{ deliveryId: string; eventId: string }> {
  const m = await seedMerchant(t);
  await createEndpoint(t, m.sandboxKey, { url });
  const eventId = await record(t, paidEvent(m.id, "ch_lease"));
  const claimed = await claimDue(t.database.db, 10, 60_000, NO_DELAY);
  assert.deepEqual(claimed.map((d) => d.event.id), [eventId]);
  // The worker that claimed it is gone; its lease ends.
  await queryRows(t.database.db, sql`update webhook_deliveries set lease_until = now() - interval '1 second' where id = ${claimed[0]!.id}`);
  return { deliveryId: claimed[0]!.id, eventId };
}

test("a claim takes over expired leases only when asked to", async () => {
  const { deliveryId } = await expiredLease("http://127.0.0.1:9/hook");
  assert.deepEqual(await claimDue(t.database.db, 10, 60_000, NO_DELAY, false), []);
  const [taken] = await claimDue(t.database.db, 10, 60_000, NO_DELAY, true);
  assert.equal(taken?.id, deliveryId);
  assert.equal(taken?.attempts, 0);
  // Out of the way of the next test.
  await queryRows(t.database.db, sql`update webhook_deliveries set status = 'failed', lease_until = null where id = ${deliveryId}`);
});

test("a running worker sends a delivery whose lease expired", async () => {
  const receiver = await receivers.start();
  const { eventId } = await expiredLease(receiver.url);
  const worker = startWorker(t.webhooks.tasks.filter((task) => task.name === "webhooks.deliver"), pino({ level: "silent" }));
  try {
    const [got] = await receiver.waitFor(1, 20_000);
    assert.equal(got?.headers["webhook-id"], eventId);
  } finally {
    await worker.stop();
  }
});
