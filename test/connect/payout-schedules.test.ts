import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.js";
import { buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { methodCharge } from "../helpers/charges.js";
import { activate, assertLedgerInvariants, balanceOf, call, createSubmerchant, FEES, keyOf, seedMaster } from "./helpers.js";

// Payout schedules in platform settlement, over HTTP: the PATCH's
// validation, the due days of daily, weekly and monthly schedules as the sandbox's test clock
// passes 06:00 Brasília time, the minimum, and exactly one payout per submerchant and day
// however many runs race or repeat. Each test has its own master: the test clock is per master.

let t: TestApp;
before(async () => { t = await buildTestApp(); });
after(async () => { await t.close(); });

const HOUR = 3_600_000;
/** Brasília's wall clock (UTC-03:00 all year since 2019) of an instant, as a UTC-fields Date. */
const brasilia = (at: Date) => new Date(at.getTime() - 3 * HOUR);

async function funded(m: SeededMerchant, reais: number) {
  const sm = await createSubmerchant(t, m.sandboxKey);
  await activate(t, m.sandboxKey, sm.id);
  const key = await keyOf(t, m.sandboxKey, sm.id);
  await sell(key, reais);
  return { id: sm.id, key };
}

/** A paid and settled Pix of `reais` (1 % fee). */
async function sell(key: string, reais: number) {
  const c = await call(t, "POST", "/v1/charges", key, methodCharge({ type: "pix" }, { amount: reais }));
  expectStatus(c, 201);
  expectStatus(await call(t, "POST", `/v1/sandbox/charges/${c.json().id}/pay`, key), 200);
  expectStatus(await call(t, "POST", "/v1/sandbox/settle", key), 200);
}

const schedule = (m: SeededMerchant, id: string, payoutSchedule: unknown) => call(t, "PATCH", `/v1/submerchants/${id}`, m.sandboxKey, { payoutSchedule });

async function clockNow(m: SeededMerchant): Promise<Date> {
  const res = await call(t, "GET", "/v1/sandbox/clock", m.sandboxKey);
  expectStatus(res, 200);
  return new Date(res.json().now);
}

async function advance(m: SeededMerchant, days = 1): Promise<Date> {
  const res = await call(t, "POST", "/v1/sandbox/clock/advance", m.sandboxKey, { days });
  expectStatus(res, 200);
  return new Date(res.json().now);
}

async function payoutsOf(m: SeededMerchant, smId: string): Promise<{ id: string; amount: number; status: string }[]> {
  const res = await call(t, "GET", `/v1/payout-requests?merchantId=${smId}&size=100`, m.sandboxKey);
  expectStatus(res, 200);
  return res.json().data;
}

/** The due 06:00s (Brasília) in (from, to] of the days `isDue` picks (by Brasília's calendar). */
function dueBetween(from: Date, to: Date, isDue: (day: Date) => boolean): number {
  let n = 0;
  const first = brasilia(from);
  for (let d = Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), first.getUTCDate()); d <= brasilia(to).getTime(); d += 24 * HOUR) {
    const six = new Date(d + 6 * HOUR + 3 * HOUR); // 06:00 in Brasília as a real instant
    if (six > from && six <= to && isDue(new Date(d))) n++;
  }
  return n;
}

