import { test, after, before } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import assert from "node:assert/strict";
import { cardCharge, createCharge, post } from "../helpers/charges.js";
import { expectStatus } from "../helpers/app.js";
import {
  balanceOf, chargeRow, disputeTransactions, eventCount, ledgerOf, ledgerTransactions, runTask, startLiveWorld, type LiveWorld,
} from "./live-shared.js";

// Chargebacks of live charges, over HTTP against the fakes: the provider reports the chargeback
// (by its notice, or to reconciliation when the notice is lost); Pagar.me's chargedback is a
// dispute already lost (test/disputes/live-pagarme.test.ts): its hold takes back on the ledger
// what was still paid, the charge becomes charged_back and charge.disputed is sent, once,
// however many times the provider's answer is read again.

let w: LiveWorld;
before(async () => { w = await startLiveWorld(); });
after(async () => { await w.close(); });

const PAGARME_CARD = "4000000000000010";

test("a Pagar.me card chargeback by notice: charged_back, the balance is back where a full refund leaves it, charge.disputed once; a duplicate notice changes nothing", async () => {
  const before = await balanceOf(w);
  const card = await createCharge(w.t, w.key, cardCharge(PAGARME_CARD));
  assert.equal(card.status, "paid");
  const paid = await chargeRow(w, card.id);
  assert.equal(await balanceOf(w) - before, paid.net, "the net was credited");
  await w.pagarme.flushWebhooks();

  w.pagarme.setWebhookFault("duplicate", 1);
  assert.equal(typeof w.pagarme.chargeback(paid.pspRefId!), "object");
  await w.pagarme.flushWebhooks();

  const c = await chargeRow(w, card.id);
  assert.equal(c.status, "charged_back");
  assert.equal(await eventCount(w, card.id, "charge.disputed"), 1);
  assert.equal(await disputeTransactions(w, card.id), 1);
  assert.equal(await ledgerTransactions(w, card.id, "chargeback"), 0, "the lost dispute's hold was the chargeback");
  // The gross went back to the processor; the merchant gave it back (fees are not returned, as with a refund).
  const ledger = await ledgerOf(w, card.id);
  assert.equal(ledger["platform.processor_receivable"] ?? 0, 0, JSON.stringify(ledger));
  assert.equal(await balanceOf(w) - before, paid.net - paid.amount);

  // Read again by reconciliation and by another notice: nothing twice.
  await runTask(w, "charges.reconcile-live");
  const notice = await w.t.app.inject({ method: "POST", url: "/v1/processors/pagarme/webhooks", payload: { type: "charge.chargedback", data: { id: paid.pspRefId } } });
  assert.equal(notice.statusCode, 200);
  assert.equal(await eventCount(w, card.id, "charge.disputed"), 1);
  assert.equal(await disputeTransactions(w, card.id), 1);
  assert.equal(await balanceOf(w) - before, paid.net - paid.amount);
  const view = (await w.t.app.inject({ method: "GET", url: `/v1/charges/${card.id}`, headers: { authorization: `Basic ${Buffer.from(`${w.key}:`).toString("base64")}` } })).json();
  assert.equal(view.status, "charged_back");
});

test("a chargeback of a partially refunded charge takes back only what was still paid", async () => {
  const card = await createCharge(w.t, w.key, cardCharge(PAGARME_CARD, { amount: 100 }));
  const res = await post(w.t, w.key, `/v1/charges/${card.id}/refund`, { amount: 30 });
  expectStatus(res, 201);
  const paid = await chargeRow(w, card.id);
  assert.equal(paid.amountRefunded, 3000);
  await w.pagarme.flushWebhooks();
  w.pagarme.chargeback(paid.pspRefId!);
  await w.pagarme.flushWebhooks();
  assert.equal((await chargeRow(w, card.id)).status, "charged_back");
  const ledger = await ledgerOf(w, card.id);
  // 100.00 in, 30.00 refunded, 70.00 charged back: the processor holds nothing for it.
  assert.equal(ledger["platform.processor_receivable"] ?? 0, 0, JSON.stringify(ledger));
  assert.equal((ledger["merchant.pending"] ?? 0) + (ledger["merchant.available"] ?? 0), paid.net - paid.amount);
  assert.equal(await eventCount(w, card.id, "charge.disputed"), 1);
});

