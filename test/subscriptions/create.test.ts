import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { count, eq } from "drizzle-orm";
import { cards, charges, subscriptions } from "../../src/db/schema.js";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { call, card, CARDS, createPlan, customer, eventsOf, getSub, subscribe } from "./helpers.js";

let t: TestApp;
let m: SeededMerchant;
let plan: { id: string };
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
  plan = await createPlan(t, m.sandboxKey);
});
after(async () => t.close());

const rows = async () => (await t.database.db.select({ n: count() }).from(subscriptions))[0]!.n;

test("a paid first payment makes the subscription active, keeps the card in the vault and announces it", async () => {
  const sub = await subscribe(t, m.sandboxKey, { planId: plan.id, billingDay: 10, metadata: { order: "A-1" } });
  assert.equal(sub.status, "active");
  assert.equal(sub.billingDay, 10);
  assert.equal(new Date(sub.currentPeriodEnd).getUTCDate(), 10);
  assert.ok(new Date(sub.currentPeriodEnd) > new Date(sub.currentPeriodStart));
  assert.equal(sub.charges.length, 1);
  assert.equal(sub.charges[0]!.status, "paid");
  assert.match(sub.paymentMethod.cardId ?? "", /^card_/);
  const [vault] = await t.database.db.select().from(cards).where(eq(cards.id, sub.paymentMethod.cardId!));
  assert.equal(vault!.lastFour, "1111");
  assert.equal(vault!.customerId, sub.customerId);
  const [charge] = await t.database.db.select().from(charges).where(eq(charges.id, sub.charges[0]!.chargeId));
  assert.equal(charge!.amount, 2990);
  assert.deepEqual(charge!.metadata, { subscriptionId: sub.id, invoiceId: charge!.metadata!.invoiceId });
  assert.deepEqual((await eventsOf(t, sub.id)).map((e) => e.type), ["subscription.created", "subscription.activated"]);
  const chargeEvents = (await eventsOf(t, charge!.id)).map((e) => e.type);
  assert.deepEqual(chargeEvents, ["charge.created", "charge.paid"]);
});

test("a refused first payment answers 201 pending_activation, with subscription.payment_failed", async () => {
  for (const number of [CARDS.declined, CARDS.insufficientFunds, CARDS.processingError]) {
    const sub = await subscribe(t, m.sandboxKey, { planId: plan.id, paymentMethod: card(number) });
    assert.equal(sub.status, "pending_activation", number);
    assert.ok(["refused", "failed"].includes(sub.charges[0]!.status));
    const types = (await eventsOf(t, sub.id)).map((e) => e.type);
    assert.deepEqual(types, ["subscription.created", "subscription.payment_failed"]);
  }
});

test("3-D Secure: pending_activation until authenticated, then active in the charge's transaction", async () => {
  const sub = await subscribe(t, m.sandboxKey, { planId: plan.id, paymentMethod: card(CARDS.threeDS, { threeDSMode: "managed" }) });
  assert.equal(sub.status, "pending_activation");
  assert.equal(sub.charges[0]!.status, "authentication_required");
  const res = await call(t, m.sandboxKey, "POST", `/v1/sandbox/charges/${sub.charges[0]!.chargeId}/authenticate`, { result: "succeeded" });
  expectStatus(res, 200);
  const after = await getSub(t, m.sandboxKey, sub.id);
  assert.equal(after.status, "active");
  assert.equal(after.charges[0]!.status, "paid");
  assert.ok((await eventsOf(t, sub.id)).some((e) => e.type === "subscription.activated"));
});

test("Pix: pending_activation with the QR code, active once paid; boleto likewise", async () => {
  const sub = await subscribe(t, m.sandboxKey, { planId: plan.id, paymentMethod: { type: "pix" } });
  assert.equal(sub.status, "pending_activation");
  const chargeId = sub.charges[0]!.chargeId;
  const charge = (await call(t, m.sandboxKey, "GET", `/v1/charges/${chargeId}`)).json();
  assert.match(charge.paymentDetails.qrCode, /^000201/);
  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/sandbox/charges/${chargeId}/pay`), 200);
  assert.equal((await getSub(t, m.sandboxKey, sub.id)).status, "active");

  const boleto = await subscribe(t, m.sandboxKey, { planId: plan.id, paymentMethod: { type: "boleto" } });
  assert.equal(boleto.status, "pending_activation");
  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/sandbox/charges/${boleto.charges[0]!.chargeId}/pay`), 200);
  assert.equal((await getSub(t, m.sandboxKey, boleto.id)).status, "active");
});

test("a saved card (cardId) of the customer can pay; another customer's is refused", async () => {
  const first = await subscribe(t, m.sandboxKey, { planId: plan.id });
  const again = await subscribe(t, m.sandboxKey, { planId: plan.id, customer: { id: first.customerId }, paymentMethod: { type: "credit_card", cardId: first.paymentMethod.cardId } });
  assert.equal(again.status, "active");
  assert.equal(again.paymentMethod.cardId, first.paymentMethod.cardId);
  const other = (await call(t, m.sandboxKey, "POST", "/v1/customers", { name: "Other", email: "o@example.com", documentId: "52998224725", documentType: "cpf" })).json();
  const res = await call(t, m.sandboxKey, "POST", "/v1/subscriptions", { planId: plan.id, customer: { id: other.id }, paymentMethod: { type: "credit_card", cardId: first.paymentMethod.cardId } });
  expectStatus(res, 422);
});

