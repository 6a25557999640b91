import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { createCharge, methodCharge } from "../helpers/charges.js";
import {
  balanceOf, chargeRow, eventCount, ledgerOf, ledgerTransactions, pixCustomer, runTask, startLiveWorld, type LiveWorld,
} from "./live-shared.js";

// The expiry of live Pix and boletos, over HTTP against the fakes: feira asks the provider
// before it fails a charge, cancels it there, applies a payment that landed first, and refunds
// once, automatically, a payment that lands after the charge failed (charge.late_payment_refunded,
// money in and out on the platform's ledger, the merchant's balance untouched).

let w: LiveWorld;
before(async () => { w = await startLiveWorld(); });
after(async () => { await w.close(); });

const expireLive = () => runTask(w, "charges.expire-live");
/** The clock passes the charge's expiry (its provider payment stays as it is). */
const pastExpiry = (id: string) => w.t.database.db.execute(sql`update charges set expires_at = now() - interval '1 minute' where id = ${id}`);

async function liveBoleto() {
  const boleto = await createCharge(w.t, w.key, methodCharge({ type: "boleto" }, { customer: pixCustomer }));
  await w.pagarme.flushWebhooks();
  return { id: boleto.id, ref: (await chargeRow(w, boleto.id)).pspRefId! };
}
async function livePix() {
  const pix = await createCharge(w.t, w.key, methodCharge({ type: "pix" }, { customer: pixCustomer }));
  await w.mercadopago.flushWebhooks();
  return { id: pix.id, ref: Number((await chargeRow(w, pix.id)).pspRefId) };
}
const refundCalls = (ref: string | number) => [
  ...w.pagarme.requests.filter((r) => r.route === `DELETE /charges/${ref}` && String(r.headers["idempotency-key"]).startsWith("feira-refund-")),
  ...w.mercadopago.requests.filter((r) => r.route === `POST /v1/payments/${ref}/refunds`),
];

test("an expired live boleto is cancelled at Pagar.me first, then fails as expired", async () => {
  const b = await liveBoleto();
  await pastExpiry(b.id);
  assert.equal(await expireLive(), 1);
  const c = await chargeRow(w, b.id);
  assert.equal(c.status, "failed");
  assert.equal(c.reason, "expired");
  assert.equal((w.pagarme.charge(b.ref) as { status: string }).status, "canceled", "the boleto can no longer be paid");
  const cancels = w.pagarme.requests.filter((r) => r.route === `DELETE /charges/${b.ref}`);
  assert.equal(cancels.length, 1);
  assert.equal(cancels[0]!.headers["idempotency-key"], `feira-cancel-${b.id}`);
  assert.equal(await eventCount(w, b.id, "charge.failed"), 1);
  assert.equal(await expireLive(), 0, "once");
});

test("an expiry that another reader finished first (a notice, another process) counts the charge as moved, as that reader left it", async () => {
  const b = await liveBoleto();
  const stale = await chargeRow(w, b.id);
  await pastExpiry(b.id);
  assert.equal(await expireLive(), 1);
  // A second reader that read the charge pending before the first one's move.
  assert.equal(await w.t.services.modules.charges.liveExpiry.expireOne(stale), true);
  const c = await chargeRow(w, b.id);
  assert.equal(c.status, "failed");
  assert.equal(c.reason, "expired");
  assert.equal(await eventCount(w, b.id, "charge.failed"), 1, "failed once");
});

test("an expired live Pix that Mercado Pago says is paid (its notice lost) becomes paid, not expired, with nothing cancelled", async () => {
  const p = await livePix();
  w.mercadopago.setWebhookFault("drop", 1);
  w.mercadopago.pay(p.ref);
  await w.mercadopago.flushWebhooks();
  assert.equal((await chargeRow(w, p.id)).status, "pending");
  await pastExpiry(p.id);
  assert.equal(await expireLive(), 1);
  assert.equal((await chargeRow(w, p.id)).status, "paid");
  assert.equal(await eventCount(w, p.id, "charge.paid"), 1);
  assert.equal(await eventCount(w, p.id, "charge.failed"), 0);
  assert.equal(w.mercadopago.requests.filter((r) => r.route === `PUT /v1/payments/${p.ref}`).length, 0);
});

test("the payer pays a live Pix just before Mercado Pago gets the cancel: the cancel is refused and the charge is paid", async () => {
  const p = await livePix();
  await pastExpiry(p.id);
  w.mercadopago.payBeforeCancel(1);
  assert.equal(await expireLive(), 1);
  await w.mercadopago.flushWebhooks();
  const c = await chargeRow(w, p.id);
  assert.equal(c.status, "paid");
  assert.equal(w.mercadopago.payment(p.ref)!.status, "approved");
  assert.equal(await eventCount(w, p.id, "charge.paid"), 1);
  assert.equal(await eventCount(w, p.id, "charge.failed"), 0);
});

