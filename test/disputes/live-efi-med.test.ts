import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { efiIds } from "../../src/processors/efi/client.js";
import { expectStatus } from "../helpers/app.js";
import { createCharge, methodCharge } from "../helpers/charges.js";
import { assertLedgerInvariants } from "../connect/helpers.js";
import { startEfiWorld, type EfiWorld } from "../processors/live-efi-shared.js";
import { balanceOf, chargeRow, disputeTransactions, pixCustomer, runTask } from "../processors/live-shared.js";
import { disputesOfCharge, sendEvidence } from "./helpers.js";
// topology: skip: every app stays in-process: Efí probes PUBLIC_BASE_URL at registration, and the test's own listening app is that URL

// Issue 46 item 4. A MED reaches feira through Efí's infractions (GET /v2/gn/infracoes, listed
// by the task disputes.poll-live), before any money goes back: a pix_med dispute in
// needs_response with Efí's deadline, its amount held from then; the merchant's evidence is Efí's
// defence (POST /v2/gn/infracoes/{id}/defesa); the devolução that follows an accepted infraction
// (its `natureza` left out, as Efí documents devoluções) closes that dispute, and a devolução
// feira did not ask for with no infraction is a lost pix_med of its own: never ignored.

let w: EfiWorld;
before(async () => { w = await startEfiWorld(); });
after(async () => { await w.close(); });

const poll = () => w.t.services.modules.disputes.tasks.find((k) => k.name === "disputes.poll-live")!.run();
const disputesOf = (chargeId: string) => disputesOfCharge(w.t, w.key, chargeId);

async function paidPix() {
  const c = await createCharge(w.t, w.key, methodCharge({ type: "pix" }, { customer: pixCustomer }));
  const txid = efiIds.txid(c.id);
  w.efi.pay(txid);
  await w.efi.flushWebhooks();
  assert.equal((await chargeRow(w, c.id)).status, "paid");
  return { id: c.id, e2eid: String(w.efi.ctx.cobs.get(txid)!.pix![0]!.endToEndId) };
}

function openInfraction(e2eid: string, valor?: string) {
  const i = w.efi.openInfraction(e2eid, valor ? { valor } : {});
  assert.equal(typeof i, "object", String(i));
  return i as { idInfracao: string; dadosAnalise: { prazoFinalizacao: string } };
}

test("an infraction opens a pix_med dispute in needs_response with Efí's deadline, the money held before any goes back, once", async () => {
  const c = await paidPix();
  const before = await balanceOf(w);
  const i = openInfraction(c.e2eid);
  assert.ok(await poll() >= 1);
  const [d, ...more] = await disputesOf(c.id);
  assert.equal(more.length, 0);
  assert.deepEqual([d!.kind, d!.status, d!.amount, d!.evidenceDueBy], ["pix_med", "needs_response", 50.5, i.dadosAnalise.prazoFinalizacao]);
  assert.equal(await balanceOf(w), before - 5050, "held from the infraction on");
  assert.equal((await chargeRow(w, c.id)).status, "paid", "nothing went back yet");
  // Listed again and again: applied once, and a round with nothing new says so.
  assert.equal(await poll(), 0);
  assert.equal((await disputesOf(c.id)).length, 1);
  assert.equal(await disputeTransactions(w, c.id), 1);
  await assertLedgerInvariants(w.t);
});

test("the merchant's evidence reaches Efí's defence; Efí rejecting the infraction wins the dispute and gives the money back", async () => {
  const c = await paidPix();
  const before = await balanceOf(w);
  const i = openInfraction(c.e2eid);
  await poll();
  const [d] = await disputesOf(c.id);
  const res = await sendEvidence(w.t, w.key, d!.id, [{ field: "text", content: "The buyer received the goods on 2026-12-01." }]);
  expectStatus(res, 200);
  assert.equal(res.json().status, "under_review");
  const at = w.efi.ctx.infracoes.get(i.idInfracao)!;
  assert.equal(at.status, "EM_DEFESA");
  assert.match(String(at.defesa), /received the goods/);
  const sent = w.efi.core.requests.filter((r) => r.route === `POST /v2/gn/infracoes/${i.idInfracao}/defesa`);
  assert.equal(sent.length, 1);
  assert.equal(JSON.parse(sent[0]!.body).analise, "rejeitado");

  assert.equal(typeof w.efi.decideInfraction(i.idInfracao, "REJEITADA"), "object");
  assert.equal(await poll(), 1);
  assert.equal((await disputesOf(c.id))[0]!.status, "won");
  assert.equal(await balanceOf(w), before);
  assert.equal((await chargeRow(w, c.id)).status, "paid");
  await assertLedgerInvariants(w.t);
});

