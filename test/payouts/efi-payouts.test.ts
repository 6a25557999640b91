import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../src/config.js";
import { efiNoticeSecret } from "../../src/processors/efi/notices.js";
import { PROCESSORS } from "../../src/processors/registry.js";
import { admin, assertLedgerInvariants, balanceOf, call, decidedTransfer, payoutForAdmin } from "../connect/helpers.js";
import { expectStatus } from "../helpers/app.js";
import { tempDir } from "../helpers/temp-dirs.js";
import {
  liveSubmerchant, requestLivePayout, sendCalls, startEfiPayoutsWorld, type EfiPayoutsWorld,
} from "../helpers/efi-payouts-world.js";

// PAYOUT_PROVIDER=efi against the Efí fake over mutual TLS: an approval without an endToEndId
// sends netAmount by Pix to the submerchant's CNPJ under an idEnvio derived from the payout,
// answers 202 pending + sending, and Efí's REALIZADO (read back by idEnvio) approves it with
// Efí's end-to-end id, NAO_REALIZADO rejects it with Efí's reason and releases the reserve. A
// lost answer or a 5xx never makes a second transfer: the read-back comes before any new PUT.

let w: EfiPayoutsWorld;
before(async () => { w = await startEfiPayoutsWorld(); });
after(() => w.close());

const approve = (id: string, body?: unknown) => admin(w.t, "POST", `/v1/admin/payout-requests/${id}/approve`, body);
const sendOf = (idEnvio: string) => w.efi.ctx.sends.get(idEnvio);
const putsOf = (payoutId: string) => w.efi.core.requests.filter((r) => r.route === `PUT /v3/gn/pix/${payoutId.replace("_", "")}`).length;
const eventsOf = async (key: string, type: string, id: string) =>
  (await call(w.t, "GET", "/v1/events?limit=100", key)).json().data.filter((e: { type: string; objectId: string }) => e.type === type && e.objectId === id);

test("approval sends netAmount by Pix to the CNPJ key under the payout's idEnvio: 202 pending + sending, a second approval sends nothing; REALIZADO approves it with Efí's endToEndId and payout.approved", async () => {
  const sm = await liveSubmerchant(w);
  const p = await requestLivePayout(w, sm.key, sm.id, 10000);
  const before = sendCalls(w.efi);
  const res = await approve(p.id);
  expectStatus(res, 202);
  assert.deepEqual([res.json().status, res.json().transfer, res.json().endToEndId], ["pending", { status: "sending" }, null], res.body);
  const idEnvio = String((await payoutForAdmin(w.t, p.id, sm.id)).transferId);
  assert.equal(idEnvio, p.id.replace("_", ""));
  const sent = sendOf(idEnvio);
  assert.ok(sent, "Efí has the send");
  assert.equal(sent.valor, (p.netAmount / 100).toFixed(2));
  assert.equal(sent.chave, w.efi.pixKey, "paid from the operator's key");
  assert.equal((sent.favorecido as { chave: string }).chave, sm.cnpj, "to the submerchant's CNPJ");

  expectStatus(await approve(p.id), 202);
  expectStatus(await admin(w.t, "POST", `/v1/admin/payout-requests/${p.id}/reject`), 409);
  assert.equal(sendCalls(w.efi) - before, 1, "one PUT for two approvals");
  // Still EM_PROCESSAMENTO at Efí: the read-back leaves it pending.
  assert.equal(await w.t.services.connect.payouts.transfers.reconcile(), 0);
  assert.equal((await payoutForAdmin(w.t, p.id, sm.id)).status, "pending");

  assert.equal(typeof w.efi.finishSend(idEnvio, true), "object");
  const done = await decidedTransfer(w.t, p.id, sm.id);
  assert.deepEqual([done.status, done.transfer, done.endToEndId], ["approved", { status: "sent" }, sent.endToEndId]);
  assert.equal((await eventsOf(sm.key, "payout.approved", p.id)).length, 1);
  assert.equal(sendCalls(w.efi) - before, 1);
  await assertLedgerInvariants(w.t);
});

test("a notice naming the send's idEnvio (with the URL's hmac) reads the send back and approves the payout at once; without the hmac it is 401 and changes nothing", async () => {
  const sm = await liveSubmerchant(w);
  const p = await requestLivePayout(w, sm.key, sm.id, 6000);
  expectStatus(await approve(p.id), 202);
  const idEnvio = p.id.replace("_", "");
  assert.equal(typeof w.efi.finishSend(idEnvio, true), "object");
  // Efí's notice of a send; its body is never trusted (the endToEndId here is not Efí's).
  const body = { pix: [{ endToEndId: "E00000000202601010000fakefakefa", chave: w.efi.pixKey, tipo: "SOLICITACAO", status: "REALIZADO", gnExtras: { idEnvio } }] };
  const forged = await w.t.app.inject({ method: "POST", url: "/v1/processors/efi/webhooks/pix?hmac=wrong", payload: body });
  expectStatus(forged, 401);
  assert.equal((await payoutForAdmin(w.t, p.id, sm.id)).status, "pending");
  const notice = await w.t.app.inject({ method: "POST", url: `/v1/processors/efi/webhooks/pix?hmac=${efiNoticeSecret(w.efi.clientSecret)}`, payload: body });
  expectStatus(notice, 200);
  const done = await payoutForAdmin(w.t, p.id, sm.id);
  assert.deepEqual([done.status, done.endToEndId], ["approved", sendOf(idEnvio)!.endToEndId], "approved with the send read back from Efí");
});

