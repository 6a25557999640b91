import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { advance, call, card, CARDS, createPlan, eventsOf, getSub, subscribe } from "./helpers.js";

// Billing over months through the sandbox test clock. Each test uses its own merchant, so
// clocks and dunning settings do not mix.
let t: TestApp;
before(async () => { t = await buildTestApp(); });
after(async () => t.close());

async function merchant(): Promise<SeededMerchant> {
  return seedMerchant(t);
}

/** Makes the vault card decline from now on, as a card that was cancelled by its issuer. */
async function declineFromNowOn(m: SeededMerchant, subId: string, customerId: string) {
  const saved = (await call(t, m.sandboxKey, "POST", `/v1/customers/${customerId}/cards`, {
    number: CARDS.declined, holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2035",
  })).json();
  // The subscription keeps its card id; swap the vault row's contents by pointing the subscription at the declining card.
  const { subscriptions } = await import("../../src/db/schema.js");
  const { eq } = await import("drizzle-orm");
  await t.database.db.update(subscriptions).set({ paymentMethod: { type: "credit_card", cardId: saved.id } }).where(eq(subscriptions.id, subId));
}

test("a year of monthly renewals: twelve charges, one per period, each announced", async () => {
  const m = await merchant();
  const plan = await createPlan(t, m.sandboxKey);
  const sub = await subscribe(t, m.sandboxKey, { planId: plan.id });
  const result = await advance(t, m.sandboxKey, 366);
  assert.equal(result.actions.filter((a) => a.action === "renewed").length, 12);
  assert.equal(Math.round(result.offsetDays), 366);
  const after = await getSub(t, m.sandboxKey, sub.id);
  assert.equal(after.status, "active");
  assert.equal(after.charges.length, 13);
  assert.ok(after.charges.every((c) => c.status === "paid"));
  assert.equal(new Set(after.charges.map((c) => c.periodStart)).size, 13, "one charge per period");
  const types = (await eventsOf(t, sub.id)).map((e) => e.type);
  assert.equal(types.filter((x) => x === "subscription.renewed").length, 12);
  // Advancing again with nothing due bills nothing twice.
  const again = await advance(t, m.sandboxKey, 1);
  assert.equal(again.actions.length, 0);
});

test("billing day: renewals fall on it, clamped to short months", async () => {
  const m = await merchant();
  const plan = await createPlan(t, m.sandboxKey);
  const sub = await subscribe(t, m.sandboxKey, { planId: plan.id, billingDay: 31 });
  await advance(t, m.sandboxKey, 120);
  const after = await getSub(t, m.sandboxKey, sub.id);
  for (const c of after.charges.slice(0, -1)) {
    const d = new Date(c.periodStart);
    const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
    assert.equal(d.getUTCDate(), Math.min(31, last), c.periodStart);
  }
});

test("dunning: a refused renewal is retried after 1, 3 and 5 days, stays active meanwhile, then expires", async () => {
  const m = await merchant();
  const plan = await createPlan(t, m.sandboxKey);
  const sub = await subscribe(t, m.sandboxKey, { planId: plan.id });
  await declineFromNowOn(m, sub.id, sub.customerId);
  const periodEnd = Date.parse(sub.currentPeriodEnd);
  const toEnd = Math.ceil((periodEnd - Date.now()) / 86_400_000);
  await advance(t, m.sandboxKey, toEnd);
  let now = await getSub(t, m.sandboxKey, sub.id);
  assert.equal(now.status, "active");
  assert.equal(now.unpaidInvoice?.attempts, 1);
  assert.equal(Date.parse(now.unpaidInvoice!.nextAttemptAt!) - Date.parse(now.unpaidInvoice!.periodStart), 86_400_000);
  await advance(t, m.sandboxKey, 4); // the 1-day retry, then the 3-day one
  now = await getSub(t, m.sandboxKey, sub.id);
  assert.equal(now.status, "active");
  assert.equal(now.unpaidInvoice?.attempts, 3);
  await advance(t, m.sandboxKey, 6);
  now = await getSub(t, m.sandboxKey, sub.id);
  assert.equal(now.status, "expired");
  assert.equal(now.charges.filter((c) => c.status === "refused").length, 4);
  assert.deepEqual(now.charges.filter((c) => c.status === "refused").map((c) => c.attempt).sort(), [1, 2, 3, 4]);
  const types = (await eventsOf(t, sub.id)).map((e) => e.type);
  assert.equal(types.filter((x) => x === "subscription.payment_failed").length, 4);
  assert.equal(types.at(-1), "subscription.expired");
  // Nothing more is billed for an expired subscription.
  assert.equal((await advance(t, m.sandboxKey, 60)).actions.length, 0);
});