test("an accepted infraction: its devolução (no natureza) closes the same dispute as lost, the money taken once", async () => {
  const c = await paidPix();
  const before = await balanceOf(w);
  const i = openInfraction(c.e2eid);
  await poll();
  assert.equal(typeof w.efi.decideInfraction(i.idInfracao, "ACEITA"), "object");
  const devolucao = w.efi.ctx.pix.get(c.e2eid)!.devolucoes!.at(-1)!;
  assert.equal(devolucao.natureza, undefined, "Efí's devolução names no nature");
  await w.efi.flushWebhooks();
  await poll();
  await runTask(w, "charges.reconcile-live");
  const list = await disputesOf(c.id);
  assert.deepEqual(list.map((d) => [d.status, d.amount]), [["lost", 50.5]]);
  const row = await chargeRow(w, c.id);
  assert.deepEqual([row.status, row.amountRefunded], ["refunded", 5050]);
  assert.equal(await disputeTransactions(w, c.id), 1);
  assert.equal(await balanceOf(w), before - 5050);
  await assertLedgerInvariants(w.t);
});

test("a devolução read before feira listed its infraction is matched to it: one dispute, lost", async () => {
  const c = await paidPix();
  const i = openInfraction(c.e2eid, "20.00");
  w.efi.decideInfraction(i.idInfracao, "ACEITA");
  await w.efi.flushWebhooks();
  const [d, ...more] = await disputesOf(c.id);
  assert.equal(more.length, 0);
  assert.deepEqual([d!.status, d!.amount], ["lost", 20]);
  assert.equal(await poll(), 0, "the listing finds it decided already");
  assert.equal((await disputesOf(c.id)).length, 1);
  assert.deepEqual([(await chargeRow(w, c.id)).status, (await chargeRow(w, c.id)).amountRefunded], ["paid", 2000]);
  await assertLedgerInvariants(w.t);
});

test("a devolução feira did not ask for, with no natureza and no infraction, is recorded as a lost pix_med, not ignored", async () => {
  const c = await paidPix();
  const before = await balanceOf(w);
  assert.equal(typeof w.efi.med(c.e2eid, { natureza: null }), "object");
  await w.efi.flushWebhooks();
  const list = await disputesOf(c.id);
  assert.deepEqual(list.map((d) => [d.kind, d.status, d.amount]), [["pix_med", "lost", 50.5]]);
  assert.equal((await chargeRow(w, c.id)).status, "refunded");
  assert.equal(await balanceOf(w), before - 5050);
  await assertLedgerInvariants(w.t);
});

test("a devolução of nature MED_PIX_AUTOMATICO is a MED too", async () => {
  const c = await paidPix();
  w.efi.med(c.e2eid, { natureza: "MED_PIX_AUTOMATICO", valor: "10.00" });
  await w.efi.flushWebhooks();
  assert.deepEqual((await disputesOf(c.id)).map((d) => [d.status, d.amount, d.reason]), [["lost", 10, "pix_automatico_refund"]]);
});

test("Efí without an answer to the listing changes nothing, and the next round applies it", async () => {
  const c = await paidPix();
  openInfraction(c.e2eid);
  await w.efi.setFault("500", { times: 1, match: "GET /v2/gn/infracoes" });
  assert.equal(await poll(), 0);
  assert.equal((await disputesOf(c.id)).length, 0);
  assert.equal(await poll(), 1);
  assert.equal((await disputesOf(c.id))[0]!.status, "needs_response");
});
