import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { efiIds } from "../../src/processors/efi/client.js";
import { expectStatus } from "../helpers/app.js";
import type { PixReceived } from "../helpers/fake-efi-context.js";
import { until } from "../helpers/wait.js";
import { startEfiWorld, type EfiWorld } from "../processors/live-efi-shared.js";
import { runTask } from "../processors/live-shared.js";
import { DAY, periodIssued, statusOf, sub } from "./efi-periods.js";
import { call, createPlan, customer, eventsOf } from "./helpers.js";
// topology: skip: every app stays in-process: Efí probes PUBLIC_BASE_URL at registration, and the test's own listening app is that URL

// A merchant's cancel of a live Pix Automático subscription through Efí ends the payment still
// open: a subscription not yet active has its first cob removed (PATCH /v2/cob), and one whose
// first Pix landed just before is refunded; a period's debit already at the payer's bank has its
// cobr cancelled (PATCH /v2/cobr, until the day before its attempt), and when it is too late the
// answer says so and, with refund: true, the debit is refunded when it lands.
let w: EfiWorld;
before(async () => { w = await startEfiWorld({ mandates: true }); });
after(async () => w.close());

const cancel = (id: string, body: Record<string, unknown> = {}) => call(w.t, w.key, "POST", `/v1/subscriptions/${id}/cancel`, body);
const cobrPix = (txid: string) => (w.efi.ctx.cobrs.get(txid)!.pix as PixReceived[] | undefined)?.[0];

async function pendingSignUp() {
  const res = await call(w.t, w.key, "POST", "/v1/subscriptions", { planId: (await createPlan(w.t, w.key)).id, customer, paymentMethod: { type: "pix_automatico" } });
  expectStatus(res, 201);
  const s = res.json() as { id: string; charges: { chargeId: string }[] };
  return { s, chargeId: s.charges[0]!.chargeId, txid: efiIds.txid(s.charges[0]!.chargeId) };
}

test("cancelling a subscription not yet active removes its first cob: the QR can no longer be paid", async () => {
  const { s, txid } = await pendingSignUp();
  expectStatus(await cancel(s.id), 200);
  assert.equal(w.efi.ctx.cobs.get(txid)!.status, "REMOVIDA_PELO_USUARIO_RECEBEDOR");
  assert.equal(typeof w.efi.pay(txid), "string", "the payer's bank can no longer pay it");
  const after = await sub(w, s.id);
  assert.equal(after.status, "cancelled");
  assert.equal(after.charges[0]!.status, "failed");
  assert.equal(after.charges[0]!.reason, "canceled");
});

test("a first Pix that landed just before the cancel (its notice not yet read) is refunded, not kept", async () => {
  const { s, chargeId, txid } = await pendingSignUp();
  w.efi.core.controls.setWebhookFault("drop", 1);
  assert.equal(typeof w.efi.pay(txid), "object");
  const res = await cancel(s.id);
  expectStatus(res, 200);
  assert.equal(res.json().status, "cancelled");
  assert.equal(res.json().refunded, true);
  const pix = w.efi.ctx.cobs.get(txid)!.pix![0]!;
  assert.equal(pix.devolucoes?.length, 1, "the Pix that paid the first cob returned");
  await until("the charge refunded", async () => (await runTask(w, "charges.reconcile-live")) >= 0 && (await statusOf(w, s.id, 1)) === "refunded");
  assert.ok((await eventsOf(w.t, chargeId)).some((e) => e.type === "charge.refunded"));
});

test("a period's debit scheduled at the payer's bank is cancelled with the subscription (PATCH /v2/cobr)", async () => {
  const { s, txid } = await periodIssued(w);
  const res = await cancel(s.id);
  expectStatus(res, 200);
  assert.equal(res.json().pendingDebit, null);
  assert.equal(w.efi.ctx.cobrs.get(txid)!.status, "CANCELADA");
  assert.equal(await statusOf(w, s.id, 1), "failed");
});

for (const refund of [true, false]) {
  test(`on its due date the debit can no longer be cancelled: the answer says so${refund ? ", and with refund: true it is refunded when it lands" : ", and without refund it is kept"}`, async () => {
    const { s, txid, charge } = await periodIssued(w);
    // The day of its first attempt, when the Central Bank no longer cancels it.
    w.efi.advanceClock(4 * DAY);
    try {
      const res = await cancel(s.id, refund ? { refund: true } : {});
      expectStatus(res, 200);
      assert.equal(res.json().status, "cancelled");
      assert.deepEqual(res.json().pendingDebit, { chargeId: charge.chargeId, dueDate: w.efi.ctx.cobrs.get(txid)!.calendario.dataDeVencimento, refundOnPayment: refund });
      assert.equal(res.json().refunded, refund);
      assert.equal(w.efi.ctx.cobrs.get(txid)!.status, "ATIVA", "still scheduled at the payer's bank");
      w.efi.debit(txid, { ok: true });
      if (refund) {
        await until("the debit returned", async () => (await runTask(w, "charges.reconcile-live")) >= 0 && cobrPix(txid)?.devolucoes?.[0]?.status === "DEVOLVIDO");
        await until("reported", async () => (await runTask(w, "charges.reconcile-live")) >= 0 && (await eventsOf(w.t, charge.chargeId)).some((e) => e.type === "charge.late_payment_refunded"));
        assert.equal(await statusOf(w, s.id, 1), "failed");
      } else {
        await until("the debit kept", async () => (await statusOf(w, s.id, 1)) === "paid");
        assert.equal(cobrPix(txid)?.devolucoes, undefined);
      }
    } finally {
      w.efi.advanceClock(-4 * DAY);
    }
  });
}
