import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { expectStatus, seedMerchant } from "../helpers/app.js";
import { cardCharge, createCharge, get } from "../helpers/charges.js";
import { assertLedgerInvariants } from "../connect/helpers.js";
import { balanceOf, chargeRow, eventCount, ledgerTransactions, runTask, startLiveWorld, type LiveWorld } from "../processors/live-shared.js";
import { disputesOfCharge, getDispute, sendEvidence } from "./helpers.js";

// Mercado Pago's chargebacks as disputes, over HTTP against the fake: the `chargebacks` notice is
// read back (GET /v1/chargebacks/{id}) and opens the dispute with its deadline and hold; evidence
// goes to POST /v1/chargebacks/{id}/documentation; the decision's notice closes it. Each money
// move happens once whatever the order and repetition of notices, and the payment's own
// charged_back moves nothing by itself.

let w: LiveWorld;
before(async () => { w = await startLiveWorld({ credit_card: ["mercadopago"], pix: ["mercadopago"] }); });
after(async () => { await w.close(); });

const PDF = Buffer.from("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n");
const pdf = { field: "files", filename: "receipt.pdf", contentType: "application/pdf", content: PDF };

async function paidCard(amount = 100) {
  const c = await createCharge(w.t, w.key, cardCharge("4235647728025682", { amount }, { holderName: "APRO" }));
  assert.equal(c.status, "paid");
  await w.mercadopago.flushWebhooks();
  return { id: c.id, ref: Number((await chargeRow(w, c.id)).pspRefId) };
}

const disputesOf = (chargeId: string, key = w.key) => disputesOfCharge(w.t, key, chargeId);

/** The chargeback the fake opened for a payment. */
const chargebackOf = (paymentId: number) => [...w.mercadopago.chargebacks.values()].find((cb) => (cb.payments as number[])[0] === paymentId)!;

/** A signed notice of Mercado Pago, as its webhooks send one. */
async function notice(dataId: string, type: "payment" | "chargebacks") {
  const requestId = randomUUID();
  const ts = String(Date.now());
  return w.t.app.inject({
    method: "POST", url: `/v1/processors/mercadopago/webhooks?data.id=${dataId}&type=${type}`,
    headers: { "x-signature": `ts=${ts},v1=${w.mercadopago.sign(dataId, requestId, ts)}`, "x-request-id": requestId },
    payload: { type, action: "updated", data: { id: dataId } },
  });
}

test("a chargeback notice opens a dispute with Mercado Pago's deadline; evidence goes to the provider; won gives the money back once", async () => {
  const start = await balanceOf(w);
  const c = await paidCard();
  const paid = await balanceOf(w);
  w.mercadopago.chargeback(c.ref);
  await w.mercadopago.flushWebhooks();

  const [d] = await disputesOf(c.id);
  const cb = chargebackOf(c.ref);
  assert.ok(d, "the chargebacks notice opened a dispute");
  assert.deepEqual([d.kind, d.status, d.amount, d.reason], ["chargeback", "needs_response", 100, "fraud"]);
  assert.equal(new Date(d.evidenceDueBy).getTime(), new Date(String(cb.date_documentation_deadline)).getTime());
  assert.equal((await chargeRow(w, c.id)).status, "paid", "the payment's charged_back moved nothing by itself");
  assert.equal(await balanceOf(w), paid - 10000, "the disputed amount is held");
  assert.equal(await eventCount(w, c.id, "charge.disputed"), 0);

  // No files: Mercado Pago takes files only; refused before any call.
  const bare = await sendEvidence(w.t, w.key, d.id, [{ field: "text", content: "Delivered." }]);
  expectStatus(bare, 422);
  assert.match(bare.json().message, /Mercado Pago.*files/);
  assert.equal(w.mercadopago.chargebackUploads(String(cb.id)).length, 0);

  const sent = await sendEvidence(w.t, w.key, d.id, [{ field: "text", content: "Delivered and signed for." }, pdf]);
  expectStatus(sent, 200);
  assert.equal(sent.json().status, "under_review");
  assert.deepEqual(w.mercadopago.chargebackUploads(String(cb.id)).map((u) => u.map((f) => [f.name, f.type])), [[["receipt.pdf", "application/pdf"]]]);
  expectStatus(await sendEvidence(w.t, w.key, d.id, [{ field: "text", content: "Again." }, pdf]), 422);
  await w.mercadopago.flushWebhooks();

  w.mercadopago.setWebhookFault("duplicate", 1);
  assert.equal(typeof w.mercadopago.decideChargeback(String(cb.id), "won"), "object");
  await w.mercadopago.flushWebhooks();
  assert.equal((await getDispute(w.t, w.key, d.id)).status, "won");
  // Read again: by a repeated notice and by reconciliation.
  expectStatus(await notice(String(cb.id), "chargebacks"), 200);
  expectStatus(await notice(String(c.ref), "payment"), 200);
  await runTask(w, "charges.reconcile-live");
  assert.equal((await chargeRow(w, c.id)).status, "paid");
  assert.equal(await balanceOf(w), paid, "won: the hold came back");
  assert.equal(await ledgerTransactions(w, d.id, "dispute"), 1);
  assert.equal(await ledgerTransactions(w, d.id, "dispute_won"), 1);
  assert.equal(await ledgerTransactions(w, c.id, "chargeback"), 0);
  assert.ok(paid > start);
  await assertLedgerInvariants(w.t);
});