test("NAO_REALIZADO rejects the payout with Efí's reason: the reserve is released and payout.rejected carries the reason", async () => {
  const sm = await liveSubmerchant(w);
  const p = await requestLivePayout(w, sm.key, sm.id, 8000);
  expectStatus(await approve(p.id), 202);
  const idEnvio = p.id.replace("_", "");
  assert.equal(typeof w.efi.finishSend(idEnvio, false, "Conta do usuário recebedor encerrada"), "object");
  const done = await decidedTransfer(w.t, p.id, sm.id);
  assert.equal(done.status, "rejected");
  assert.deepEqual(done.transfer, { status: "failed" });
  assert.match(String(done.reason), /^Pix transfer failed: AC03 Conta do usuário recebedor encerrada$/);
  assert.equal((await balanceOf(w.t, sm.key)).available, sm.available, "the reserve is back");
  const [event] = await eventsOf(sm.key, "payout.rejected", p.id);
  assert.equal(event?.data.reason, done.reason);
  await assertLedgerInvariants(w.t);
});

test("a lost answer and a 500 before the work: each payout is sent exactly once, one at a time, found by reading idEnvio back before any new PUT", async () => {
  const sm = await liveSubmerchant(w, 500);
  const lost = await requestLivePayout(w, sm.key, sm.id, 5000);
  const broke = await requestLivePayout(w, sm.key, sm.id, 6000);
  await w.efi.setFault({ mode: "lost-answer", times: 1, match: "PUT /v3/gn/pix" });
  expectStatus(await approve(lost.id), 202);
  assert.ok(sendOf(lost.id.replace("_", "")), "the lost answer's send was made");
  // One send at a time (Efí's advice): the second approval waits, sending, until the first ends.
  const puts = sendCalls(w.efi);
  expectStatus(await approve(broke.id), 202);
  assert.equal(sendCalls(w.efi), puts, "queued behind the send on its way");
  await w.efi.setFault({ mode: "500", times: 1, match: "PUT /v3/gn/pix" });
  // The worker's read-back: the lost one is found once its lease is over (no PUT), then the
  // queued one is sent; the 500 made nothing, so once its lease is over it is sent again.
  await decidedTransferAfterFinish(lost.id, sm.id);
  assert.equal(putsOf(lost.id), 1, "the lost answer's send was read back, not sent again");
  await decidedTransferAfterFinish(broke.id, sm.id);
  assert.equal(putsOf(broke.id), 2, "two PUTs for the queued one: the 500, then the send");
  assert.equal(sendCalls(w.efi) - puts, 2);
  assert.equal([...w.efi.ctx.sends.values()].filter((s) => s.idEnvio === lost.id.replace("_", "") || s.idEnvio === broke.id.replace("_", "")).length, 2);
  await assertLedgerInvariants(w.t);
});

/** Waits for the send to exist at Efí, finishes it there (REALIZADO), then waits for the payout's approval. */
async function decidedTransferAfterFinish(id: string, smId: string) {
  const idEnvio = id.replace("_", "");
  const deadline = Date.now() + 15_000;
  while (!sendOf(idEnvio) && Date.now() < deadline) await w.t.services.connect.payouts.transfers.reconcile();
  assert.equal(typeof w.efi.finishSend(idEnvio, true), "object");
  assert.equal((await decidedTransfer(w.t, id, smId)).status, "approved");
}

test("refused before any call: a submerchant no longer active; without PAYOUT_PROVIDER's settings the start stops naming them", async () => {
  const sm = await liveSubmerchant(w);
  const p = await requestLivePayout(w, sm.key, sm.id, 5000);
  expectStatus(await admin(w.t, "POST", `/v1/admin/submerchants/${sm.id}/status`, { status: "blocked" }), 200);
  const puts = sendCalls(w.efi);
  const res = await approve(p.id);
  expectStatus(res, 422);
  assert.match(res.json().message, /not active/);
  assert.equal(sendCalls(w.efi), puts);
  assert.equal((await payoutForAdmin(w.t, p.id, sm.id)).transfer, null);

  const start = (env: Record<string, string>) => () => loadConfig({ DATA_DIR: tempDir(), ...env }, PROCESSORS);
  assert.throws(start({ PAYOUT_PROVIDER: "efi" }), (err: ConfigError) =>
    ["EFI_CLIENT_ID", "EFI_CLIENT_SECRET", "EFI_CERTIFICATE", "EFI_PIX_KEY"].every((v) => err.problems.some((m) => m.startsWith(`${v} is required by PAYOUT_PROVIDER`))));
  assert.throws(start({ PAYOUT_PROVIDER: "pagarme" }), (err: ConfigError) => err.problems.some((m) => /PAYOUT_PROVIDER=pagarme is not a processor that sends Pix payouts \(known: efi\)/.test(m)));
  assert.throws(start({ PAYOUT_AUTO_APPROVE: "true" }), (err: ConfigError) => err.problems.some((m) => /PAYOUT_AUTO_APPROVE=true needs PAYOUT_PROVIDER/.test(m)));
});

test("PAYOUT_AUTO_APPROVE=true: each production request is sent at once (201, pending + sending), and REALIZADO approves it", async () => {
  const auto = await startEfiPayoutsWorld({ autoApprove: true });
  try {
    const sm = await liveSubmerchant(auto);
    const p = await requestLivePayout(auto, sm.key, sm.id, 7000);
    assert.deepEqual([p.status, p.transfer], ["pending", { status: "sending" }]);
    const idEnvio = p.id.replace("_", "");
    assert.ok(auto.efi.ctx.sends.get(idEnvio), "sent at creation");
    expectStatus(await admin(auto.t, "POST", `/v1/admin/payout-requests/${p.id}/approve`), 202);
    assert.equal(sendCalls(auto.efi), 1);
    assert.equal(typeof auto.efi.finishSend(idEnvio, true), "object");
    assert.equal((await decidedTransfer(auto.t, p.id, sm.id)).status, "approved");
  } finally {
    await auto.close();
  }
});