test("dunning settings: custom retries, and cancel instead of expire", async () => {
  const m = await merchant();
  expectStatus(await call(t, m.sandboxKey, "PUT", "/v1/subscription-settings", { retryDays: [2], onExhausted: "cancel" }), 200);
  const read = await call(t, m.sandboxKey, "GET", "/v1/subscription-settings");
  assert.deepEqual(read.json(), { retryDays: [2], onExhausted: "cancel" });
  // Production has its own settings.
  assert.deepEqual((await call(t, m.productionKey, "GET", "/v1/subscription-settings")).json(), { retryDays: [1, 3, 5], onExhausted: "expire" });
  expectStatus(await call(t, m.sandboxKey, "PUT", "/v1/subscription-settings", { retryDays: [0], onExhausted: "cancel" }), 422);
  expectStatus(await call(t, m.sandboxKey, "PUT", "/v1/subscription-settings", { retryDays: [1], onExhausted: "delete" }), 422);
  const plan = await createPlan(t, m.sandboxKey);
  const sub = await subscribe(t, m.sandboxKey, { planId: plan.id });
  await declineFromNowOn(m, sub.id, sub.customerId);
  await advance(t, m.sandboxKey, 40);
  const now = await getSub(t, m.sandboxKey, sub.id);
  assert.equal(now.status, "cancelled");
  assert.equal(now.cancellationType, "payment_failed");
  assert.ok(now.cancelledAt);
  assert.equal(now.charges.filter((c) => c.status === "refused").length, 2);
});

test("a refused renewal paid by a retry keeps the subscription active and billing on schedule", async () => {
  const m = await merchant();
  const plan = await createPlan(t, m.sandboxKey);
  const sub = await subscribe(t, m.sandboxKey, { planId: plan.id });
  const { subscriptions } = await import("../../src/db/schema.js");
  const { eq } = await import("drizzle-orm");
  await declineFromNowOn(m, sub.id, sub.customerId);
  const toEnd = Math.ceil((Date.parse(sub.currentPeriodEnd) - Date.now()) / 86_400_000);
  await advance(t, m.sandboxKey, toEnd);
  // The customer fixes the card: back to the good one before the retry.
  await t.database.db.update(subscriptions).set({ paymentMethod: sub.paymentMethod }).where(eq(subscriptions.id, sub.id));
  await advance(t, m.sandboxKey, 2);
  const now = await getSub(t, m.sandboxKey, sub.id);
  assert.equal(now.status, "active");
  assert.equal(now.unpaidInvoice, null);
  assert.equal(now.charges[0]!.status, "paid");
  assert.equal(now.charges[0]!.attempt, 2);
  assert.equal(now.nextBillingAt, now.currentPeriodEnd);
});

