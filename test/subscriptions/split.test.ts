import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { buildTestApp, expectStatus, seedMerchant, type TestApp } from "../helpers/app.js";
import { activate, createSubmerchant, seedMaster } from "../connect/helpers.js";
import { advance, call, createPlan, customer, card, CARDS, getSub, subscribe } from "./helpers.js";

// Connect: a subscription's split travels with every period's charge, checked by the charge
// path's own Connect rules when the subscription is created.
let t: TestApp;
before(async () => { t = await buildTestApp(); });
after(async () => t.close());

test("every period's charge carries the subscription's split", async () => {
  const master = await seedMaster(t);
  const seller = await createSubmerchant(t, master.sandboxKey);
  await activate(t, master.sandboxKey, seller.id);
  const plan = await createPlan(t, master.sandboxKey);
  const split = [{ merchantId: seller.id, percentage: 30 }];
  const sub = await subscribe(t, master.sandboxKey, { planId: plan.id, split });
  await advance(t, master.sandboxKey, 65);
  const now = await getSub(t, master.sandboxKey, sub.id);
  assert.equal(now.charges.length, 3);
  for (const c of now.charges) {
    const charge = (await call(t, master.sandboxKey, "GET", `/v1/charges/${c.chargeId}`)).json();
    assert.equal(charge.status, "paid");
    assert.deepEqual(charge.split, split);
  }
});

test("a split outside the merchant's Connect is refused before anything is written", async () => {
  const master = await seedMaster(t);
  const stranger = await seedMerchant(t);
  const plan = await createPlan(t, master.sandboxKey);
  const res = await call(t, master.sandboxKey, "POST", "/v1/subscriptions", {
    planId: plan.id, customer, paymentMethod: card(CARDS.visa), split: [{ merchantId: stranger.id, percentage: 10 }],
  });
  expectStatus(res, 422);
  assert.match(res.json().message, /split\.0\.merchantId/);
  assert.equal((await call(t, master.sandboxKey, "GET", "/v1/subscriptions")).json().meta.total, 0);
});
