import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { addDays, calendarDate } from "../../src/lib/calendar.js";
import { efiIds } from "../../src/processors/efi/client.js";
import { expectStatus, type SeededMerchant } from "../helpers/app.js";
import { startEfiWorld, type EfiWorld } from "../processors/live-efi-shared.js";
import { chargeRow, pixCustomer } from "../processors/live-shared.js";
import { activate, assertLedgerInvariants, call, createSubmerchant, FEES, seedMaster } from "./helpers.js";
// topology: skip: every app stays in-process: Efí probes PUBLIC_BASE_URL at registration, and the test's own listening app is that URL

// Provider settlement through Efí (the split de pagamento Pix, against the Efí fake, which
// validates configurations and vínculos as Efí documents them): a split Pix makes one split
// configuration under an id derived from the charge, with FIXED parts in reais feira computed
// (the sellers' accounts and CNPJs, the operator's part the rest), linked to the cob before the
// BR Code is answered; paid, each seller's part lands in its own Efí account and is its
// atProvider balance in feira, to the cent. A lost answer makes no second configuration; a
// configuration Efí refuses makes no cob. A Pix with a due date is a cobv, linked the same way
// under /v2/gn/split/cobv/.

let w: EfiWorld;
let master: SeededMerchant;
let a: { id: string; companyTaxId: string };
let b: { id: string; companyTaxId: string };
const ACCOUNT_A = "7700123";
const ACCOUNT_B = "7700456";

before(async () => {
  w = await startEfiWorld();
  master = await seedMaster(w.t, FEES);
  a = await createSubmerchant(w.t, master.productionKey);
  b = await createSubmerchant(w.t, master.productionKey);
  for (const [sm, account] of [[a, ACCOUNT_A], [b, ACCOUNT_B]] as const) {
    await activate(w.t, master.productionKey, sm.id);
    expectStatus(await call(w.t, "POST", `/v1/submerchants/${sm.id}/provider-accounts`, master.productionKey, { processor: "efi", account }), 201);
  }
  // Only a's account exists at Efí: b's number is refused by Efí when a split names it.
  w.efi.addSplitAccount(ACCOUNT_A, a.companyTaxId);
  expectStatus(await call(w.t, "PUT", "/v1/connect/settings", master.productionKey, { settlement: "provider" }), 200);
});
after(async () => { await w.close(); });

const splitPix = (split: unknown[], amount = 100) => call(w.t, "POST", "/v1/charges", master.productionKey, {
  amount, currency: "BRL", customer: pixCustomer, paymentMethod: { type: "pix" }, split,
});
const configCalls = (chargeId: string) => w.efi.core.requests.filter((r) => r.route === `PUT /v2/gn/split/config/${efiIds.splitConfig(chargeId)}`).length;

test("a split Pix at Efí: one configuration with fixed parts, linked to the cob before the BR Code; paid, the seller's part is its atProvider balance, as Efí paid it", async () => {
  const res = await splitPix([{ merchantId: a.id, percentage: 30 }]);
  expectStatus(res, 201);
  const charge = res.json() as { id: string; status: string; paymentDetails: { qrCode: string } };
  assert.equal(charge.status, "pending");
  const txid = efiIds.txid(charge.id);
  const config = w.efi.splitOf(txid);
  assert.ok(config, "the cob is linked to its split configuration");
  assert.equal(config.id, efiIds.splitConfig(charge.id));
  // 100.00 BRL, Pix fee 1 %: net 9900; a: 30 % = 2970; the operator's part the rest of 10000.
  assert.deepEqual(config.split.minhaParte, { tipo: "fixo", valor: "70.30" });
  assert.deepEqual(config.split.repasses, [{ tipo: "fixo", valor: "29.70", favorecido: { cnpj: a.companyTaxId.replace(/\D/g, ""), conta: ACCOUNT_A } }]);
  assert.equal(config.split.divisaoTarifa, "assumir_total");
  // The vínculo came before the answer that carries the BR Code.
  const routes = w.efi.core.requests.map((r) => r.route);
  assert.ok(routes.indexOf(`PUT /v2/gn/split/cob/${txid}/vinculo/${config.id}`) > routes.indexOf(`PUT /v2/cob/${txid}`));
  assert.equal(charge.paymentDetails.qrCode, w.efi.ctx.cobs.get(txid)!.pixCopiaECola);

  assert.equal(typeof w.efi.pay(txid), "object");
  await w.efi.flushWebhooks();
  assert.equal((await chargeRow({ t: w.t, merchantId: master.id }, charge.id)).status, "paid");
  const bal = await call(w.t, "GET", `/v1/submerchants/${a.id}/balance`, master.productionKey);
  expectStatus(bal, 200);
  assert.deepEqual(bal.json().atProvider, [{ processor: "efi", currency: "BRL", amount: 2970 }]);
  assert.deepEqual(bal.json().available, [], "never feira's available balance");
  assert.equal(w.efi.splitBalance(ACCOUNT_A), 2970, "both books agree to the cent");
  await assertLedgerInvariants(w.t);
});