test("pause spanning a billing day bills nothing; resume starts a period on the resume date and charges it", async () => {
  const m = await merchant();
  const plan = await createPlan(t, m.sandboxKey);
  const sub = await subscribe(t, m.sandboxKey, { planId: plan.id });
  const paused = (await call(t, m.sandboxKey, "POST", `/v1/subscriptions/${sub.id}/pause`)).json();
  assert.equal(paused.status, "paused");
  assert.equal(paused.nextBillingAt, null);
  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/subscriptions/${sub.id}/pause`), 409);
  const moved = await advance(t, m.sandboxKey, 45); // past the billing day
  assert.equal(moved.actions.length, 0);
  assert.equal((await getSub(t, m.sandboxKey, sub.id)).charges.length, 1);
  const res = await call(t, m.sandboxKey, "POST", `/v1/subscriptions/${sub.id}/resume`);
  expectStatus(res, 200);
  const resumed = res.json();
  assert.equal(resumed.status, "active");
  assert.equal(resumed.charges.length, 2);
  // The resume date is the clock's time when it was asked (a few real milliseconds after the advance).
  assert.ok(Math.abs(Date.parse(resumed.currentPeriodStart) - Date.parse(moved.now)) < 60_000);
  assert.equal(resumed.billingDay, new Date(moved.now).getUTCDate());
  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/subscriptions/${sub.id}/resume`), 409);
  const types = (await eventsOf(t, sub.id)).map((e) => e.type);
  assert.deepEqual(types.slice(2), ["subscription.paused", "subscription.resumed", "subscription.renewed"]);
});

test("cancel at period end: active until then, cancelled after, nothing billed", async () => {
  const m = await merchant();
  const plan = await createPlan(t, m.sandboxKey);
  const sub = await subscribe(t, m.sandboxKey, { planId: plan.id });
  const res = await call(t, m.sandboxKey, "POST", `/v1/subscriptions/${sub.id}/cancel`, { atPeriodEnd: true });
  expectStatus(res, 200);
  assert.equal(res.json().status, "active");
  assert.equal(res.json().cancelAtPeriodEnd, true);
  assert.equal(res.json().cancellationType, "end_of_period");
  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/subscriptions/${sub.id}/cancel`, { atPeriodEnd: true, refund: true }), 422);
  await advance(t, m.sandboxKey, 40);
  const now = await getSub(t, m.sandboxKey, sub.id);
  assert.equal(now.status, "cancelled");
  assert.equal(now.cancelledAt, sub.currentPeriodEnd);
  assert.equal(now.charges.length, 1);
  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/subscriptions/${sub.id}/cancel`, {}), 409);
});

test("cancel now with refund: the period's charge is refunded in full through the refund service", async () => {
  const m = await merchant();
  const plan = await createPlan(t, m.sandboxKey);
  const sub = await subscribe(t, m.sandboxKey, { planId: plan.id });
  const res = await call(t, m.sandboxKey, "POST", `/v1/subscriptions/${sub.id}/cancel`, { refund: true }, { "idempotency-key": "cancel-1" });
  expectStatus(res, 200);
  const body = res.json();
  assert.equal(body.status, "cancelled");
  assert.equal(body.cancellationType, "immediate");
  assert.equal(body.refunded, true);
  assert.equal(body.charges[0].status, "refunded");
  const charge = (await call(t, m.sandboxKey, "GET", `/v1/charges/${sub.charges[0]!.chargeId}`)).json();
  assert.equal(charge.status, "refunded");
  assert.equal(charge.amountRefunded, 29.9);
  const types = (await eventsOf(t, sub.id)).map((e) => e.type);
  assert.equal(types.at(-1), "subscription.cancelled");
  // A pending_activation subscription with nothing paid cannot be refunded, and is cancelled without.
  const unpaid = await subscribe(t, m.sandboxKey, { planId: plan.id, paymentMethod: card(CARDS.declined) });
  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/subscriptions/${unpaid.id}/cancel`, { refund: true }), 422);
  const plain = (await call(t, m.sandboxKey, "POST", `/v1/subscriptions/${unpaid.id}/cancel`, {})).json();
  assert.equal(plain.status, "cancelled");
});

test("an unpaid first payment expires the subscription after 23 hours", async () => {
  const m = await merchant();
  const plan = await createPlan(t, m.sandboxKey);
  const sub = await subscribe(t, m.sandboxKey, { planId: plan.id, paymentMethod: { type: "pix" } });
  await advance(t, m.sandboxKey, 1);
  assert.equal((await getSub(t, m.sandboxKey, sub.id)).status, "expired");
  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/subscriptions/${sub.id}/pause`), 409);
});

