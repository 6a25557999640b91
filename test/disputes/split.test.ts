// A dispute of a split charge takes each owner's part as a refund would (the recipients their
// share, the originator the rest), through the reversal steps: a submerchant left below zero has
// its pending payout requests rejected (balance_reversed). Won, each owner gets back its own part.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { methodCharge } from "../helpers/charges.js";
import { activate, assertLedgerInvariants, balanceOf, call, createSubmerchant, FEES, keyOf, seedMaster } from "../connect/helpers.js";
import { closeDispute, openDispute, sendEvidence } from "./helpers.js";

let t: TestApp;
let master: SeededMerchant;
before(async () => { t = await buildTestApp(); master = await seedMaster(t, FEES); });
after(() => t.close());

test("a split Pix disputed: the submerchant's share leaves, its pending payout is rejected; won, every part comes back", async () => {
  const sm = await createSubmerchant(t, master.sandboxKey);
  await activate(t, master.sandboxKey, sm.id);
  const subKey = await keyOf(t, master.sandboxKey, sm.id);
  // R$ 100 by Pix (net 9900), half of the net to the submerchant, settled for both.
  const c = await call(t, "POST", "/v1/charges", master.sandboxKey, methodCharge({ type: "pix" }, { amount: 100, split: [{ merchantId: sm.id, percentage: 50 }] }));
  expectStatus(c, 201);
  const chargeId = c.json().id as string;
  expectStatus(await call(t, "POST", `/v1/sandbox/charges/${chargeId}/pay`, master.sandboxKey), 200);
  for (const key of [master.sandboxKey, subKey]) expectStatus(await call(t, "POST", "/v1/sandbox/settle", key), 200);
  const payout = await call(t, "POST", `/v1/submerchants/${sm.id}/payout-requests`, subKey, { amount: 4000 });
  expectStatus(payout, 201);
  const masterBefore = await balanceOf(t, master.sandboxKey);
  assert.deepEqual(await balanceOf(t, subKey), { available: 950, pending: 0 });

  const d = await openDispute(t, master.sandboxKey, chargeId);
  assert.equal(d.kind, "pix_med");
  // The submerchant gives its 4950: 950 available, then its pending payout's 4000 released.
  const rejected = await call(t, "GET", `/v1/payout-requests/${payout.json().id}`, subKey);
  assert.deepEqual([rejected.json().status, rejected.json().reason], ["rejected", "balance_reversed"]);
  assert.deepEqual(await balanceOf(t, subKey), { available: 0, pending: 0 });
  // The master gives the rest of the gross: 10000 - 4950 (the fees are kept).
  assert.equal((await balanceOf(t, master.sandboxKey)).available, masterBefore.available - 5050);
  await assertLedgerInvariants(t);

  expectStatus(await sendEvidence(t, master.sandboxKey, d.id, [{ field: "text", content: "The payer received the order." }]), 200);
  expectStatus(await closeDispute(t, master.sandboxKey, d.id, "won"), 200);
  assert.deepEqual(await balanceOf(t, subKey), { available: 4950, pending: 0 });
  assert.equal((await balanceOf(t, master.sandboxKey)).available, masterBefore.available);
  await assertLedgerInvariants(t);
});
