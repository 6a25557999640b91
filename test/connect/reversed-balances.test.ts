import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { methodCharge } from "../helpers/charges.js";
import { activate, admin, approveBySimulator, assertLedgerInvariants, balanceOf, call, createSubmerchant, decidedTransfer, FEES, keyOf, seedMaster } from "./helpers.js";

// Reversed balances never pay out: a refund that takes a submerchant's share back first draws on
// its pending payout requests (rejected with reason balance_reversed, payout.rejected, the
// reserve released, newest first) before its available balance may go below zero; while it is
// below zero no payout can be requested. The chargeback path is in test/payouts/live-payouts.

interface Sub { id: string; key: string }

// One app and one master for the file: each test makes its own submerchant.
let t: TestApp;
let master: SeededMerchant;
before(async () => { t = await buildTestApp(); master = await seedMaster(t, FEES); });
after(() => t.close());

async function activeSubmerchant(): Promise<Sub> {
  const sm = await createSubmerchant(t, master.sandboxKey);
  await activate(t, master.sandboxKey, sm.id);
  return { id: sm.id, key: await keyOf(t, master.sandboxKey, sm.id) };
}

/** A paid Pix charge of R$ 100 (net 9900) by `key`, `split` given; every owner's rows settled. */
async function paidPix(key: string, split: unknown[] = [], settle: Sub[] = []): Promise<string> {
  const c = await call(t, "POST", "/v1/charges", key, methodCharge({ type: "pix" }, { amount: 100, ...(split.length ? { split } : {}) }));
  expectStatus(c, 201);
  expectStatus(await call(t, "POST", `/v1/sandbox/charges/${c.json().id}/pay`, key), 200);
  for (const k of [key, ...settle.map((s) => s.key)]) expectStatus(await call(t, "POST", "/v1/sandbox/settle", k), 200);
  return c.json().id as string;
}

/** The master's charge with half of its net (4950 cents) to `sub`, settled. */
const shareWith = (sub: Sub) => paidPix(master.sandboxKey, [{ merchantId: sub.id, percentage: 50 }], [sub]);

const requestPayout = (sub: Sub, amount: number) => call(t, "POST", `/v1/submerchants/${sub.id}/payout-requests`, sub.key, { amount });
async function payout(sub: Sub, amount: number): Promise<string> {
  const res = await requestPayout(sub, amount);
  expectStatus(res, 201);
  return res.json().id as string;
}
async function payoutOf(sub: Sub, id: string): Promise<{ status: string; reason: string | null }> {
  const res = await call(t, "GET", `/v1/payout-requests/${id}`, sub.key);
  expectStatus(res, 200);
  return res.json();
}
async function assertReversed(sub: Sub, id: string): Promise<void> {
  const p = await payoutOf(sub, id);
  assert.deepEqual({ status: p.status, reason: p.reason }, { status: "rejected", reason: "balance_reversed" }, id);
}
async function rejectedEvents(sub: Sub): Promise<string[]> {
  const res = await call(t, "GET", "/v1/events?type=payout.rejected&limit=100", sub.key);
  expectStatus(res, 200);
  return (res.json().data as { objectId: string }[]).map((e) => e.objectId).sort();
}
const refundAll = async (chargeId: string) => expectStatus(await call(t, "POST", `/v1/charges/${chargeId}/refund`, master.sandboxKey), 201);