test("the payer pays a live boleto just before Pagar.me gets the cancel, which refunds it: expired, reported as a late payment refunded", async () => {
  const balance = await balanceOf(w);
  const b = await liveBoleto();
  await pastExpiry(b.id);
  w.pagarme.payBeforeCancel(1);
  assert.equal(await expireLive(), 1);
  await w.pagarme.flushWebhooks();
  const c = await chargeRow(w, b.id);
  assert.equal(c.status, "failed");
  assert.equal(c.reason, "expired");
  assert.equal(c.latePayment, "refunded");
  assert.equal(await eventCount(w, b.id, "charge.late_payment_refunded"), 1);
  assert.deepEqual(await ledgerOf(w, b.id), { "platform.processor_receivable": 0, "platform.refund_payable": 0 });
  assert.equal(await ledgerTransactions(w, b.id, "late_payment"), 1);
  assert.equal(await ledgerTransactions(w, b.id, "late_payment_refund"), 1);
  assert.equal(await balanceOf(w), balance, "the merchant's balance is untouched");
  // The provider's own cancel refunded it: feira asked for no refund of its own.
  assert.equal(refundCalls(b.ref).length, 0);
});

test("a live Pix paid after feira expired and cancelled it is refunded at Mercado Pago automatically, once", async () => {
  const balance = await balanceOf(w);
  const p = await livePix();
  await pastExpiry(p.id);
  assert.equal(await expireLive(), 1);
  await w.mercadopago.flushWebhooks();
  assert.equal(w.mercadopago.payment(p.ref)!.status, "cancelled");

  w.mercadopago.setWebhookFault("duplicate", 1);
  assert.equal(typeof w.mercadopago.pay(p.ref, { late: true }), "object");
  await w.mercadopago.flushWebhooks();
  const c = await chargeRow(w, p.id);
  assert.equal(c.status, "failed");
  assert.equal(c.latePayment, "refunded");
  assert.equal(c.amountRefunded, c.amount);
  assert.equal(w.mercadopago.payment(p.ref)!.status, "refunded");
  assert.equal(await eventCount(w, p.id, "charge.late_payment_refunded"), 1);
  await runTask(w, "charges.reconcile-live");
  await w.mercadopago.flushWebhooks();
  const refunds = refundCalls(p.ref);
  assert.equal(refunds.length, 1, "one refund asked for");
  assert.equal(refunds[0]!.headers["x-idempotency-key"], `feira-refund-late_${p.id}`);
  assert.equal(await eventCount(w, p.id, "charge.late_payment_refunded"), 1);
  assert.deepEqual(await ledgerOf(w, p.id), { "platform.processor_receivable": 0, "platform.refund_payable": 0 });
  assert.equal(await balanceOf(w), balance);
});

test("a late boleto payment whose notices are lost is found by reconciliation; its refund's answer is lost too, and it is refunded once", async () => {
  const b = await liveBoleto();
  await pastExpiry(b.id);
  assert.equal(await expireLive(), 1);
  await w.pagarme.flushWebhooks();
  // From here on the provider's notices are lost, and the refund is made but answered 500.
  w.pagarme.setWebhookFault("drop", 1_000);
  await w.pagarme.setFault("500-after-work", { times: 1, match: `DELETE /charges/${b.ref}` });
  try {
    assert.equal(typeof w.pagarme.pay(b.ref, undefined, { late: true }), "object");
    await w.pagarme.flushWebhooks();
    assert.equal((await chargeRow(w, b.id)).latePayment, null, "the notice was lost");

    await runTask(w, "charges.reconcile-live");
    let c = await chargeRow(w, b.id);
    assert.equal(c.latePayment, "refund_pending", "the refund's answer was lost");
    assert.deepEqual(await ledgerOf(w, b.id), { "platform.processor_receivable": -c.amount, "platform.refund_payable": c.amount });
    assert.equal(await eventCount(w, b.id, "charge.late_payment_refunded"), 0);

    await runTask(w, "charges.reconcile-live");
    c = await chargeRow(w, b.id);
    assert.equal(c.latePayment, "refunded");
    assert.equal(refundCalls(b.ref).length, 1, "the refund was asked for once");
    assert.equal(await eventCount(w, b.id, "charge.late_payment_refunded"), 1);
    assert.deepEqual(await ledgerOf(w, b.id), { "platform.processor_receivable": 0, "platform.refund_payable": 0 });
    await runTask(w, "charges.reconcile-live");
    assert.equal(await eventCount(w, b.id, "charge.late_payment_refunded"), 1);
  } finally {
    w.pagarme.setWebhookFault("none");
  }
});