test("out of order and repeated: the payment's charged_back notice after the dispute, then a lost decision: charged_back once, nothing taken twice", async () => {
  const c = await paidCard(80);
  const paid = await balanceOf(w);
  // The payment's notice is lost; the chargeback's arrives.
  w.mercadopago.setWebhookFault("drop", 1);
  w.mercadopago.chargeback(c.ref);
  await w.mercadopago.flushWebhooks();
  const [d] = await disputesOf(c.id);
  assert.equal(d?.status, "needs_response");
  const cb = chargebackOf(c.ref);
  // The chargeback's notice again, then the payment's, late.
  expectStatus(await notice(String(cb.id), "chargebacks"), 200);
  expectStatus(await notice(String(c.ref), "payment"), 200);
  assert.equal((await disputesOf(c.id)).length, 1);
  assert.equal((await chargeRow(w, c.id)).status, "paid");
  assert.equal(await balanceOf(w), paid - 8000);

  w.mercadopago.decideChargeback(String(cb.id), "lost");
  await w.mercadopago.flushWebhooks();
  expectStatus(await notice(String(cb.id), "chargebacks"), 200);
  await runTask(w, "charges.reconcile-live");
  assert.equal((await getDispute(w.t, w.key, d!.id)).status, "lost");
  assert.equal((await chargeRow(w, c.id)).status, "charged_back");
  assert.equal(await eventCount(w, c.id, "charge.disputed"), 1);
  assert.equal(await eventCount(w, d!.id, "charge.dispute.closed"), 1);
  assert.equal(await ledgerTransactions(w, d!.id, "dispute"), 1);
  assert.equal(await ledgerTransactions(w, c.id, "chargeback"), 0, "the dispute's hold was the chargeback");
  assert.equal(await balanceOf(w), paid - 8000);
  await assertLedgerInvariants(w.t);
});

test("Mercado Pago's refusal of the evidence is a 422 that leaves the dispute needs_response; an unknown chargeback changes nothing", async () => {
  const c = await paidCard(50);
  w.mercadopago.chargeback(c.ref);
  await w.mercadopago.flushWebhooks();
  const [d] = await disputesOf(c.id);
  // Documentation already sent through Mercado Pago's own dashboard: its API refuses another.
  chargebackOf(c.ref).documentation_status = "review_pending";
  const refused = await sendEvidence(w.t, w.key, d!.id, [{ field: "text", content: "Delivered." }, pdf]);
  expectStatus(refused, 422);
  assert.match(refused.json().message, /Mercado Pago refused the evidence/);
  const after = await getDispute(w.t, w.key, d!.id);
  assert.deepEqual([after.status, after.evidence], ["needs_response", null]);

  const before = await balanceOf(w);
  expectStatus(await notice("999999999", "chargebacks"), 200);
  assert.equal(await balanceOf(w), before);
});

test("evidence whose upload notice is read back first is still recorded: 200, under_review once", async () => {
  const c = await paidCard(60);
  w.mercadopago.chargeback(c.ref);
  await w.mercadopago.flushWebhooks();
  const [d] = await disputesOf(c.id);
  // The upload's notice reaches feira, and is read back (review_pending: under_review), before
  // Mercado Pago answers the upload.
  w.mercadopago.announceUploadsFirst(true);
  try {
    const sent = await sendEvidence(w.t, w.key, d!.id, [{ field: "text", content: "Delivered to the buyer." }, pdf]);
    expectStatus(sent, 200);
    const after = await getDispute(w.t, w.key, d!.id);
    assert.equal(after.status, "under_review");
    assert.equal((after.evidence as { text: string } | null)?.text, "Delivered to the buyer.");
    assert.ok(after.submittedAt);
    assert.equal(await eventCount(w, d!.id, "charge.dispute.updated"), 1);
    expectStatus(await sendEvidence(w.t, w.key, d!.id, [{ field: "text", content: "Again." }, pdf]), 422);
  } finally {
    w.mercadopago.announceUploadsFirst(false);
  }
});