test("a fixed amount: the seller's part is that amount, in reais at Efí", async () => {
  const res = await splitPix([{ merchantId: a.id, amount: 12.34 }], 50);
  expectStatus(res, 201);
  const config = w.efi.splitOf(efiIds.txid(res.json().id))!;
  assert.deepEqual(config.split.repasses.map((r) => r.valor), ["12.34"]);
  assert.equal(config.split.minhaParte.valor, "37.66");
});

test("the configuration's answer lost: it is read back, never made twice, and the cob is linked to it", async () => {
  await w.efi.setFault("lost-answer", { times: 1, match: "PUT /v2/gn/split/config/" });
  const res = await splitPix([{ merchantId: a.id, percentage: 10 }]);
  expectStatus(res, 201);
  const id = res.json().id as string;
  assert.equal(configCalls(id), 1, "read back (GET) instead of a second PUT");
  assert.equal(w.efi.core.requests.filter((r) => r.route === `GET /v2/gn/split/config/${efiIds.splitConfig(id)}`).length, 1);
  assert.equal(w.efi.splitOf(efiIds.txid(id))?.id, efiIds.splitConfig(id));
});

test("the vínculo's answer lost: the cob's split is read back and the charge shows its BR Code", async () => {
  await w.efi.setFault("lost-answer", { times: 1, match: "PUT /v2/gn/split/cob/" });
  const res = await splitPix([{ merchantId: a.id, percentage: 10 }]);
  expectStatus(res, 201);
  assert.equal(res.json().status, "pending");
  const txid = efiIds.txid(res.json().id);
  assert.ok(w.efi.splitOf(txid));
  assert.equal(w.efi.ctx.cobs.get(txid)!.status, "ATIVA");
  assert.ok(w.efi.core.requests.some((r) => r.route === `GET /v2/gn/split/cob/${txid}`));
});

test("a seller's account Efí does not know: Efí refuses the configuration, the charge fails and no cob is made", async () => {
  const res = await splitPix([{ merchantId: b.id, percentage: 10 }]);
  expectStatus(res, 201);
  assert.equal(res.json().status, "failed");
  assert.equal(w.efi.ctx.cobs.has(efiIds.txid(res.json().id)), false, "no cob anyone could pay whole into the operator's account");
  await assertLedgerInvariants(w.t);
});

test("a seller without an Efí account in feira: 422 submerchant_not_at_provider before any call", async () => {
  const c = await createSubmerchant(w.t, master.productionKey);
  await activate(w.t, master.productionKey, c.id);
  const before = w.efi.core.requests.length;
  const res = await splitPix([{ merchantId: c.id, percentage: 10 }]);
  expectStatus(res, 422);
  assert.equal(res.json().code, "submerchant_not_at_provider");
  assert.match(res.json().message, /has no active account at efi/);
  assert.equal(w.efi.core.requests.length, before);
});

const dueDatePix = (split: unknown[]) => call(w.t, "POST", "/v1/charges", master.productionKey, {
  amount: 100, currency: "BRL", customer: pixCustomer, split,
  paymentMethod: { type: "pix", dueDate: addDays(calendarDate(new Date(), "America/Sao_Paulo"), 3) },
});
const atProvider = async (id: string) => {
  const bal = await call(w.t, "GET", `/v1/submerchants/${id}/balance`, master.productionKey);
  expectStatus(bal, 200);
  return (bal.json().atProvider as { amount: number }[])[0]?.amount ?? 0;
};

