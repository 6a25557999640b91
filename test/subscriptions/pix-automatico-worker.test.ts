import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { events, subscriptionInvoices, subscriptions } from "../../src/db/schema.js";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { call, createPlan, getSub, subscribe } from "./helpers.js";

// Pix Automático under the billing worker, by real time: racing workers issue each period's
// charge once, inside the window, and debit it once on its due date.
let t: TestApp;
let m: SeededMerchant;
let plan: { id: string };
before(async () => {
  t = await buildTestApp({}, { noWorkerProcesses: "the test is the billing worker: it races the task by hand" });
  m = await seedMerchant(t);
  plan = await createPlan(t, m.sandboxKey);
});
after(async () => t.close());

const DAY = 86_400_000;
const task = () => t.services.subscriptions.tasks.find((x) => x.name === "subscriptions.bill")!;

async function activeSub(email: string) {
  const sub = await subscribe(t, m.sandboxKey, {
    planId: plan.id, paymentMethod: { type: "pix_automatico" }, customer: { name: "Maria Silva", email, document: { type: "cpf", id: "529.982.247-25" } },
  }) as Awaited<ReturnType<typeof subscribe>> & { mandate: { id: string } };
  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/sandbox/mandates/${sub.mandate.id}/approve`), 200);
  return sub;
}

/**
 * Moves the first period so that the next one (its due date) starts 4 days from now: the issue
 * time (5 days before) has passed. Period 1 starts a month after the anchor's month, on billingDay.
 */
async function makeIssueDue(id: string) {
  const due = new Date(Date.now() + 4 * DAY);
  const anchor = new Date(Date.UTC(due.getUTCFullYear(), due.getUTCMonth() - 1, 1, due.getUTCHours(), due.getUTCMinutes(), due.getUTCSeconds(), due.getUTCMilliseconds()));
  await t.database.db.update(subscriptions).set({
    anchorAt: anchor, billingDay: due.getUTCDate(), currentPeriodStart: anchor, currentPeriodEnd: due, nextRunAt: new Date(Date.now() - 60_000),
  }).where(eq(subscriptions.id, id));
}

const renewed = async (id: string) =>
  (await t.database.db.select().from(events).where(eq(events.objectId, id))).filter((e) => e.type === "subscription.renewed").length;

test("racing workers issue each period's charge once, inside the window, and debit it once on its due date", async () => {
  const subs = await Promise.all([1, 2, 3, 4].map((i) => activeSub(`racer${i}@example.com`)));
  for (const s of subs) await makeIssueDue(s.id);
  const counts = await Promise.all([task().run(), task().run(), task().run()]);
  assert.equal(counts.reduce((a, b) => a + b, 0), 4, "each claimed by one worker");
  for (const s of subs) {
    const now = await getSub(t, m.sandboxKey, s.id);
    assert.equal(now.charges.length, 2, s.id);
    assert.equal(now.charges[0]!.status, "pending");
    const lead = Date.parse(now.charges[0]!.periodStart) - Date.now();
    assert.ok(lead > 2 * DAY && lead < 10 * DAY, "sent 2 to 10 days before its due date");
    assert.equal(await renewed(s.id), 1);
  }
  assert.equal(await task().run(), 0, "nothing due before the due date");

  // The due date arrives (moved to now): the workers race again, and each charge is debited once.
  for (const s of subs) {
    const row = (await t.database.db.select().from(subscriptions).where(eq(subscriptions.id, s.id)))[0]!;
    const past = new Date(Date.now() - 1_000);
    await t.database.db.update(subscriptionInvoices).set({ nextAttemptAt: past }).where(eq(subscriptionInvoices.id, row.openInvoiceId!));
    await t.database.db.update(subscriptions).set({ nextRunAt: past }).where(eq(subscriptions.id, s.id));
  }
  await Promise.all([task().run(), task().run(), task().run()]);
  for (const s of subs) {
    const now = await getSub(t, m.sandboxKey, s.id);
    assert.equal(now.status, "active");
    assert.equal(now.charges.length, 2);
    assert.equal(now.charges[0]!.status, "paid");
    assert.ok(Date.parse(now.nextBillingAt!) > Date.now());
  }
});
