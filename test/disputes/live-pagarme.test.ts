import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { expectStatus, seedMerchant } from "../helpers/app.js";
import { cardCharge, createCharge, get, post } from "../helpers/charges.js";
import { assertLedgerInvariants } from "../connect/helpers.js";
import {
  balanceOf, chargeRow, disputeTrail, runTask, startLiveWorld, type LiveWorld,
} from "../processors/live-shared.js";
import { disputesOfCharge, sendEvidence } from "./helpers.js";

// Pagar.me's chargedback as a dispute, over HTTP against the fake: the charge read (by its notice
// or reconciliation) opens a dispute already lost, whose hold is the chargeback (the charge
// becomes charged_back through the dispute path, with no second ledger move); evidence is
// answered in Pagar.me's dashboard, which the evidence route says.

let w: LiveWorld;
before(async () => { w = await startLiveWorld(); });
after(async () => { await w.close(); });

const CARD = "4000000000000010";
const PDF = { field: "files", filename: "receipt.pdf", contentType: "application/pdf", content: Buffer.from("%PDF-1.4\n%%EOF\n") };

const disputesOf = (chargeId: string, key = w.key) => disputesOfCharge(w.t, key, chargeId);

test("a chargedback notice opens a dispute already lost: charged_back through the dispute, one hold, events once; evidence is a 422 naming Pagar.me's dashboard", async () => {
  const card = await createCharge(w.t, w.key, cardCharge(CARD));
  const paid = await chargeRow(w, card.id);
  await w.pagarme.flushWebhooks();
  const before = await balanceOf(w);

  w.pagarme.setWebhookFault("duplicate", 1);
  w.pagarme.chargeback(paid.pspRefId!);
  await w.pagarme.flushWebhooks();
  // Read again by reconciliation and by another notice.
  await runTask(w, "charges.reconcile-live");
  expectStatus(await w.t.app.inject({ method: "POST", url: "/v1/processors/pagarme/webhooks", payload: { type: "charge.chargedback", data: { id: paid.pspRefId } } }), 200);

  const list = await disputesOf(card.id);
  assert.equal(list.length, 1);
  const d = list[0]!;
  assert.deepEqual([d.kind, d.status, d.amount, d.reason], ["chargeback", "lost", 100, "chargeback"]);
  assert.ok(d.closedAt);
  assert.equal((await chargeRow(w, card.id)).status, "charged_back");
  // The lost dispute's hold is the chargeback: no chargeback posting of its own.
  assert.deepEqual(await disputeTrail(w, card.id, d.id), { created: 1, closed: 1, disputed: 1, refunded: 0, holds: 1, chargebacks: 0 });
  assert.equal(await balanceOf(w), before - 10000);

  const evidence = await sendEvidence(w.t, w.key, d.id, [{ field: "text", content: "Delivered." }, PDF]);
  expectStatus(evidence, 422);
  assert.match(evidence.json().message, /answered in Pagar\.me's own dashboard/);
  await assertLedgerInvariants(w.t);
});

test("a partially refunded charge's chargeback is a lost dispute of what was still paid", async () => {
  const card = await createCharge(w.t, w.key, cardCharge(CARD, { amount: 100 }));
  expectStatus(await post(w.t, w.key, `/v1/charges/${card.id}/refund`, { amount: 30 }), 201);
  const paid = await chargeRow(w, card.id);
  await w.pagarme.flushWebhooks();
  w.pagarme.chargeback(paid.pspRefId!);
  await w.pagarme.flushWebhooks();
  const [d] = await disputesOf(card.id);
  assert.deepEqual([d?.status, d?.amount], ["lost", 70]);
  assert.equal((await chargeRow(w, card.id)).status, "charged_back");
  await assertLedgerInvariants(w.t);
});

test("another merchant's chargeback changes nothing of this merchant's", async () => {
  const other = await seedMerchant(w.t);
  const theirs = await createCharge(w.t, other.productionKey, cardCharge(CARD, { amount: 40 }));
  await w.pagarme.flushWebhooks();
  const before = await balanceOf(w);
  const mine = (await get(w.t, w.key, "/v1/disputes")).json().meta.total as number;
  w.pagarme.chargeback((await chargeRow({ t: w.t, merchantId: other.id }, theirs.id)).pspRefId!);
  await w.pagarme.flushWebhooks();
  assert.equal((await disputesOf(theirs.id, other.productionKey))[0]?.status, "lost");
  assert.equal((await get(w.t, w.key, "/v1/disputes")).json().meta.total, mine);
  assert.equal(await balanceOf(w), before);
});