test("a master's full refund draws on the submerchant's pending payouts, newest first, only as far as needed: rejected with balance_reversed and payout.rejected, the balance not below zero", async () => {
  const sub = await activeSubmerchant();
  const shared = await shareWith(sub);
  await paidPix(sub.key); // the submerchant's own sale: 9900
  assert.equal((await balanceOf(t, sub.key)).available, 4950 + 9900);
  const oldest = await payout(sub, 5500);
  const middle = await payout(sub, 6000);
  const newest = await payout(sub, 2500);
  assert.equal((await balanceOf(t, sub.key)).available, 850);

  await refundAll(shared);
  // 850 - 4950 = -4100: the newest (2500) and then the middle one (6000) cover it; the oldest stays.
  for (const id of [newest, middle]) await assertReversed(sub, id);
  assert.equal((await payoutOf(sub, oldest)).status, "pending");
  assert.equal((await balanceOf(t, sub.key)).available, 850 - 4950 + 2500 + 6000);
  assert.deepEqual(await rejectedEvents(sub), [middle, newest].sort());
  await assertLedgerInvariants(t);
});

test("when the pending payouts cannot cover it (one was approved already) the balance goes below zero, and a payout request is then a 422 naming the balance", async () => {
  const sub = await activeSubmerchant();
  const shared = await shareWith(sub);
  assert.equal((await approveBySimulator(t, await payout(sub, 4000), sub.id)).status, "approved");
  const pending = await payout(sub, 500);

  await refundAll(shared);
  await assertReversed(sub, pending);
  assert.deepEqual(await rejectedEvents(sub), [pending]);
  assert.equal((await balanceOf(t, sub.key)).available, 4950 - 4000 - 4950);

  const refused = await requestPayout(sub, 1000);
  expectStatus(refused, 422);
  assert.match(refused.json().message, /available balance of submerchant \S+ is -4000 cents, below zero/, refused.body);
  assert.equal((await balanceOf(t, sub.key)).available, -4000, "the refused request reserved nothing");
  await assertLedgerInvariants(t);
});

test("payout requests racing the refund: each is reserved before it and then rejected, or refused after it; no payout stays pending on a reversed balance", async () => {
  const sub = await activeSubmerchant();
  const shared = await shareWith(sub);
  const first = await payout(sub, 900);
  const [refund, ...requests] = await Promise.all([
    call(t, "POST", `/v1/charges/${shared}/refund`, master.sandboxKey),
    ...Array.from({ length: 4 }, () => requestPayout(sub, 900)),
  ]);
  expectStatus(refund!, 201);
  assert.ok(requests.every((r) => r.statusCode === 201 || r.statusCode === 422), requests.map((r) => r.body).join("\n"));
  const made = [first, ...requests.filter((r) => r.statusCode === 201).map((r) => r.json().id as string)];
  for (const id of made) await assertReversed(sub, id);
  assert.deepEqual(await rejectedEvents(sub), made.sort());
  assert.equal((await balanceOf(t, sub.key)).available, 0);
  await assertLedgerInvariants(t);
});

test("an approval racing the refund: one of the two decides the payout (approved, the balance below zero; or rejected, the approval a 409), never both", async () => {
  const sub = await activeSubmerchant();
  const shared = await shareWith(sub);
  const p = await payout(sub, 3000);
  const [refund, approval] = await Promise.all([
    call(t, "POST", `/v1/charges/${shared}/refund`, master.sandboxKey),
    admin(t, "POST", `/v1/admin/payout-requests/${p}/approve`),
  ]);
  expectStatus(refund!, 201);
  // 202: the simulator's transfer was started first, and its end decides the payout.
  const now = approval!.statusCode === 202 ? await decidedTransfer(t, p, sub.id) : await payoutOf(sub, p);
  if (approval!.statusCode === 202) {
    assert.equal(now.status, "approved");
    assert.deepEqual(await rejectedEvents(sub), []);
    assert.equal((await balanceOf(t, sub.key)).available, 4950 - 3000 - 4950);
    const refused = await requestPayout(sub, 1000);
    expectStatus(refused, 422);
    assert.match(refused.json().message, /is -3000 cents, below zero/, refused.body);
  } else {
    expectStatus(approval!, 409);
    await assertReversed(sub, p);
    assert.deepEqual(await rejectedEvents(sub), [p]);
    assert.equal((await balanceOf(t, sub.key)).available, 0);
  }
  await assertLedgerInvariants(t);
});
