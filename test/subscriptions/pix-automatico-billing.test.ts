import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { advance, call, createPlan, customer, eventsOf, getSub, subscribe, type Sub } from "./helpers.js";

// Pix Automático billing on the sandbox test clock: each period's charge issued inside the
// Central Bank's 2-10 days before its due date, debited on the due date, failed debits retried
// per the mandate's policy and then the merchant's dunning. Each test its own merchant (clock).
let t: TestApp;
before(async () => { t = await buildTestApp(); });
after(async () => t.close());

const DAY = 86_400_000;
type PixSub = Sub & { mandate: { id: string; status: string } };

/** An active journey-3 subscription: signed up and approved (the first period paid). */
async function activeSub(m: SeededMerchant, retryPolicy?: string): Promise<PixSub> {
  const plan = await createPlan(t, m.sandboxKey);
  const sub = (await subscribe(t, m.sandboxKey, { planId: plan.id, paymentMethod: { type: "pix_automatico", ...(retryPolicy ? { retryPolicy } : {}) } })) as PixSub;
  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/sandbox/mandates/${sub.mandate.id}/approve`), 200);
  return sub;
}

async function failDebits(m: SeededMerchant, mandateId: string, count: number) {
  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/sandbox/mandates/${mandateId}/fail-debits`, { count }), 200);
}

test("a year of renewals: each period's charge issued 2 to 10 days before its due date and debited on it, once", async () => {
  const m = await seedMerchant(t);
  const sub = await activeSub(m);
  const { actions } = await advance(t, m.sandboxKey, 366);
  const after = await getSub(t, m.sandboxKey, sub.id);
  assert.equal(after.status, "active");
  const renewals = after.charges.filter((c) => c.periodStart !== sub.currentPeriodStart);
  assert.equal(renewals.length, 12);
  assert.ok(after.charges.every((c) => c.status === "paid" && c.attempt === 1));
  assert.equal(new Set(after.charges.map((c) => c.periodStart)).size, 13, "one charge per period");
  const issued = actions.filter((a) => a.action === "renewed");
  const debited = actions.filter((a) => a.action === "debited");
  assert.equal(issued.length, 12);
  assert.equal(debited.length, 12);
  for (const c of renewals) {
    const issue = issued.find((a) => (a as { chargeId?: string }).chargeId === c.chargeId)!;
    const debit = debited.find((a) => (a as { chargeId?: string }).chargeId === c.chargeId)!;
    const lead = (Date.parse(c.periodStart) - Date.parse(issue.at)) / DAY;
    assert.ok(lead >= 2 && lead <= 10, `issued ${lead} days before its due date`);
    assert.equal(debit.at, c.periodStart, "debited on the due date");
    assert.equal(debit.chargeStatus, "paid");
  }
  const types = (await eventsOf(t, sub.id)).map((e) => e.type);
  assert.equal(types.filter((x) => x === "subscription.renewed").length, 12);
  assert.equal(types.filter((x) => x === "subscription.payment_failed").length, 0);
});

test("failed debits are retried per 3_in_7_days, and a later attempt that pays keeps the subscription active", async () => {
  const m = await seedMerchant(t);
  const sub = await activeSub(m);
  await failDebits(m, sub.mandate.id, 2);
  await advance(t, m.sandboxKey, 40);
  const after = await getSub(t, m.sandboxKey, sub.id);
  assert.equal(after.status, "active");
  const period = after.charges.filter((c) => c.periodStart === after.charges.find((x) => x.attempt === 3)?.periodStart);
  assert.deepEqual(period.map((c) => [c.attempt, c.status]).sort(), [[1, "refused"], [2, "refused"], [3, "paid"]]);
  const types = (await eventsOf(t, sub.id)).map((e) => e.type);
  assert.equal(types.filter((x) => x === "subscription.payment_failed").length, 2);
});

test("when the retries run out the merchant's dunning ends it; with retryPolicy none the first failure does", async () => {
  const m = await seedMerchant(t);
  const sub = await activeSub(m);
  await failDebits(m, sub.mandate.id, 4);
  await advance(t, m.sandboxKey, 45);
  const after = await getSub(t, m.sandboxKey, sub.id);
  assert.equal(after.status, "expired");
  const failed = after.charges.filter((c) => c.status === "refused");
  assert.equal(failed.length, 4, "the first debit and 3 retries");
  const first = failed.find((c) => c.attempt === 1)!;
  const last = failed.find((c) => c.attempt === 4)!;
  assert.equal(first.periodStart, last.periodStart);

  const none = await activeSub(m, "none");
  await failDebits(m, none.mandate.id, 1);
  await advance(t, m.sandboxKey, 40);
  const ended = await getSub(t, m.sandboxKey, none.id);
  assert.equal(ended.status, "expired");
  assert.equal(ended.charges.filter((c) => c.status === "refused").length, 1);
});

