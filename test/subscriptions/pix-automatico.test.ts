import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { count, eq } from "drizzle-orm";
import { subscriptions } from "../../src/db/schema.js";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { advance, call, createPlan, customer, eventsOf, getSub, subscribe, type Sub } from "./helpers.js";

// Pix Automático sign-up and mandates in the sandbox: the journeys,
// the payer's bank stand-ins (approve, reject, cancel) and the merchant's cancel. One app; each
// test its own merchant, so test clocks do not mix.
let t: TestApp;
before(async () => { t = await buildTestApp(); });
after(async () => t.close());

interface Mandate {
  id: string; status: string; journey: string; qrCode: string; qrCodeImage: string; expiresAt: string; retryPolicy: string;
  maxAmount: number; subscriptionId: string; cancelledBy: string | null;
}
type PixSub = Sub & { mandate: Mandate | null };

const auto = (extra: Record<string, unknown> = {}) => ({ type: "pix_automatico", ...extra });

async function signUp(m: SeededMerchant, plan: { id: string }, body: Record<string, unknown> = {}): Promise<PixSub> {
  return (await subscribe(t, m.sandboxKey, { planId: plan.id, paymentMethod: auto(), ...body })) as PixSub;
}

async function mandateAction(m: SeededMerchant, id: string, action: "approve" | "reject" | "cancel", status = 200): Promise<Mandate> {
  const res = await call(t, m.sandboxKey, "POST", `/v1/sandbox/mandates/${id}/${action}`);
  expectStatus(res, status);
  return res.json();
}

const types = async (id: string) => (await eventsOf(t, id)).map((e) => e.type);

test("journey 3 without a trial: the QR pays the first period, and approving it activates mandate and subscription", async () => {
  const m = await seedMerchant(t);
  const plan = await createPlan(t, m.sandboxKey);
  const sub = await signUp(m, plan);
  assert.equal(sub.status, "pending_activation");
  const mandate = sub.mandate!;
  assert.match(mandate.id, /^mdt_/);
  assert.equal(mandate.status, "pending");
  assert.equal(mandate.journey, "qr_with_payment");
  assert.equal(mandate.retryPolicy, "3_in_7_days");
  assert.equal(mandate.maxAmount, 29.9);
  assert.equal(mandate.subscriptionId, sub.id);
  assert.match(mandate.qrCode, /^000201/);
  assert.equal(sub.charges.length, 1);
  assert.equal(sub.charges[0]!.status, "pending");

  const got = await call(t, m.sandboxKey, "GET", `/v1/mandates/${mandate.id}`);
  expectStatus(got, 200);
  assert.deepEqual(got.json(), mandate);

  const approved = await mandateAction(m, mandate.id, "approve");
  assert.equal(approved.status, "active");
  const after = (await getSub(t, m.sandboxKey, sub.id)) as PixSub;
  assert.equal(after.status, "active");
  assert.equal(after.charges[0]!.status, "paid");
  assert.equal(after.mandate!.status, "active");
  assert.deepEqual(await types(mandate.id), ["mandate.activated"]);
  assert.deepEqual(await types(sub.id), ["subscription.created", "subscription.activated"]);
  // Approved once: a second approval is a conflict, not a second payment.
  await mandateAction(m, mandate.id, "approve", 409);
});

test("journey 2 with a trial: authorization only, and the approval starts the trial", async () => {
  const m = await seedMerchant(t);
  const plan = await createPlan(t, m.sandboxKey, { trialDays: 7 });
  const sub = await signUp(m, plan, { paymentMethod: auto({ retryPolicy: "none" }) });
  assert.equal(sub.status, "pending_activation");
  assert.equal(sub.mandate!.journey, "qr");
  assert.equal(sub.mandate!.retryPolicy, "none");
  assert.equal(sub.charges.length, 0);
  assert.match(sub.mandate!.qrCode, /^000201/);
  await mandateAction(m, sub.mandate!.id, "approve");
  const active = await getSub(t, m.sandboxKey, sub.id);
  assert.equal(active.status, "active");
  // The first period's charge is issued 5 days before the trial ends (its due date).
  assert.equal(Date.parse(active.trialEnd!) - Date.parse(active.nextBillingAt!), 5 * 86_400_000);
  assert.deepEqual(await types(sub.id), ["subscription.created", "subscription.activated"]);
});

test("a customer without a CPF or CNPJ, or a day plan, is a 422 naming the field, and nothing is written", async () => {
  const m = await seedMerchant(t);
  const plan = await createPlan(t, m.sandboxKey);
  const before = (await t.database.db.select({ n: count() }).from(subscriptions).where(eq(subscriptions.merchantId, m.id)))[0]!.n;
  for (const buyer of [{ name: "Maria Silva", email: "maria@example.com" }, { ...customer, document: { type: "passport", id: "FZ123456" } }]) {
    const res = await call(t, m.sandboxKey, "POST", "/v1/subscriptions", { planId: plan.id, customer: buyer, paymentMethod: auto() });
    expectStatus(res, 422);
    assert.match(res.json().message, /customer\.document/);
  }
  const bad = await call(t, m.sandboxKey, "POST", "/v1/subscriptions", { planId: plan.id, customer, paymentMethod: auto({ retryPolicy: "daily" }) });
  expectStatus(bad, 422);
  // The Central Bank has no daily recurrence, and a day is shorter than the 2-day notice.
  const daily = await createPlan(t, m.sandboxKey, { interval: "day" });
  const refused = await call(t, m.sandboxKey, "POST", "/v1/subscriptions", { planId: daily.id, customer, paymentMethod: auto() });
  expectStatus(refused, 422);
  assert.match(refused.json().message, /^planId: /);
  const now = (await t.database.db.select({ n: count() }).from(subscriptions).where(eq(subscriptions.merchantId, m.id)))[0]!.n;
  assert.equal(now, before);
});