test("a Pix with a due date at Efí: its cobv linked to the configuration before the BR Code; paid, the seller's part is its atProvider balance", async () => {
  const [beforeFeira, beforeEfi] = [await atProvider(a.id), w.efi.splitBalance(ACCOUNT_A)];
  const res = await dueDatePix([{ merchantId: a.id, percentage: 30 }]);
  expectStatus(res, 201);
  const charge = res.json() as { id: string; status: string; paymentDetails: { qrCode: string } };
  assert.equal(charge.status, "pending");
  const txid = efiIds.txid(charge.id);
  assert.ok(w.efi.cobvs.has(txid), "a cobv");
  assert.equal(w.efi.ctx.cobs.has(txid), false, "no cob");
  const config = w.efi.splitOf(txid);
  assert.equal(config?.id, efiIds.splitConfig(charge.id), "the cobv is linked to the charge's configuration");
  assert.deepEqual(config.split.repasses.map((r) => r.valor), ["29.70"]);
  const routes = w.efi.core.requests.map((r) => r.route);
  assert.ok(routes.indexOf(`PUT /v2/gn/split/cobv/${txid}/vinculo/${config.id}`) > routes.indexOf(`PUT /v2/cobv/${txid}`), "linked after the cobv, before the answer");
  assert.equal(charge.paymentDetails.qrCode, w.efi.cobvs.get(txid)!.pixCopiaECola);

  assert.equal(typeof w.efi.payCobv(txid), "object");
  await w.efi.flushWebhooks();
  assert.equal((await chargeRow({ t: w.t, merchantId: master.id }, charge.id)).status, "paid");
  assert.equal(await atProvider(a.id) - beforeFeira, 2970, "the seller's share, at the processor");
  assert.equal(w.efi.splitBalance(ACCOUNT_A) - beforeEfi, 2970, "both books agree to the cent");
  await assertLedgerInvariants(w.t);
});

test("a cobv whose vínculo fails: the cobv is removed and the charge fails, never payable whole to the operator", async () => {
  await w.efi.setFault("500", { times: 1, match: "PUT /v2/gn/split/cobv/" });
  const res = await dueDatePix([{ merchantId: a.id, percentage: 10 }]);
  expectStatus(res, 201);
  assert.equal(res.json().status, "failed");
  const txid = efiIds.txid(res.json().id);
  assert.ok(w.efi.core.requests.some((r) => r.route === `GET /v2/gn/split/cobv/${txid}`), "the cobv's split read back first");
  assert.equal(w.efi.cobvs.get(txid)?.status, "REMOVIDA_PELO_USUARIO_RECEBEDOR");
  assert.equal(typeof w.efi.payCobv(txid), "string", "no payer's bank can pay it");
  await assertLedgerInvariants(w.t);
});

// A resumed charge (a retry of its Idempotency-Key) whose first attempt left an unlinked cob: the
// router finds the cob and adopts it through the adapter, which links it, or removes it and fails.
// Made here by an attempt without the split, then the route's resumed authorization with it.
async function resumedAfterUnlinkedCob(chargeId: string) {
  const input = {
    chargeId, amountMinor: 10_000, currency: "BRL", instrument: { kind: "pix" as const, expiresIn: 3600, options: {} },
    merchant: { id: master.id, name: "Loja", city: "SAO PAULO", pixKey: "" }, customer: null, now: new Date(), publicBaseUrl: w.t.config.publicBaseUrl,
  };
  const first = await w.t.services.processors.adapter("production", "efi")!.authorize(input);
  assert.equal(first.outcome, "pending");
  assert.equal(w.efi.splitOf(efiIds.txid(chargeId)), undefined, "the first attempt's cob is not linked");
  const split = { operatorMinor: 7030, shares: [{ submerchantId: a.id, amountMinor: 2970, liable: false, feeBearer: false, at: { efi: { account: ACCOUNT_A, taxId: a.companyTaxId } } }] };
  return { first, again: await w.t.services.processors.route("production")!.authorize({ ...input, split, resumed: true }) };
}

test("a resumed charge's unlinked cob is linked before it is adopted: the same cob, its BR Code, the charge's configuration", async () => {
  const chargeId = `ch_resumed${Date.now()}a`;
  const { first, again } = await resumedAfterUnlinkedCob(chargeId);
  assert.equal(again.outcome, "pending");
  assert.deepEqual("details" in again && again.details, "details" in first && first.details, "the first attempt's cob and BR Code");
  assert.equal(w.efi.splitOf(efiIds.txid(chargeId))?.id, efiIds.splitConfig(chargeId));
  assert.equal(w.efi.core.requests.filter((r) => r.route === `PUT /v2/cob/${efiIds.txid(chargeId)}`).length, 1, "no second cob asked for");
});

test("a resumed charge's cob that cannot be linked is removed and the charge fails", async () => {
  const chargeId = `ch_resumed${Date.now()}b`;
  await w.efi.setFault("500", { times: 1, match: "PUT /v2/gn/split/cob/" });
  const { again } = await resumedAfterUnlinkedCob(chargeId);
  assert.equal(again.outcome, "failed");
  assert.equal(w.efi.ctx.cobs.get(efiIds.txid(chargeId))?.status, "REMOVIDA_PELO_USUARIO_RECEBEDOR");
});