test("PATCH payoutSchedule: each rule answers 422 naming the field; the schedule is shown on the submerchant; tenancy as for the other submerchant routes", async () => {
  const m = await seedMaster(t, FEES);
  const other = await seedMaster(t, FEES);
  const sm = await createSubmerchant(t, m.sandboxKey);
  const bad: [unknown, RegExp][] = [
    [{ interval: "weekly" }, /payoutSchedule\.weekDay is required when interval is weekly/],
    [{ interval: "weekly", weekDay: 8 }, /weekDay/],
    [{ interval: "weekly", weekDay: 0 }, /weekDay/],
    [{ interval: "monthly" }, /payoutSchedule\.monthDay is required when interval is monthly/],
    [{ interval: "monthly", monthDay: 29 }, /monthDay/],
    [{ interval: "daily", weekDay: 3 }, /payoutSchedule\.weekDay applies only to a weekly schedule/],
    [{ interval: "weekly", weekDay: 3, monthDay: 3 }, /payoutSchedule\.monthDay applies only to a monthly schedule/],
    [{ interval: "daily", minimumAmount: -1 }, /minimumAmount/],
    [{ interval: "daily", minimumAmount: 10.5 }, /minimumAmount/],
    [{ interval: "manual", minimumAmount: 100 }, /payoutSchedule\.minimumAmount applies only to an automatic schedule/],
    [{ interval: "hourly" }, /interval/],
    [{ weekDay: 1 }, /interval/],
  ];
  for (const [body, message] of bad) {
    const res = await schedule(m, sm.id, body);
    expectStatus(res, 422);
    assert.match(res.json().message, message, `${JSON.stringify(body)}: ${res.body}`);
  }
  expectStatus(await call(t, "PATCH", `/v1/submerchants/${sm.id}`, m.sandboxKey, {}), 422);
  expectStatus(await call(t, "PATCH", `/v1/submerchants/${sm.id}`, m.sandboxKey, { colour: "red" }), 422);

  const created = await call(t, "GET", `/v1/submerchants/${sm.id}`, m.sandboxKey);
  assert.deepEqual(created.json().payoutSchedule, { interval: "manual", weekDay: null, monthDay: null, minimumAmount: 0 }, "manual by default");
  const res = await schedule(m, sm.id, { interval: "weekly", weekDay: 7, minimumAmount: 5000 });
  expectStatus(res, 200);
  const shown = { interval: "weekly", weekDay: 7, monthDay: null, minimumAmount: 5000 };
  assert.deepEqual(res.json().payoutSchedule, shown);
  assert.deepEqual((await call(t, "GET", `/v1/submerchants/${sm.id}`, m.sandboxKey)).json().payoutSchedule, shown);
  const list = await call(t, "GET", "/v1/submerchants", m.sandboxKey);
  assert.deepEqual(list.json().data.find((s: { id: string }) => s.id === sm.id).payoutSchedule, shown);
  expectStatus(await schedule(m, sm.id, { interval: "monthly", monthDay: 28 }), 200);
  expectStatus(await schedule(m, sm.id, { interval: "manual" }), 200);
  assert.deepEqual((await call(t, "GET", `/v1/submerchants/${sm.id}`, m.sandboxKey)).json().payoutSchedule.interval, "manual");

  // Another master's submerchant, the other environment, the submerchant itself, no key.
  expectStatus(await schedule(other, sm.id, { interval: "daily" }), 404);
  expectStatus(await call(t, "PATCH", `/v1/submerchants/${sm.id}`, m.productionKey, { payoutSchedule: { interval: "daily" } }), 404);
  const smKey = await keyOf(t, m.sandboxKey, sm.id);
  expectStatus(await call(t, "PATCH", `/v1/submerchants/${sm.id}`, smKey, { payoutSchedule: { interval: "daily" } }), 403);
  expectStatus(await call(t, "PATCH", `/v1/submerchants/${sm.id}`, null, { payoutSchedule: { interval: "daily" } }), 401);
});

/**
 * Advances the master's clock a day at a time for `days` days and checks, after each, that a
 * payout of the whole balance was requested exactly when a due 06:00 was passed, never before.
 */
async function walk(m: SeededMerchant, body: Record<string, unknown>, isDue: (day: Date) => boolean, days: number) {
  const sm = await funded(m, 100);
  const balance = (await balanceOf(t, sm.key)).available;
  assert.equal(balance, 9900);
  expectStatus(await schedule(m, sm.id, body), 200);
  const start = await clockNow(m);
  for (let i = 0; i < days; i++) {
    const now = await advance(m);
    const expected = dueBetween(start, now, isDue) > 0 ? 1 : 0;
    const payouts = await payoutsOf(m, sm.id);
    assert.equal(payouts.length, expected, `${JSON.stringify(body)} at ${now.toISOString()} (set at ${start.toISOString()}): ${JSON.stringify(payouts)}`);
    if (expected) {
      assert.deepEqual([payouts[0]!.amount, payouts[0]!.status], [balance, "pending"], "the whole available balance, approved as any other request");
      assert.equal((await balanceOf(t, sm.key)).available, 0);
    }
  }
  assert.equal((await payoutsOf(m, sm.id)).length, 1, "the due day came within the walk");
  await assertLedgerInvariants(t);
  return sm;
}

