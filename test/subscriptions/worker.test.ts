import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { events, subscriptionInvoices, subscriptions } from "../../src/db/schema.js";
import { createBillingEngine } from "../../src/modules/subscriptions/billing-engine.js";
import * as plansRepo from "../../src/modules/subscriptions/plans.repo.js";
import * as repo from "../../src/modules/subscriptions/subscriptions.repo.js";
import { basic, buildTestApp, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { createPlan, getSub, subscribe } from "./helpers.js";
// run-suite: postgres: a worker beside a clock advance needs concurrent connections

// The renewal task as the worker runs it: claims in batches, by real time or by a test clock,
// and never bills a period twice, whether two workers race or one dies mid-renewal.
let t: TestApp;
let m: SeededMerchant;
let plan: { id: string };
before(async () => {
  // The test is the billing worker (it counts claims and expires leases by hand): in topology
  // mode the API processes serve, and no worker process bills behind its back.
  t = await buildTestApp({}, { noWorkerProcesses: "the test is the billing worker: it counts claims and expires leases" });
  m = await seedMerchant(t);
  plan = await createPlan(t, m.sandboxKey);
});
after(async () => t.close());

const task = () => t.services.subscriptions.tasks.find((x) => x.name === "subscriptions.bill")!;

/** Moves a subscription's current period into the past, as if its renewal were due now. */
async function makeDue(id: string) {
  const past = new Date(Date.now() - 60_000);
  await t.database.db.update(subscriptions).set({ currentPeriodEnd: past, nextRunAt: past }).where(eq(subscriptions.id, id));
}

const renewedEvents = async (id: string) =>
  (await t.database.db.select().from(events).where(eq(events.objectId, id))).filter((e) => e.type === "subscription.renewed").length;

test("two workers racing over the same due subscriptions bill each period once", async () => {
  const subs = await Promise.all([1, 2, 3, 4, 5].map(() => subscribe(t, m.sandboxKey, { planId: plan.id })));
  for (const s of subs) await makeDue(s.id);
  const counts = await Promise.all([task().run(), task().run(), task().run()]);
  assert.equal(counts.reduce((a, b) => a + b, 0), 5, "each claimed by one worker");
  for (const s of subs) {
    const now = await getSub(t, m.sandboxKey, s.id);
    assert.equal(now.charges.length, 2, s.id);
    assert.equal(await renewedEvents(s.id), 1);
    assert.ok(Date.parse(now.nextBillingAt!) > Date.now());
  }
  assert.equal(await task().run(), 0, "nothing left due");
});

test("a worker that dies after claiming leaves the subscription to the next one once its lease runs out", async () => {
  const s = await subscribe(t, m.sandboxKey, { planId: plan.id });
  await makeDue(s.id);
  const claimed = await repo.claimDue(t.database.db, { limit: 10, leaseMs: 60_000, mode: "real" });
  assert.deepEqual(claimed.map((r) => r.id), [s.id]);
  assert.equal(await task().run(), 0, "held by the dead worker's lease");
  await t.database.db.update(subscriptions).set({ claimedUntil: new Date(Date.now() - 1) }).where(eq(subscriptions.id, s.id));
  assert.equal(await task().run(), 1);
  assert.equal((await getSub(t, m.sandboxKey, s.id)).charges.length, 2);
});

test("a worker that dies after the charge committed: the rerun finds the same charge and finishes the renewal once", async () => {
  const s = await subscribe(t, m.sandboxKey, { planId: plan.id });
  await makeDue(s.id);
  const services = t.services;
  const eventsCtx = {
    plan: async (q: never, row: repo.SubscriptionRow) => (await plansRepo.findPlan(q, row, row.planId)) ?? null,
    customer: (q: never, row: repo.SubscriptionRow) => services.customers.resolveForCharge(q, { merchantId: row.merchantId, environment: row.environment, actor: { type: "api_key", id: "t" }, requestId: "" }, { id: row.customerId }),
  };
  const dying = createBillingEngine({
    db: t.database.db, events: eventsCtx as never,
    charges: { submit: async (...args: Parameters<typeof services.charges.submit>) => { await services.charges.submit(...args); throw new Error("SIGKILL"); } },
  });
  const [row] = await repo.claimDue(t.database.db, { limit: 1, leaseMs: 60_000, mode: "real" });
  await assert.rejects(dying.step(row!, new Date()), /SIGKILL/);
  const [inv] = await t.database.db.select().from(subscriptionInvoices).where(eq(subscriptionInvoices.subscriptionId, s.id)).orderBy(subscriptionInvoices.periodStart);
  const open = (await t.database.db.select().from(subscriptionInvoices).where(eq(subscriptionInvoices.subscriptionId, s.id))).find((i) => i.id !== inv!.id)!;
  assert.equal(open.inFlight, true);
  assert.equal(open.status, "paid", "the charge and its invoice committed together");
  await t.database.db.update(subscriptions).set({ claimedUntil: new Date(Date.now() - 1), nextRunAt: new Date(Date.now() - 1) }).where(eq(subscriptions.id, s.id));
  await task().run();
  const now = await getSub(t, m.sandboxKey, s.id);
  assert.equal(now.charges.length, 2, "no second charge for the period");
  assert.equal(await renewedEvents(s.id), 1);
  assert.ok(Date.parse(now.nextBillingAt!) > Date.now());
});

test("the worker bills sandbox subscriptions by their merchant's test clock", async () => {
  const other = await seedMerchant(t);
  const p = await createPlan(t, other.sandboxKey, { interval: "week" });
  const s = await subscribe(t, other.sandboxKey, { planId: p.id });
  assert.equal(await task().run(), 0);
  await repo.raiseClockOffset(t.database.db, other.id, 8 * 86_400_000);
  assert.equal(await task().run(), 1);
  assert.equal((await getSub(t, other.sandboxKey, s.id)).charges.length, 2);
});

test("PostgreSQL: a worker billing by test clocks while the clock is advanced takes none of the advance's steps", { skip: !process.env.DATABASE_URL && "the embedded database runs one statement at a time" }, async () => {
  const other = await seedMerchant(t);
  const p = await createPlan(t, other.sandboxKey, { interval: "week" });
  const s = await subscribe(t, other.sandboxKey, { planId: p.id });
  // A worker claiming by the merchants' clocks as fast as it can, for the whole advance.
  let advancing = true;
  let workerBilled = 0;
  const worker = (async () => {
    while (advancing) workerBilled += await task().run();
  })();
  const res = await t.app.inject({ method: "POST", url: "/v1/sandbox/clock/advance", headers: { authorization: basic(other.sandboxKey) }, payload: { days: 70 } });
  advancing = false;
  await worker;
  assert.equal(res.statusCode, 200, res.body);
  const renewed = (res.json().actions as { action: string }[]).filter((a) => a.action === "renewed").length;
  assert.equal(workerBilled, 0, "the worker billed steps of the advance's window");
  assert.equal(renewed, 10, "every weekly renewal of the 70 days is in the advance's answer");
  assert.equal((await getSub(t, other.sandboxKey, s.id)).charges.length, 11);
});
