import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { queryRows, sql } from "../../src/db/client.js";
import { drainTasks } from "../../src/jobs/runner.js";
import { seedMerchant, type SeededMerchant } from "../helpers/app.js";
import { STEPS_DELIVERY, buildWebhookTestApp, call, createEndpoint, receiverPool, settle, type WebhookTestApp } from "./harness.js";

// Retention (EVENT_RETENTION_DAYS, 30 in tests): the webhooks.prune task deletes events older
// than that with their deliveries and attempts, but never an event still being delivered.
// Events come from real charges through the API and are aged with SQL.
let t: WebhookTestApp;
let m: SeededMerchant;
const receivers = receiverPool();

before(async () => {
  t = await buildWebhookTestApp({ timeoutMs: 3_000, noWorkerProcesses: STEPS_DELIVERY });
  m = await seedMerchant(t);
});
after(async () => {
  await receivers.close();
  await t.close();
});

const pruneTask = () => {
  const task = t.webhooks.tasks.find((k) => k.name === "webhooks.prune");
  assert.ok(task, "the module has a webhooks.prune task");
  return task;
};

/** Creates a paid card charge and returns the ids of the events it produced. */
async function chargeEvents(key: string): Promise<string[]> {
  const charge = (await call(t, key, "POST", "/v1/charges", {
    amount: 100,
    currency: "BRL",
    customer: { name: "Maria Silva", email: "maria@example.com", document: { type: "cpf", id: "529.982.247-25" } },
    paymentMethod: { type: "credit_card", number: "4111111111111111", holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2030", cvv: "123", installments: 1 },
  }, 201)).json();
  const rows = await queryRows<{ id: string }>(t.database.db, sql`select id from events where object_id = ${charge.id}`);
  assert.ok(rows.length > 0, "the charge recorded events");
  return rows.map((r) => r.id);
}

const age = (ids: string[], days: number) =>
  t.database.db.execute(sql`update events set created_at = now() - make_interval(days => ${days}::int) where id in ${ids}`);

async function counts(eventIds: string[]) {
  const [row] = await queryRows<Record<string, number | string>>(t.database.db, sql`select
    (select count(*) from events where id in ${eventIds}) as events,
    (select count(*) from webhook_deliveries where event_id in ${eventIds}) as deliveries,
    (select count(*) from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.event_id in ${eventIds}) as attempts`);
  return { events: Number(row!.events), deliveries: Number(row!.deliveries), attempts: Number(row!.attempts) };
}

test("old delivered events go with their deliveries and attempts; recent ones and ones still being delivered stay", async () => {
  const r = await receivers.start();
  await createEndpoint(t, m.sandboxKey, { url: r.url });
  const old = await chargeEvents(m.sandboxKey);
  const recent = await chargeEvents(m.sandboxKey);
  const edge = await chargeEvents(m.sandboxKey);
  await settle(t);
  // Recorded but not yet sent: the worker has not run since.
  const undelivered = await chargeEvents(m.sandboxKey);
  const before = await counts(old);
  assert.ok(before.deliveries > 0 && before.attempts > 0, JSON.stringify(before));
  await age([...old, ...undelivered], 31);
  await age(edge, 29);

  await drainTasks([pruneTask()]);

  assert.deepEqual(await counts(old), { events: 0, deliveries: 0, attempts: 0 });
  for (const id of old) await call(t, m.sandboxKey, "GET", `/v1/events/${id}`, undefined, 404);
  for (const kept of [recent, edge]) {
    const c = await counts(kept);
    assert.ok(c.events === kept.length && c.deliveries > 0 && c.attempts > 0, JSON.stringify(c));
  }
  const pending = await counts(undelivered);
  assert.equal(pending.events, undelivered.length, "an event still being delivered is kept");
  assert.equal(pending.attempts, 0);
  // The delivery log still reads: no delivery lost its event.
  const events = (await call(t, m.sandboxKey, "GET", "/v1/events?limit=100", undefined, 200)).json().data;
  assert.deepEqual(events.map((e: { id: string }) => e.id).sort(), [...recent, ...edge, ...undelivered].sort());

  // Once delivered, it goes on the next run.
  await settle(t);
  await drainTasks([pruneTask()]);
  assert.deepEqual(await counts(undelivered), { events: 0, deliveries: 0, attempts: 0 });
});

test("one run deletes at most one batch; the runner repeats it until nothing is left", async () => {
  const merchant = await seedMerchant(t);
  const ids = [...await chargeEvents(merchant.sandboxKey), ...await chargeEvents(merchant.sandboxKey)];
  await settle(t); // no endpoint: the events have no deliveries at all
  await age(ids, 45);
  assert.equal(await t.webhooks.prune(1), 1);
  assert.equal((await counts(ids)).events, ids.length - 1);
  assert.equal(await t.webhooks.prune(1), 1);
  assert.equal(await pruneTask().run(), ids.length - 2);
  assert.equal(await pruneTask().run(), 0);
  assert.equal((await counts(ids)).events, 0);
});