test("a chargeback read before feira knew the payment (create answer lost, notices dropped): paid, then charged back, each once", async () => {
  const before = await balanceOf(w);
  w.pagarme.setWebhookFault("drop", 1_000);
  await w.pagarme.setFault("lost-answer", { times: 1, match: "POST /orders" });
  let id: string;
  try {
    const card = await createCharge(w.t, w.key, cardCharge(PAGARME_CARD));
    assert.equal(card.status, "pending", "no answer: pending until the provider is read");
    id = card.id;
    await w.pagarme.flushWebhooks();
  } finally {
    w.pagarme.setWebhookFault("none");
  }
  const provider = [...w.pagarme.charges.values()].find((ch) => ch.code === id)!;
  assert.equal(provider.status, "paid");
  w.pagarme.chargeback(provider.id);
  await w.pagarme.flushWebhooks();
  const c = await chargeRow(w, id);
  assert.equal(c.status, "charged_back");
  assert.equal(c.pspRefId, provider.id);
  assert.equal(await eventCount(w, id, "charge.paid"), 1);
  assert.equal(await eventCount(w, id, "charge.disputed"), 1);
  assert.equal(await ledgerTransactions(w, id, "charge"), 1);
  assert.equal(await disputeTransactions(w, id), 1);
  assert.equal(await balanceOf(w) - before, c.net - c.amount);
  await runTask(w, "charges.reconcile-live");
  assert.equal(await eventCount(w, id, "charge.disputed"), 1);
});

test("a refund pending when the chargeback comes, which then fails: the ledger takes its part back too, as one full chargeback would", async () => {
  const card = await createCharge(w.t, w.key, cardCharge(PAGARME_CARD, { amount: 100 }));
  w.pagarme.setRefundMode("pending");
  let refundId: string;
  try {
    const res = await post(w.t, w.key, `/v1/charges/${card.id}/refund`, { amount: 30 });
    expectStatus(res, 201);
    assert.equal(res.json().status, "pending");
    refundId = res.json().id;
  } finally {
    w.pagarme.setRefundMode("immediate");
  }
  const paid = await chargeRow(w, card.id);
  await w.pagarme.flushWebhooks();
  w.pagarme.chargeback(paid.pspRefId!);
  await w.pagarme.flushWebhooks();
  assert.equal((await chargeRow(w, card.id)).status, "charged_back");
  // The chargeback took back 70.00: the 30.00 reserved for the refund were left to it.
  assert.equal(Math.abs((await ledgerOf(w, card.id))["platform.processor_receivable"] ?? 0), 3000);

  assert.equal(typeof w.pagarme.failRefund(paid.pspRefId!), "object");
  // Reconciliation leaves a refund alone for the processor timeout after it was last asked about
  // (its own request may still be waiting): rounds until it settles, within a bound.
  const deadline = Date.now() + 30_000;
  while ((await chargeRow(w, card.id)).amountRefunded !== 0 && Date.now() < deadline) {
    await sleep(100);
    await runTask(w, "charges.reconcile-live");
  }
  const after = await chargeRow(w, card.id);
  assert.deepEqual([after.status, after.amountRefunded], ["charged_back", 0], "the failed refund's reservation is released");
  const ledger = await ledgerOf(w, card.id);
  assert.equal(ledger["platform.processor_receivable"] ?? 0, 0, JSON.stringify(ledger));
  assert.equal((ledger["merchant.pending"] ?? 0) + (ledger["merchant.available"] ?? 0), paid.net - paid.amount, JSON.stringify(ledger));
  assert.equal(await ledgerTransactions(w, refundId, "chargeback"), 1);
  // Read again: nothing twice.
  await runTask(w, "charges.reconcile-live");
  assert.equal(await ledgerTransactions(w, refundId, "chargeback"), 1);
  assert.equal((await ledgerOf(w, card.id))["platform.processor_receivable"] ?? 0, 0);
});