test("evidence the input guard refuses never reaches Mercado Pago; evidence it takes is recorded after one upload", async () => {
  const c = await paidCard(40);
  w.mercadopago.chargeback(c.ref);
  await w.mercadopago.flushWebhooks();
  const [d] = await disputesOf(c.id);
  const cb = String(chargebackOf(c.ref).id);
  // Before issue 46 item 14 the NUL reached PostgreSQL after the upload: a 500, the files at
  // Mercado Pago and nothing recorded here.
  for (const parts of [
    [{ field: "text", content: "Deliv\u0000ered." }, pdf],
    [{ field: "text", content: "Paid with 4111 1111 1111 1111." }, pdf],
    [{ field: "text", content: "Delivered." }, { ...pdf, filename: "4111111111111111.pdf" }],
  ]) {
    const refused = await sendEvidence(w.t, w.key, d!.id, parts);
    expectStatus(refused, 422);
  }
  assert.equal(w.mercadopago.chargebackUploads(cb).length, 0, "nothing reached Mercado Pago");
  const sent = await sendEvidence(w.t, w.key, d!.id, [{ field: "text", content: "Delivered and signed for by the buyer." }, pdf]);
  expectStatus(sent, 200);
  const after = await getDispute(w.t, w.key, d!.id);
  assert.equal(after.status, "under_review");
  assert.equal(after.evidence?.text, "Delivered and signed for by the buyer.");
  assert.deepEqual(after.evidence?.files.map((f) => f.name), ["receipt.pdf"]);
  assert.equal(w.mercadopago.chargebackUploads(cb).length, 1, "one upload");
});

test("a chargeback of another merchant's payment opens that merchant's dispute and changes nothing of this one's", async () => {
  const other = await seedMerchant(w.t);
  const theirs = await createCharge(w.t, other.productionKey, cardCharge("4235647728025682", { amount: 70 }, { holderName: "APRO" }));
  await w.mercadopago.flushWebhooks();
  const before = await balanceOf(w);
  const mine = (await get(w.t, w.key, "/v1/disputes?limit=100")).json().meta.total as number;
  w.mercadopago.chargeback([...w.mercadopago.payments.values()].find((p) => p.external_reference === theirs.id)!.id);
  await w.mercadopago.flushWebhooks();
  assert.equal((await disputesOf(theirs.id, other.productionKey)).length, 1);
  assert.equal((await get(w.t, w.key, "/v1/disputes?limit=100")).json().meta.total, mine);
  assert.equal(await balanceOf(w), before);
  expectStatus(await get(w.t, w.key, `/v1/disputes/${(await disputesOf(theirs.id, other.productionKey))[0]!.id}`), 404);
});

test("a decision whose notice is lost is found by the disputes' reconciliation", async () => {
  const c = await paidCard(60);
  const paid = await balanceOf(w);
  w.mercadopago.chargeback(c.ref);
  await w.mercadopago.flushWebhooks();
  const [d] = await disputesOf(c.id);
  w.mercadopago.setWebhookFault("drop", 1);
  w.mercadopago.decideChargeback(String(chargebackOf(c.ref).id), "lost");
  await w.mercadopago.flushWebhooks();
  assert.equal((await getDispute(w.t, w.key, d!.id)).status, "needs_response", "the notice was dropped");
  const reconcile = w.t.services.modules.disputes.tasks.find((k) => k.name === "disputes.reconcile-live")!;
  // Open disputes are read 50 a round from where the last stopped: a few rounds reach this one.
  for (let i = 0; i < 10 && (await getDispute(w.t, w.key, d!.id)).status === "needs_response"; i++) await reconcile.run();
  assert.equal((await getDispute(w.t, w.key, d!.id)).status, "lost");
  assert.equal((await chargeRow(w, c.id)).status, "charged_back");
  await reconcile.run();
  assert.equal(await eventCount(w, c.id, "charge.disputed"), 1);
  assert.equal(await balanceOf(w), paid - 6000);
  await assertLedgerInvariants(w.t);
});