test("daily: the first 06:00 Brasília after the schedule requests the whole balance; later days with nothing available request nothing; a new sale is paid the next due day", async () => {
  const m = await seedMaster(t, FEES);
  const sm = await walk(m, { interval: "daily" }, () => true, 2);
  await sell(sm.key, 50);
  await advance(m);
  const payouts = await payoutsOf(m, sm.id);
  assert.deepEqual(payouts.map((p) => p.amount).sort((a, b) => a - b), [4950, 9900], JSON.stringify(payouts));
  assert.notEqual(payouts[0]!.id, payouts[1]!.id);
});

test("weekly with weekDay 7: ISO 1 = Monday .. 7 = Sunday, so the payout comes with Sunday's 06:00 and on no other day", async () => {
  const m = await seedMaster(t, FEES);
  await walk(m, { interval: "weekly", weekDay: 7 }, (d) => d.getUTCDay() === 0, 8);
});

test("monthly: the payout comes on monthDay's 06:00, across the end of a month", async () => {
  const m = await seedMaster(t, FEES);
  // Today's day of the month two days from now, or the 1st when that is past 28 (the walk then crosses a month's end).
  const inTwoDays = brasilia(new Date((await clockNow(m)).getTime() + 48 * HOUR)).getUTCDate();
  const monthDay = inTwoDays <= 28 ? inTwoDays : 1;
  await walk(m, { interval: "monthly", monthDay }, (d) => d.getUTCDate() === monthDay, monthDay === 1 ? 6 : 3);
});

test("a minimum not reached requests nothing on the due day; once reached, the next due day pays all", async () => {
  const m = await seedMaster(t, FEES);
  const sm = await funded(m, 100);
  expectStatus(await schedule(m, sm.id, { interval: "daily", minimumAmount: 10000 }), 200);
  await advance(m);
  await advance(m);
  assert.deepEqual(await payoutsOf(m, sm.id), [], "9900 cents is below the 10000 minimum");
  await sell(sm.key, 2);
  await advance(m);
  const payouts = await payoutsOf(m, sm.id);
  assert.deepEqual(payouts.map((p) => p.amount), [10098], JSON.stringify(payouts));
  await assertLedgerInvariants(t);
});

test("runs racing and a run repeated after its completion was lost: one payout for the day; a missed day is paid once by the worker's next run", async () => {
  const m = await seedMaster(t, FEES);
  const sm = await funded(m, 100);
  expectStatus(await schedule(m, sm.id, { interval: "daily" }), 200);
  // The worker was down for three due days: its next run pays once, for the latest of them.
  const past = new Date((await clockNow(m)).getTime() - 3 * 24 * HOUR);
  const overdue = sql`update submerchants set payout_due_at = ${past.toISOString()}::timestamptz where id = ${sm.id}`;
  await queryRows(t.database.db, overdue);
  const runs = await Promise.all(Array.from({ length: 4 }, () => t.services.connect.schedules.runDue()));
  assert.equal(runs.reduce((a, b) => a + b, 0), 1, "one run claimed the submerchant");
  const [first, ...rest] = await payoutsOf(m, sm.id);
  assert.deepEqual([first?.amount, rest], [9900, []]);

  // The run's completion lost (a crash after the request): the same day is run again, with new
  // money on the balance by then, and finds the day's payout instead of making a second.
  await sell(sm.key, 20);
  await queryRows(t.database.db, overdue);
  await Promise.all([t.services.connect.schedules.runDue(), t.services.connect.schedules.runDue()]);
  const payouts = await payoutsOf(m, sm.id);
  assert.deepEqual(payouts.map((p) => p.id), [first!.id], JSON.stringify(payouts));
  assert.equal((await balanceOf(t, sm.key)).available, 1980, "the new sale waits for the next due day");
  const [due] = await queryRows<{ payout_due_at: string }>(t.database.db, sql`select payout_due_at from submerchants where id = ${sm.id}`);
  assert.ok(new Date(due!.payout_due_at) > await clockNow(m), "the next due time is ahead");
  await assertLedgerInvariants(t);
});