test("a rejected mandate leaves the subscription pending_activation, past the card activation window, until the merchant cancels", async () => {
  const m = await seedMerchant(t);
  const plan = await createPlan(t, m.sandboxKey, { trialDays: 7 });
  const sub = await signUp(m, plan);
  assert.equal((await mandateAction(m, sub.mandate!.id, "reject")).status, "rejected");
  await advance(t, m.sandboxKey, 2);
  assert.equal((await getSub(t, m.sandboxKey, sub.id)).status, "pending_activation");
  await mandateAction(m, sub.mandate!.id, "approve", 409);
  const cancelled = await call(t, m.sandboxKey, "POST", `/v1/subscriptions/${sub.id}/cancel`, {});
  expectStatus(cancelled, 200);
  assert.equal(cancelled.json().status, "cancelled");
  assert.equal(cancelled.json().mandate.status, "rejected");
  assert.deepEqual(await types(sub.mandate!.id), ["mandate.rejected"]);
});

test("an unapproved mandate expires with its QR; the subscription waits for the merchant", async () => {
  const m = await seedMerchant(t);
  const plan = await createPlan(t, m.sandboxKey, { trialDays: 7 });
  const sub = await signUp(m, plan);
  await advance(t, m.sandboxKey, 4);
  const later = (await getSub(t, m.sandboxKey, sub.id)) as PixSub;
  assert.equal(later.status, "pending_activation");
  assert.equal(later.mandate!.status, "expired");
  await mandateAction(m, sub.mandate!.id, "approve", 409);
});

test("the payer cancelling in the bank app cancels the subscription; the merchant's cancel cancels the mandate", async () => {
  const m = await seedMerchant(t);
  const plan = await createPlan(t, m.sandboxKey);
  const byPayer = await signUp(m, plan);
  await mandateAction(m, byPayer.mandate!.id, "approve");
  const cancelled = await mandateAction(m, byPayer.mandate!.id, "cancel");
  assert.equal(cancelled.status, "cancelled");
  assert.equal(cancelled.cancelledBy, "payer");
  const gone = await getSub(t, m.sandboxKey, byPayer.id);
  assert.equal(gone.status, "cancelled");
  assert.equal(gone.cancellationType, "mandate_cancelled");
  assert.deepEqual(await types(byPayer.mandate!.id), ["mandate.activated", "mandate.cancelled"]);
  assert.deepEqual((await types(byPayer.id)).slice(-1), ["subscription.cancelled"]);
  await mandateAction(m, byPayer.mandate!.id, "cancel", 409);

  const byMerchant = await signUp(m, plan, { customer: { ...customer, email: "other@example.com" } });
  await mandateAction(m, byMerchant.mandate!.id, "approve");
  const res = await call(t, m.sandboxKey, "POST", `/v1/subscriptions/${byMerchant.id}/cancel`, {});
  expectStatus(res, 200);
  assert.equal(res.json().mandate.status, "cancelled");
  assert.equal(res.json().mandate.cancelledBy, "merchant");
  assert.deepEqual(await types(byMerchant.mandate!.id), ["mandate.activated", "mandate.cancelled"]);
});

test("a plan change above the mandate's maximum amount is a 422 naming planId; a cheaper plan is taken", async () => {
  const m = await seedMerchant(t);
  const plan = await createPlan(t, m.sandboxKey);
  const sub = await signUp(m, plan);
  await mandateAction(m, sub.mandate!.id, "approve");
  const dearer = await createPlan(t, m.sandboxKey, { name: "Pro plus", price: 49.9 });
  const refused = await call(t, m.sandboxKey, "PATCH", `/v1/subscriptions/${sub.id}`, { planId: dearer.id });
  expectStatus(refused, 422);
  assert.match(refused.json().message, /^planId: .*maximum amount/);
  const cheaper = await createPlan(t, m.sandboxKey, { name: "Lite", price: 19.9 });
  const taken = await call(t, m.sandboxKey, "PATCH", `/v1/subscriptions/${sub.id}`, { planId: cheaper.id });
  expectStatus(taken, 200);
  assert.equal(taken.json().nextPlanId, cheaper.id);
  const daily = await createPlan(t, m.sandboxKey, { name: "Daily", price: 1, interval: "day" });
  expectStatus(await call(t, m.sandboxKey, "PATCH", `/v1/subscriptions/${sub.id}`, { planId: daily.id }), 422);
});

test("the payer's bank stand-ins answer 403 to a production key, and an unknown mandate is a 404", async () => {
  const m = await seedMerchant(t);
  const res = await call(t, m.productionKey, "POST", "/v1/sandbox/mandates/mdt_unknown/approve");
  expectStatus(res, 403);
  expectStatus(await call(t, m.sandboxKey, "GET", "/v1/mandates/mdt_unknown"), 404);
});