test("Pix renewals: a pending charge whose QR code and due date are in subscription.renewed; unpaid counts as a failure", async () => {
  const m = await merchant();
  const plan = await createPlan(t, m.sandboxKey);
  const sub = await subscribe(t, m.sandboxKey, { planId: plan.id, paymentMethod: { type: "pix" } });
  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/sandbox/charges/${sub.charges[0]!.chargeId}/pay`), 200);
  const toEnd = Math.ceil((Date.parse(sub.currentPeriodEnd) - Date.now()) / 86_400_000);
  await advance(t, m.sandboxKey, toEnd);
  const renewed = (await eventsOf(t, sub.id)).find((e) => e.type === "subscription.renewed")!;
  const invoice = renewed.data.invoice as Record<string, any>;
  assert.equal(invoice.charge_status, "pending");
  assert.match(invoice.payment_details.qrCode, /^000201/);
  assert.ok(invoice.due_at);
  assert.equal(invoice.amount, 2990);
  const now = await getSub(t, m.sandboxKey, sub.id);
  assert.equal(now.status, "active");
  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/sandbox/charges/${now.charges[0]!.chargeId}/pay`), 200);
  const paid = await getSub(t, m.sandboxKey, sub.id);
  assert.equal(paid.unpaidInvoice, null);
  assert.equal(paid.nextBillingAt, paid.currentPeriodEnd);
  // The next one is left unpaid: after its 3 days it is a failed attempt and a new Pix is issued.
  await advance(t, m.sandboxKey, 35);
  const types = (await eventsOf(t, sub.id)).map((e) => e.type);
  assert.ok(types.includes("subscription.payment_failed"));
  assert.ok(types.filter((x) => x === "subscription.renewed").length >= 3);
});

test("a plan change applies from the next period", async () => {
  const m = await merchant();
  const plan = await createPlan(t, m.sandboxKey);
  const bigger = await createPlan(t, m.sandboxKey, { name: "Pro plus", price: 49.9 });
  const usd = await createPlan(t, m.sandboxKey, { name: "USD", currency: "USD" });
  const sub = await subscribe(t, m.sandboxKey, { planId: plan.id });
  expectStatus(await call(t, m.sandboxKey, "PATCH", `/v1/subscriptions/${sub.id}`, { planId: usd.id }), 422);
  const res = await call(t, m.sandboxKey, "PATCH", `/v1/subscriptions/${sub.id}`, { planId: bigger.id });
  expectStatus(res, 200);
  assert.equal(res.json().planId, plan.id);
  assert.equal(res.json().nextPlanId, bigger.id);
  await advance(t, m.sandboxKey, 32);
  const now = await getSub(t, m.sandboxKey, sub.id);
  assert.equal(now.planId, bigger.id);
  assert.equal(now.nextPlanId, null);
  const charge = (await call(t, m.sandboxKey, "GET", `/v1/charges/${now.charges[0]!.chargeId}`)).json();
  assert.equal(charge.amount, 49.9);
});

test("the clock is sandbox-only and per merchant; subscription events can be chosen by endpoints", async () => {
  const m = await merchant();
  const other = await merchant();
  expectStatus(await call(t, m.productionKey, "POST", "/v1/sandbox/clock/advance", { days: 1 }), 403);
  expectStatus(await call(t, m.sandboxKey, "POST", "/v1/sandbox/clock/advance", { days: 0 }), 422);
  expectStatus(await call(t, m.sandboxKey, "POST", "/v1/sandbox/clock/advance", { days: "1" }), 422);
  await advance(t, m.sandboxKey, 10);
  assert.equal(Math.round((await call(t, other.sandboxKey, "GET", "/v1/sandbox/clock")).json().offsetDays), 0);
  const endpoint = await call(t, m.sandboxKey, "POST", "/v1/webhook-endpoints", { url: "http://127.0.0.1:9/hook", events: ["subscription.renewed", "subscription.payment_failed"] });
  expectStatus(endpoint, 201);
});