test("a trial starts active with no charge; the first charge comes when the trial ends", async () => {
  const trial = await createPlan(t, m.sandboxKey, { name: "Trial plan", trialDays: 7 });
  const sub = await subscribe(t, m.sandboxKey, { planId: trial.id });
  assert.equal(sub.status, "active");
  assert.equal(sub.charges.length, 0);
  assert.equal(sub.trialEnd, sub.currentPeriodEnd);
  assert.equal(Math.round((Date.parse(sub.trialEnd!) - Date.parse(sub.currentPeriodStart)) / 86_400_000), 7);
});

test("exactly once per Idempotency-Key: the same subscription and one charge", async () => {
  const headers = { "idempotency-key": "sub-once-1" };
  const body = { planId: plan.id, customer: { ...customer, email: "once@example.com" }, paymentMethod: card(CARDS.visa) };
  const [a, b] = await Promise.all([
    call(t, m.sandboxKey, "POST", "/v1/subscriptions", body, headers),
    call(t, m.sandboxKey, "POST", "/v1/subscriptions", body, headers),
  ]);
  expectStatus(a, 201);
  expectStatus(b, 201);
  assert.equal(a.json().id, b.json().id);
  const c = await call(t, m.sandboxKey, "POST", "/v1/subscriptions", body, headers);
  assert.equal(c.json().id, a.json().id);
  assert.equal(c.headers["idempotent-replayed"], "true");
  assert.equal((await getSub(t, m.sandboxKey, a.json().id)).charges.length, 1);
});

test("everything is checked before anything is written", async () => {
  const before = await rows();
  const archived = await createPlan(t, m.sandboxKey, { name: "Old" });
  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/plans/${archived.id}/archive`), 200);
  const usd = await createPlan(t, m.sandboxKey, { name: "USD", currency: "USD" });
  const weekly = await createPlan(t, m.sandboxKey, { name: "Weekly", interval: "week" });
  const bad: [unknown, number][] = [
    [{ planId: "plan_nope" }, 404],
    [{ planId: archived.id }, 409],
    [{ planId: usd.id, paymentMethod: { type: "pix" } }, 422],
    [{ planId: weekly.id, billingDay: 5 }, 422],
    [{ planId: plan.id, billingDay: 32 }, 422],
    [{ planId: plan.id, paymentMethod: card("4111111111111112") }, 422],
    [{ planId: plan.id, paymentMethod: card(CARDS.visa, { cvv: undefined }) }, 422],
    [{ planId: plan.id, paymentMethod: { type: "credit_card", cardId: "card_x" } }, 422],
    [{ planId: plan.id, customer: { name: "No contact" } }, 422],
    [{ planId: plan.id, customer: { ...customer, document: { type: "cpf", id: "111.111.111-12" } } }, 422],
    [{ planId: plan.id, paymentMethod: { type: "oxxo" } }, 422],
    [{ planId: plan.id, paymentMethod: "pix" }, 422],
    [{ planId: plan.id, split: [{ merchantId: m.id, percentage: 10 }] }, 422],
    [{ planId: plan.id, extra: 1 }, 422],
  ];
  for (const [body, status] of bad) {
    const res = await call(t, m.sandboxKey, "POST", "/v1/subscriptions", { customer, paymentMethod: card(CARDS.visa), ...(body as object) });
    assert.equal(res.statusCode, status, `${JSON.stringify(body)}: ${res.body}`);
    assert.ok(res.json().message);
  }
  assert.equal(await rows(), before);
});

test("production keys without a processor are refused before anything is written; 401 without a key", async () => {
  const live = await createPlan(t, m.productionKey);
  const res = await call(t, m.productionKey, "POST", "/v1/subscriptions", { planId: live.id, customer, paymentMethod: card(CARDS.visa) });
  expectStatus(res, 422);
  const anon = await t.app.inject({ method: "POST", url: "/v1/subscriptions", payload: { planId: plan.id } });
  expectStatus(anon, 401);
});

test("another merchant's subscription, plan or environment is 404", async () => {
  const other = await seedMerchant(t);
  const sub = await subscribe(t, m.sandboxKey, { planId: plan.id });
  expectStatus(await call(t, other.sandboxKey, "GET", `/v1/subscriptions/${sub.id}`), 404);
  expectStatus(await call(t, m.productionKey, "GET", `/v1/subscriptions/${sub.id}`), 404);
  expectStatus(await call(t, other.sandboxKey, "POST", `/v1/subscriptions/${sub.id}/cancel`, {}), 404);
  expectStatus(await call(t, other.sandboxKey, "POST", "/v1/subscriptions", { planId: plan.id, customer, paymentMethod: card(CARDS.visa) }), 404);
});

test("a client's metadata.subscriptionId is only metadata: paying such a charge neither activates nor touches the subscription", async () => {
  const sub = await subscribe(t, m.sandboxKey, { planId: plan.id, paymentMethod: { type: "pix" } });
  assert.equal(sub.status, "pending_activation");
  const own = await call(t, m.sandboxKey, "POST", "/v1/charges", {
    amount: 29.9, currency: "BRL", customer, paymentMethod: { type: "pix" }, metadata: { subscriptionId: sub.id, invoiceId: "inv_forged" },
  });
  expectStatus(own, 201);
  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/sandbox/charges/${own.json().id}/pay`), 200);
  const [row] = await t.database.db.select({ subscriptionId: charges.subscriptionId }).from(charges).where(eq(charges.id, own.json().id));
  assert.equal(row!.subscriptionId, null, "only the billing engine links a charge to a subscription");
  const after = await getSub(t, m.sandboxKey, sub.id);
  assert.equal(after.status, "pending_activation");
  assert.equal(after.charges.length, 1);
  assert.deepEqual((await eventsOf(t, sub.id)).map((e) => e.type), ["subscription.created"]);
});
