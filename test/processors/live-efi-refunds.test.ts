import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "drizzle-orm";
import { findRefund } from "../../src/modules/charges/charges.repo.js";
import { efiIds } from "../../src/processors/efi/client.js";
import { expectStatus } from "../helpers/app.js";
import { get, post } from "../helpers/charges.js";
import { calls, efiPix, startEfiWorld, type EfiWorld } from "./live-efi-shared.js";
import { chargeRow, eventCount, runTask } from "./live-shared.js";
// topology: skip: every app stays in-process: Efí probes PUBLIC_BASE_URL at registration, and the test's own listening app is that URL

// Refunds of live Efí Pix (devoluções under an id derived from the refund). The MED (a devolução
// the payer's bank took back that feira never asked for) is a dispute: test/disputes/live-efi.test.ts.
// Over HTTP and mutual TLS against the Efí fake, whose notices reach the app.

let w: EfiWorld;
before(async () => { w = await startEfiWorld(); });
after(async () => { await w.close(); });

async function paidPix() {
  const c = await efiPix(w);
  w.efi.pay(c.txid);
  await w.efi.flushWebhooks();
  assert.equal((await chargeRow(w, c.id)).status, "paid");
  const e2eid = w.efi.ctx.cobs.get(c.txid)!.pix![0]!.endToEndId;
  return { ...c, e2eid };
}
const refund = (id: string, body: object = {}) => post(w.t, w.key, `/v1/charges/${id}/refund`, body);
const refundRow = async (id: string) => (await findRefund(w.t.database.db, id))!;
const chargeView = async (id: string) => (await get(w.t, w.key, `/v1/charges/${id}`)).json() as { status: string; amountRefunded: number };
const devolucoes = (e2eid: string) => w.efi.ctx.pix.get(e2eid)!.devolucoes ?? [];

test("a refund is a devolução under the refund's id: pending while EM_PROCESSAMENTO, succeeded when Efí's notice says DEVOLVIDO", async () => {
  const c = await paidPix();
  const res = await refund(c.id, { amount: 20 });
  expectStatus(res, 201);
  const r = res.json() as { id: string; status: string };
  assert.equal(r.status, "pending", "Efí answers EM_PROCESSAMENTO");
  const d = devolucoes(c.e2eid);
  assert.equal(d.length, 1);
  assert.equal(d[0]!.id, efiIds.devolucao(r.id));
  assert.equal(d[0]!.valor, "20.00");
  await w.efi.flushWebhooks();
  assert.equal((await refundRow(r.id)).status, "succeeded");
  assert.deepEqual(await chargeView(c.id), { ...(await chargeView(c.id)), status: "paid", amountRefunded: 20 });
  assert.equal(await eventCount(w, c.id, "charge.refunded"), 1);
});

test("a devolução Efí could not make (NAO_REALIZADO) fails the refund and releases its reservation", async () => {
  const c = await paidPix();
  w.efi.setModes({ devolucao: "manual" });
  try {
    const r = (await refund(c.id)).json() as { id: string; status: string };
    assert.equal(r.status, "pending");
    assert.equal((await chargeView(c.id)).amountRefunded, 50.5, "reserved while pending");
    assert.equal(typeof w.efi.finishDevolucao(c.e2eid, efiIds.devolucao(r.id), false), "object");
    await w.efi.flushWebhooks();
    assert.equal((await refundRow(r.id)).status, "failed");
    assert.deepEqual([(await chargeView(c.id)).status, (await chargeView(c.id)).amountRefunded], ["paid", 0]);
  } finally {
    w.efi.setModes({ devolucao: "auto" });
  }
});

test("a devolução whose answer was lost is read back by reconciliation, never asked for twice", async () => {
  const c = await paidPix();
  await w.efi.setFault("500-after-work", { times: 1, match: `PUT /v2/pix/${c.e2eid}/devolucao/` });
  w.efi.setWebhookFault("drop", 1);
  const r = (await refund(c.id)).json() as { id: string; status: string };
  assert.equal(r.status, "pending");
  await w.efi.flushWebhooks();
  // The reconciliation leaves a refund alone for the processor timeout after it was sent.
  await w.t.database.db.execute(sql`update refunds set sent_at = now() - interval '1 minute' where id = ${r.id}`);
  await runTask(w, "charges.reconcile-live");
  assert.equal((await refundRow(r.id)).status, "succeeded");
  assert.equal(devolucoes(c.e2eid).length, 1);
  assert.equal(calls(w, `PUT /v2/pix/${c.e2eid}/devolucao/${efiIds.devolucao(r.id)}`), 1);
  assert.equal((await chargeRow(w, c.id)).status, "refunded");
});

test("a second devolução under the same id (Efí's 400 PixDevolucaoInvalida, or its 409) reads the first back", async () => {
  const c = await paidPix();
  const adapter = w.t.services.processors.adapter("production", "efi")!;
  const input = { chargeId: c.id, pspRefId: c.txid, amountMinor: 1000, refundId: "re_01jd3k2m4nabcdefghjkmnpqrs", chargeAmountMinor: 5050 };
  const first = await adapter.refund!(input);
  await w.efi.flushWebhooks();
  for (const mode of ["bcb-400", "efi-409"] as const) {
    w.efi.setModes({ duplicateDevolucao: mode });
    const again = await adapter.refund!(input);
    assert.equal(again.outcome, "succeeded", mode);
    assert.equal(again.outcome === "succeeded" && again.refundRef, first.outcome === "pending" ? first.refundRef : "");
  }
  w.efi.setModes({ duplicateDevolucao: "bcb-400" });
  assert.equal(devolucoes(c.e2eid).length, 1);
});
