import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { LightMyRequestResponse } from "fastify";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { call, createPlan, eventsOf, getSub, subscribe, type Sub } from "./helpers.js";

// A sandbox Pix Automático subscription whose mandate's decision races the merchant's cancel or
// the payer's bank's other answer: the decision is one guarded transition (only one of approve and
// reject answers 200), locks are taken in one order (a cancel racing an approval deadlocked on
// PostgreSQL and answered 500), and cancelling a subscription not yet active ends its first QR,
// so that no payment is kept for a subscription that never started.
let t: TestApp;
let m: SeededMerchant;
before(async () => { t = await buildTestApp(); m = await seedMerchant(t); });
after(async () => t.close());

type Mandate = { id: string; status: string };
type PixSub = Sub & { mandate: Mandate; refunded: boolean; cancellationType: string | null };

const signUp = async (plan: { id: string }) => (await subscribe(t, m.sandboxKey, { planId: plan.id, paymentMethod: { type: "pix_automatico" } })) as PixSub;
const act = (mandateId: string, action: "approve" | "reject" | "cancel") => call(t, m.sandboxKey, "POST", `/v1/sandbox/mandates/${mandateId}/${action}`);
const cancelSub = (id: string) => call(t, m.sandboxKey, "POST", `/v1/subscriptions/${id}/cancel`, {});
const sub = async (id: string) => (await getSub(t, m.sandboxKey, id)) as PixSub;
const noServerError = (label: string, res: LightMyRequestResponse) => assert.ok(res.statusCode < 500, `${label}: ${res.statusCode} ${res.body}`);

/** A first payment kept by a cancelled subscription is one of a subscription that was active (paid, then cancelled). */
async function keptOnlyIfActive(s: PixSub) {
  const first = s.charges.find((c) => c.attempt === 1);
  if (first?.status !== "paid") return;
  const types = (await eventsOf(t, s.id)).map((e) => e.type);
  assert.ok(types.includes("subscription.activated"), `a first payment kept by a subscription that never started: ${types.join(",")}`);
}

test("cancelling a pending subscription ends its first QR: the charge fails (canceled), and approving after it pays nothing", async () => {
  const s = await signUp(await createPlan(t, m.sandboxKey));
  const res = await cancelSub(s.id);
  expectStatus(res, 200);
  assert.equal(res.json().status, "cancelled");
  const first = (await sub(s.id)).charges[0]!;
  assert.equal(first.status, "failed");
  assert.equal(first.reason, "canceled");
  assert.equal((await act(s.mandate.id, "approve")).statusCode, 409);
  assert.equal((await sub(s.id)).charges[0]!.status, "failed");
});

test("approve racing reject: one guarded decision, only one answers 200", async () => {
  const plan = await createPlan(t, m.sandboxKey);
  for (let i = 0; i < 6; i++) {
    const s = await signUp(plan);
    const [approved, rejected] = await Promise.all([act(s.mandate.id, "approve"), act(s.mandate.id, "reject")]);
    noServerError("approve", approved);
    noServerError("reject", rejected);
    assert.equal([approved, rejected].filter((r) => r.statusCode === 200).length, 1, `${approved.statusCode} ${rejected.statusCode}`);
    const after = await sub(s.id);
    assert.equal(after.mandate.status, approved.statusCode === 200 ? "active" : "rejected");
    assert.equal(after.status, approved.statusCode === 200 ? "active" : "pending_activation");
    const events = (await eventsOf(t, s.mandate.id)).map((e) => e.type);
    assert.equal(events.filter((e) => e === "mandate.activated" || e === "mandate.rejected").length, 1, events.join(","));
  }
});

test("the merchant's cancel racing the approval (journeys 2 and 3) or the payer's cancel never answers 500, and a cancelled subscription keeps no first payment", async () => {
  const plans = [await createPlan(t, m.sandboxKey), await createPlan(t, m.sandboxKey, { trialDays: 7 })];
  const subs: PixSub[] = [];
  for (let i = 0; i < 32; i++) subs.push(await signUp(plans[i % 2]!));
  // All at once: each pair's transactions overlap on PostgreSQL's connections (24 pairs answered 500 in 3 of 4 runs on the old lock order).
  const other = (s: PixSub, i: number) => (i % 3 === 2 ? act(s.mandate.id, "approve").then(() => act(s.mandate.id, "cancel")) : act(s.mandate.id, "approve"));
  const answers = await Promise.all(subs.map((s, i) => Promise.all([cancelSub(s.id), other(s, i)])));
  for (const [i, [cancelled, raced]] of answers.entries()) {
    noServerError("cancel", cancelled);
    noServerError("approve or payer cancel", raced);
    const after = await sub(subs[i]!.id);
    if (cancelled.statusCode === 200) assert.equal(after.mandate.status, "cancelled");
    if (after.status === "cancelled") await keptOnlyIfActive(after);
  }
});
