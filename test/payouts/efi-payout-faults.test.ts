import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { efiNoticeSecret } from "../../src/processors/efi/notices.js";
import { admin, assertLedgerInvariants, balanceOf, call, decidedTransfer, payoutForAdmin } from "../connect/helpers.js";
import { expectStatus } from "../helpers/app.js";
import { liveSubmerchant, requestLivePayout, sendCalls, startEfiPayoutsWorld, type EfiPayoutsWorld } from "../helpers/efi-payouts-world.js";

// Efí payouts under the faults the probe of issue 46 used, against the Efí fake (3 s call
// timeout, so a send's lease is 6 s): a first send that lands late while its re-send is refused,
// a 401 whose token renewal is refused too, and money the receiving bank sends back.

let w: EfiPayoutsWorld;
before(async () => { w = await startEfiPayoutsWorld({ fake: { sendMode: "auto" } }); });
after(() => w.close());

const approve = (id: string) => admin(w.t, "POST", `/v1/admin/payout-requests/${id}/approve`);
const sendsOf = (id: string) => [...w.efi.ctx.sends.values()].filter((s) => s.idEnvio === id.replace("_", ""));
const eventsOf = async (key: string, type: string, id: string) =>
  (await call(w.t, "GET", "/v1/events?limit=100", key)).json().data.filter((e: { type: string; objectId: string }) => e.type === type && e.objectId === id);

test("a send that lands after its call timed out, while its re-send is refused (422): the payout ends approved, paid once, never rejected", async () => {
  const sm = await liveSubmerchant(w);
  const p = await requestLivePayout(w, sm.key, sm.id, 9000);
  // The first PUT lands 9 s after it arrives: after the client's 3 s timeout and the 6 s lease.
  // Meanwhile Efí refuses a second send under its idEnvio.
  w.efi.setModes({ sendLandingMs: 9_000 });
  const puts = sendCalls(w.efi);
  expectStatus(await approve(p.id), 202);
  const done = await decidedTransfer(w.t, p.id, sm.id, 40_000);
  assert.deepEqual([done.status, done.transfer], ["approved", { status: "sent" }], JSON.stringify(done));
  assert.equal(sendsOf(p.id).length, 1, "one transfer at Efí");
  assert.equal(done.endToEndId, sendsOf(p.id)[0]!.endToEndId);
  assert.equal(sendCalls(w.efi) - puts, 2, "the late send, and one re-send once its lease was over, refused");
  assert.equal((await eventsOf(sm.key, "payout.rejected", p.id)).length, 0);
  await assertLedgerInvariants(w.t);
});

test("a 401 on the send whose token renewal is refused too: the payout stays sending and is sent once the credentials work", async () => {
  const sm = await liveSubmerchant(w);
  const p = await requestLivePayout(w, sm.key, sm.id, 8000);
  w.efi.expireTokens();
  await w.efi.setFault({ mode: "401", times: 1, match: "POST /oauth/token" });
  const res = await approve(p.id);
  expectStatus(res, 202);
  assert.deepEqual([res.json().status, res.json().transfer], ["pending", { status: "sending" }], res.body);
  assert.equal(sendsOf(p.id).length, 0, "nothing reached Efí");
  const done = await decidedTransfer(w.t, p.id, sm.id, 40_000);
  assert.deepEqual([done.status, done.transfer], ["approved", { status: "sent" }], JSON.stringify(done));
  assert.equal(sendsOf(p.id).length, 1);
  await assertLedgerInvariants(w.t);
});

test("a paid payout the receiving bank sends back: returned, the money in the submerchant's balance again, payout.returned once per return", async () => {
  const sm = await liveSubmerchant(w);
  const p = await requestLivePayout(w, sm.key, sm.id, 10000);
  expectStatus(await approve(p.id), 202);
  const paid = await decidedTransfer(w.t, p.id, sm.id);
  assert.equal(paid.status, "approved");
  const before = (await balanceOf(w.t, sm.key)).available;
  const idEnvio = p.id.replace("_", "");
  // Part of it, then the rest; each notice comes twice (Efí retries), the worker reads too.
  const notify = async () => {
    const body = { pix: [{ endToEndId: sendsOf(p.id)[0]!.endToEndId, chave: w.efi.pixKey, valor: sendsOf(p.id)[0]!.valor, devolucoes: [{}] }] };
    for (let i = 0; i < 2; i++) {
      expectStatus(await w.t.app.inject({ method: "POST", url: `/v1/processors/efi/webhooks/pix?hmac=${efiNoticeSecret(w.efi.clientSecret)}`, payload: body }), 200);
    }
  };
  assert.equal(typeof w.efi.returnSend(idEnvio, { valor: "30.00" }), "object");
  await notify();
  let now = await payoutForAdmin(w.t, p.id, sm.id);
  assert.deepEqual([now.status, now.returnedAmount], ["returned", 3000], JSON.stringify(now));
  assert.equal((await balanceOf(w.t, sm.key)).available, before + 3000);
  assert.equal(typeof w.efi.returnSend(idEnvio), "object");
  await notify();
  now = await payoutForAdmin(w.t, p.id, sm.id);
  assert.deepEqual([now.status, now.returnedAmount, now.endToEndId], ["returned", p.netAmount, paid.endToEndId], JSON.stringify(now));
  assert.equal((await balanceOf(w.t, sm.key)).available, before + p.netAmount, "all the net back; the fee stays revenue");
  const events = await eventsOf(sm.key, "payout.returned", p.id);
  assert.deepEqual(events.map((e: { data: { returnedAmount: number; status: string } }) => [e.data.status, e.data.returnedAmount]).sort(), [["returned", 3000], ["returned", p.netAmount]]);
  assert.equal((await call(w.t, "GET", "/v1/admin/payout-requests?status=returned&environment=production", w.t.admin)).json().data.some((x: { id: string }) => x.id === p.id), true);
  await assertLedgerInvariants(w.t);
});

test("approvals racing: one send on its way at a time (Efí's advice), each next one sent only once the previous one concluded, each once", async () => {
  const sm = await liveSubmerchant(w, 500);
  const ps = [];
  for (const amount of [5000, 6000, 7000]) ps.push(await requestLivePayout(w, sm.key, sm.id, amount));
  const puts = sendCalls(w.efi);
  const answers = await Promise.all(ps.map((p) => approve(p.id)));
  for (const res of answers) expectStatus(res, 202);
  assert.equal(sendCalls(w.efi) - puts, 1, "one send made, the others wait");
  for (const p of ps) assert.equal((await decidedTransfer(w.t, p.id, sm.id, 40_000)).status, "approved");
  const sends = ps.map((p) => sendsOf(p.id));
  assert.deepEqual(sends.map((s) => s.length), [1, 1, 1], "each sent once");
  const order = sends.map(([s]) => s!).sort((a, b) => a.horario.solicitacao.localeCompare(b.horario.solicitacao));
  for (let i = 1; i < order.length; i++) {
    assert.ok(order[i - 1]!.horario.liquidacao! <= order[i]!.horario.solicitacao, `send ${i} started after send ${i - 1} concluded: ${JSON.stringify(order)}`);
  }
  assert.equal(sendCalls(w.efi) - puts, 3);
  await assertLedgerInvariants(w.t);
});
