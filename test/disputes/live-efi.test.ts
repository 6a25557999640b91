import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { efiIds } from "../../src/processors/efi/client.js";
import { expectStatus, seedMerchant } from "../helpers/app.js";
import { createCharge, get, methodCharge } from "../helpers/charges.js";
import { assertLedgerInvariants } from "../connect/helpers.js";
import { efiPix, startEfiWorld, type EfiWorld } from "../processors/live-efi-shared.js";
import {
  balanceOf, chargeRow, disputeTrail, disputeTransactions, eventCount, pixCustomer, runTask,
} from "../processors/live-shared.js";
import { disputesOfCharge, sendEvidence } from "./helpers.js";
// topology: skip: every app stays in-process: Efí probes PUBLIC_BASE_URL at registration, and the test's own listening app is that URL

// Efí's MED as disputes, over HTTP and mutual TLS against the Efí fake: a devolução of nature
// MED_FRAUDE or MED_OPERACIONAL read with its cob, with no infraction listed for its Pix
// (infractions: live-efi-med.test.ts), (after the notice naming it) is a lost pix_med
// dispute of its amount, one per devolução: the money goes back to the payer as a Pix refund
// (the charge refunded once nothing is left), once, however the notices repeat or reorder.

let w: EfiWorld;
before(async () => { w = await startEfiWorld(); });
after(async () => { await w.close(); });

async function paidPix(key = w.key) {
  const c = await createCharge(w.t, key, methodCharge({ type: "pix" }, { customer: pixCustomer }));
  const txid = efiIds.txid(c.id);
  w.efi.pay(txid);
  await w.efi.flushWebhooks();
  return { id: c.id, e2eid: String(w.efi.ctx.cobs.get(txid)!.pix![0]!.endToEndId) };
}

const disputesOf = (chargeId: string, key = w.key) => disputesOfCharge(w.t, key, chargeId);

test("a MED_FRAUDE devolução is a lost pix_med: refunded to the payer once, no chargeback; evidence for it is a 422 (decided already)", async () => {
  const c = await paidPix();
  const before = await balanceOf(w);
  w.efi.setWebhookFault("duplicate", 1);
  assert.equal(typeof w.efi.med(c.e2eid, { natureza: "MED_FRAUDE" }), "object");
  await w.efi.flushWebhooks();
  await runTask(w, "charges.reconcile-live");

  const list = await disputesOf(c.id);
  assert.equal(list.length, 1);
  const d = list[0]!;
  assert.deepEqual([d.kind, d.status, d.reason, d.amount], ["pix_med", "lost", "fraud", 50.5]);
  const row = await chargeRow(w, c.id);
  assert.deepEqual([row.status, row.amountRefunded], ["refunded", 5050]);
  // A Pix refund to the payer, not a chargeback: refunded, no charge.disputed, one hold.
  assert.deepEqual(await disputeTrail(w, c.id, d.id), { created: 1, closed: 1, disputed: 0, refunded: 1, holds: 1, chargebacks: 0 });
  assert.equal(await balanceOf(w), before - 5050);

  const evidence = await sendEvidence(w.t, w.key, d.id, [{ field: "text", content: "The payer received the goods." }]);
  expectStatus(evidence, 422);
  assert.match(evidence.json().message, /is lost; evidence is accepted once, while it needs_response/);
  await assertLedgerInvariants(w.t);
});

test("two partial MEDs are two lost disputes of their amounts: the charge stays paid after the first and is refunded after the second", async () => {
  const c = await paidPix();
  const before = await balanceOf(w);
  w.efi.med(c.e2eid, { natureza: "MED_OPERACIONAL", valor: "20.00" });
  await w.efi.flushWebhooks();
  const [first] = await disputesOf(c.id);
  assert.deepEqual([first?.status, first?.reason, first?.amount], ["lost", "operational_failure", 20]);
  assert.deepEqual([(await chargeRow(w, c.id)).status, (await chargeRow(w, c.id)).amountRefunded], ["paid", 2000]);

  w.efi.med(c.e2eid, { natureza: "MED_FRAUDE" });
  await w.efi.flushWebhooks();
  await runTask(w, "charges.reconcile-live");
  const all = await disputesOf(c.id);
  assert.deepEqual(all.map((d) => [d.status, d.amount]).sort(), [["lost", 20], ["lost", 30.5]]);
  assert.deepEqual([(await chargeRow(w, c.id)).status, (await chargeRow(w, c.id)).amountRefunded], ["refunded", 5050]);
  assert.equal(await disputeTransactions(w, c.id), 2);
  assert.equal(await balanceOf(w), before - 5050);
  await assertLedgerInvariants(w.t);
});

test("a MED read before feira knew the payment (its notice dropped): paid, then returned, each once", async () => {
  const c = await efiPix(w);
  w.efi.setWebhookFault("drop", 1);
  w.efi.pay(c.txid);
  await w.efi.flushWebhooks();
  assert.equal((await chargeRow(w, c.id)).status, "pending", "the payment's notice was dropped");
  w.efi.med(String(w.efi.ctx.cobs.get(c.txid)!.pix![0]!.endToEndId), { natureza: "MED_FRAUDE" });
  await w.efi.flushWebhooks();
  assert.equal((await chargeRow(w, c.id)).status, "refunded");
  assert.equal(await eventCount(w, c.id, "charge.paid"), 1);
  assert.equal((await disputesOf(c.id)).length, 1);
  assert.equal(await disputeTransactions(w, c.id), 1);
  await assertLedgerInvariants(w.t);
});

test("another merchant's MED changes nothing of this merchant's", async () => {
  const other = await seedMerchant(w.t);
  const theirs = await paidPix(other.productionKey);
  const before = await balanceOf(w);
  const mine = (await get(w.t, w.key, "/v1/disputes")).json().meta.total as number;
  w.efi.med(theirs.e2eid, { natureza: "MED_FRAUDE" });
  await w.efi.flushWebhooks();
  assert.equal((await disputesOf(theirs.id, other.productionKey))[0]?.status, "lost");
  assert.equal((await get(w.t, w.key, "/v1/disputes")).json().meta.total, mine);
  assert.equal(await balanceOf(w), before);
});