test("a paused subscription skips its periods and keeps its mandate; resumed, its next charge is sent inside the window", async () => {
  const m = await seedMerchant(t);
  const sub = await activeSub(m);
  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/subscriptions/${sub.id}/pause`), 200);
  await advance(t, m.sandboxKey, 70);
  const paused = (await getSub(t, m.sandboxKey, sub.id)) as PixSub;
  assert.equal(paused.status, "paused");
  assert.equal(paused.charges.length, 1);
  assert.equal(paused.mandate.status, "active");

  // Resumed: the next period's charge is sent now and debited 2 days later, inside the window.
  const resumed = await call(t, m.sandboxKey, "POST", `/v1/subscriptions/${sub.id}/resume`);
  expectStatus(resumed, 200);
  const charge = (resumed.json() as Sub).charges[0]!;
  assert.equal(charge.status, "pending");
  const clock = (await call(t, m.sandboxKey, "GET", "/v1/sandbox/clock")).json() as { now: string };
  const lead = Date.parse(charge.periodStart) - Date.parse(clock.now);
  assert.ok(lead > 2 * DAY - 60_000 && lead <= 2 * DAY, `due ${lead} ms after the resume`);
  await advance(t, m.sandboxKey, 3);
  const after = await getSub(t, m.sandboxKey, sub.id);
  assert.equal(after.status, "active");
  assert.equal(after.charges[0]!.status, "paid");
});

interface ChargeView { status: string; spread: number; reason: string | null; failureReason: string | null; paymentMethod: { type: string; mandateId?: string }; paymentDetails: Record<string, unknown> | null }
const chargeOf = async (m: SeededMerchant, id: string) => (await call(t, m.sandboxKey, "GET", `/v1/charges/${id}`)).json() as ChargeView;
/** The day an instant falls on in Brasília (UTC-3 all year since 2019). */
const brasiliaDay = (iso: string) => new Date(Date.parse(iso) - 3 * 3_600_000).toISOString().slice(0, 10);

test("a later period's charge is a pending pix_automatico charge due on the period's start (Brasília), and a failed debit is refused for lack of funds", async () => {
  const m = await seedMerchant(t);
  expectStatus(await t.app.inject({
    method: "PUT", url: `/v1/admin/merchants/${m.id}/fees`, headers: { authorization: basic(t.admin) },
    payload: { fees: [{ feeType: "tx_spread", paymentMethod: "pix", currencyCode: "BRL", brand: null, definition: { fixed: 10, percentages: [0.89] } }] },
  }), 200);
  const sub = await activeSub(m);
  const first = await chargeOf(m, sub.charges[0]!.chargeId);
  assert.equal(first.paymentMethod.type, "pix", "journey 3's first charge is the QR the payer scans");
  await failDebits(m, sub.mandate.id, 1);
  // Day 28: the next period's charge is issued (5 days before it), not yet debited.
  await advance(t, m.sandboxKey, 28);
  const issued = (await getSub(t, m.sandboxKey, sub.id)).charges.find((c) => c.periodStart !== sub.currentPeriodStart)!;
  const pending = await chargeOf(m, issued.chargeId);
  assert.equal(pending.status, "pending");
  assert.deepEqual(pending.paymentMethod, { type: "pix_automatico", mandateId: sub.mandate.id });
  assert.equal(pending.paymentDetails?.dueDate, brasiliaDay(issued.periodStart));
  assert.equal(pending.paymentDetails?.mandateId, sub.mandate.id);
  assert.ok(pending.spread > 0 && pending.spread === first.spread, `a debit pays the merchant's Pix fee: ${pending.spread} vs ${first.spread}`);

  await advance(t, m.sandboxKey, 4);
  const debited = await chargeOf(m, issued.chargeId);
  assert.equal(debited.status, "refused");
  assert.equal(debited.failureReason, "insufficient_funds");
  const after = await getSub(t, m.sandboxKey, sub.id);
  assert.equal(after.charges.find((c) => c.chargeId === issued.chargeId)?.reason, "insufficient_funds");
  // The retry, the day after the due date, is a debit of its own under the same mandate.
  await advance(t, m.sandboxKey, 1);
  const retry = (await getSub(t, m.sandboxKey, sub.id)).charges.find((c) => c.attempt === 2)!;
  const retried = await chargeOf(m, retry.chargeId);
  assert.equal(retried.paymentMethod.type, "pix_automatico");
  assert.equal(retried.status, "paid");
});

test("POST /v1/charges refuses a pix_automatico charge (only a subscription's billing makes one): 422 naming paymentMethod.type", async () => {
  const m = await seedMerchant(t);
  const res = await call(t, m.sandboxKey, "POST", "/v1/charges", {
    amount: 10, currency: "BRL", customer, paymentMethod: { type: "pix_automatico", dueDate: "2030-01-15" },
  });
  expectStatus(res, 422);
  const body = res.json() as { statusCode: number; message: string; error: string };
  assert.equal(body.statusCode, 422);
  assert.match(body.message, /paymentMethod\.type/);
  assert.match(body.message, /pix_automatico/);
});
