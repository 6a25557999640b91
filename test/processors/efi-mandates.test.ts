import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { MandateInput } from "../../src/processors/capabilities.js";
import type { AuthorizeInput } from "../../src/processors/processor.js";
import { efiIds } from "../../src/processors/efi/client.js";
import { createEfiProcessor } from "../../src/processors/efi/efi.processor.js";
import { brDate } from "../helpers/fake-efi-model.js";
import { startFakeEfi, type FakeEfi } from "../helpers/fake-efi.js";
import { until } from "../helpers/wait.js";

// The Efí adapter's mandates capability against the Efí fake (mutual TLS, OAuth): a recurrence is
// made once per mandate id, whatever the retries; each period's cobr once per debit id, refused
// outside the Central Bank's 2-10 day window or under a recurrence not approved, and read back as
// scheduled, paid or failed with the payer's bank's code.
let f: FakeEfi;
let adapter: ReturnType<typeof createEfiProcessor>;
before(async () => {
  f = await startFakeEfi({ webhookRetries: 0 });
  adapter = createEfiProcessor({
    clientId: f.clientId, clientSecret: f.clientSecret, caFile: f.certs.caFile, baseUrl: f.url, timeoutMs: 5_000, certificate: f.certs.client.pemFile, pixKey: f.pixKey,
    account: { conta: f.ctx.account.conta, tipoConta: "CORRENTE", agencia: f.ctx.account.agencia },
  });
});
after(async () => { await adapter.close(); await f.close(); });

const DAY = 86_400_000;
const inDays = (n: number) => brDate(new Date(Date.now() + n * DAY));
let seq = 0;
const mandateInput = (extra: Partial<MandateInput> = {}): MandateInput => ({
  mandateId: `mdt_01jd${String(++seq).padStart(22, "0")}`, journey: "qr", maxAmountMinor: 2990,
  payer: { name: "Maria Silva", documentType: "cpf", documentNumber: "52998224725" },
  periodicity: "monthly", startDate: inDays(30), retryPolicy: "3_in_7_days", description: "Pro monthly", now: new Date(), ...extra,
});

test("a recurrence is made once per mandate id: a create retried after a lost answer adopts the first", async () => {
  const input = mandateInput();
  const first = await adapter.mandates.create(input);
  assert.equal(first.outcome, "pending", JSON.stringify(first));
  const again = await adapter.mandates.create(input);
  assert.deepEqual(again, first);
  assert.equal([...f.ctx.recs.values()].filter((r) => (r.vinculo as { contrato: string }).contrato === input.mandateId).length, 1);
  const ref = (first as { mandateRef: string }).mandateRef;
  assert.deepEqual(await adapter.mandates.lookup({ mandateId: input.mandateId, payer: input.payer }), first);
  assert.equal((await adapter.mandates.cancel({ mandateId: input.mandateId, mandateRef: ref })).outcome, "cancelled");
});

test("a cobr is refused under a recurrence not approved and outside the 2-10 day window; inside it, made once per debit id and read back", async () => {
  const m = await adapter.mandates.create(mandateInput());
  const mandateRef = (m as { mandateRef: string }).mandateRef;
  const debit = (debitId: string, days: number) => adapter.mandates.scheduleDebit({ debitId, mandateRef, amountMinor: 2990, dueDate: inDays(days), description: "Period 2" });
  const early = await debit("ch_01jdearly00000000000000000", 5);
  assert.equal(early.outcome, "failed", `CRIADA: not approved yet: ${JSON.stringify(early)}`);
  f.approveRec(mandateRef);
  for (const days of [1, 11]) {
    const r = await debit(`ch_01jdwindow${days}000000000000000`.slice(0, 29), days);
    assert.deepEqual(r.outcome, "failed", `${days} days ahead`);
    assert.match((r as { reason: string }).reason, /CobROperacaoInvalida/);
  }
  const id = "ch_01jdinside00000000000000000".slice(0, 29);
  const made = await debit(id, 5);
  assert.deepEqual(made, { outcome: "scheduled", debitRef: efiIds.cobr(id), dueDate: inDays(5) });
  assert.deepEqual(await debit(id, 5), made, "a second PUT under the txid is read back, never a second cobr");
  await until("the cobr ATIVA", () => f.ctx.cobrs.get(efiIds.cobr(id))?.status === "ATIVA");
  assert.equal(typeof f.debit(efiIds.cobr(id), { ok: false, codigo: "AM04" }), "object");
  assert.deepEqual(await adapter.mandates.lookupDebit({ debitId: id }), { outcome: "failed", debitRef: efiIds.cobr(id), reason: "AM04" });
});

test("a debit the payer's bank makes is read back as paid", async () => {
  const m = await adapter.mandates.create(mandateInput());
  const mandateRef = (m as { mandateRef: string }).mandateRef;
  f.approveRec(mandateRef);
  const id = "ch_01jdpaid000000000000000000";
  await adapter.mandates.scheduleDebit({ debitId: id, mandateRef, amountMinor: 2990, dueDate: inDays(3), description: "Period 2" });
  await until("the cobr ATIVA", () => f.ctx.cobrs.get(efiIds.cobr(id))?.status === "ATIVA");
  f.debit(efiIds.cobr(id), { ok: true });
  assert.deepEqual(await adapter.mandates.lookupDebit({ debitId: id, debitRef: efiIds.cobr(id) }), { outcome: "paid", debitRef: efiIds.cobr(id) });
});


/** A period's cobr under an approved recurrence, its first attempt refused by the payer's bank (AM04: no funds). */
async function failedCobr(debitId: string, retryPolicy: MandateInput["retryPolicy"] = "3_in_7_days") {
  const m = await adapter.mandates.create(mandateInput({ retryPolicy }));
  const mandateRef = (m as { mandateRef: string }).mandateRef;
  f.approveRec(mandateRef);
  const txid = efiIds.cobr(debitId);
  await adapter.mandates.scheduleDebit({ debitId, mandateRef, amountMinor: 2990, dueDate: inDays(3), description: "Period 2" });
  await until("the cobr ATIVA", () => f.ctx.cobrs.get(txid)?.status === "ATIVA");
  f.debit(txid, { ok: false, codigo: "AM04" });
  return { mandateRef, txid };
}

test("a failed debit is retried as a new attempt of its cobr (retentativa), within the policy's 3 in 7 days", async () => {
  const id = "ch_01jdretry00000000000000000";
  const { mandateRef, txid } = await failedCobr(id);
  // Each retry: the same cobr, one attempt more; a second request while one is open reads it back.
  for (const [i, day] of [4, 6].entries()) {
    const scheduled = { outcome: "scheduled", debitRef: txid, dueDate: inDays(day) };
    assert.deepEqual(await adapter.mandates.retryDebit({ debitRef: txid, date: inDays(day) }), scheduled, `retry ${i + 1}`);
    assert.deepEqual(await adapter.mandates.retryDebit({ debitRef: txid, date: inDays(day) }), scheduled, "asked again: read back");
    f.debit(txid, { ok: false, codigo: "AM04" });
  }
  assert.deepEqual(await adapter.mandates.retryDebit({ debitRef: txid, date: inDays(9) }), { outcome: "scheduled", debitRef: txid, dueDate: inDays(9) }, "the third retry");
  f.debit(txid, { ok: true });
  assert.deepEqual(await adapter.mandates.lookupDebit({ debitId: id }), { outcome: "paid", debitRef: txid });
  assert.equal(f.ctx.cobrs.get(txid)!.tentativas.length, 4, "one cobr, four attempts");
  assert.equal([...f.ctx.cobrs.values()].filter((c) => c.idRec === mandateRef).length, 1);
});

test("a retry beyond the policy is refused and the debit stays failed: no retries without PERMITE_3R_7D, none after the third", async () => {
  const none = await failedCobr("ch_01jdnoretry000000000000000", "none");
  assert.deepEqual(await adapter.mandates.retryDebit({ debitRef: none.txid, date: inDays(4) }), { outcome: "failed", debitRef: none.txid, reason: "AM04" });

  const { txid } = await failedCobr("ch_01jdspent00000000000000000");
  for (const day of [4, 6, 9]) {
    assert.equal((await adapter.mandates.retryDebit({ debitRef: txid, date: inDays(day) })).outcome, "scheduled");
    f.debit(txid, { ok: false, codigo: "AM04" });
  }
  assert.deepEqual(await adapter.mandates.retryDebit({ debitRef: txid, date: inDays(10) }), { outcome: "failed", debitRef: txid, reason: "AM04" });
  assert.equal(f.ctx.cobrs.get(txid)!.tentativas.length, 4);
});

/** A pix_automatico charge as the billing engine sends it: due on `dueDate` under the mandate's rec; a retry names the period's cobr. */
const debitCharge = (chargeId: string, options: { dueDate: string; mandateRef: string; debitRef?: string }): AuthorizeInput => ({
  chargeId, amountMinor: 2990, currency: "BRL", customer: null, now: new Date(), publicBaseUrl: "http://127.0.0.1", description: "Pro monthly",
  merchant: { id: "mer_1", name: "Loja", city: "SAO PAULO", pixKey: f.pixKey },
  instrument: { kind: "pix_automatico", expiresIn: 11 * 86_400, options: { mandateId: "mdt_1", ...options } },
});

test("a pix_automatico charge is the period's cobr under its txid: authorized once, looked up by the charge id, paid by the payer's bank", async () => {
  const m = await adapter.mandates.create(mandateInput());
  const mandateRef = (m as { mandateRef: string }).mandateRef;
  f.approveRec(mandateRef);
  const id = "ch_01jdcharge0000000000000000";
  const input = debitCharge(id, { dueDate: inDays(5), mandateRef });
  const first = await adapter.authorize(input);
  assert.equal(first.outcome, "pending", JSON.stringify(first));
  assert.equal((first as { pspRefId: string }).pspRefId, efiIds.cobr(id));
  assert.deepEqual((first as { details: unknown }).details, { dueDate: inDays(5), mandateId: "mdt_1", txid: efiIds.cobr(id), expiresAt: (first as { expiresAt: Date }).expiresAt.toISOString() });
  assert.equal((await adapter.authorize(input)).outcome, "pending", "the same charge again: the first cobr read back");
  assert.equal([...f.ctx.cobrs.values()].filter((c) => c.idRec === mandateRef).length, 1);
  await until("the cobr ATIVA", () => f.ctx.cobrs.get(efiIds.cobr(id))?.status === "ATIVA");
  const found = await adapter.lookup({ chargeId: id });
  assert.equal(found.outcome === "pending" && found.details.dueDate, inDays(5), "no cob under the txid: the cobr is read");
  f.debit(efiIds.cobr(id), { ok: true });
  assert.deepEqual(await adapter.lookup({ chargeId: id, pspRefId: efiIds.cobr(id) }), { outcome: "paid", pspRefId: efiIds.cobr(id) });
});

test("a pix_automatico charge refused by the payer's bank is refused (insufficient_funds); its retry is a new attempt of the same cobr", async () => {
  const id = "ch_01jdrefused000000000000000";
  const { mandateRef, txid } = await failedCobr(id);
  assert.deepEqual(await adapter.lookup({ chargeId: id }), { outcome: "refused", reason: "insufficient_funds", pspRefId: txid, providerCode: "AM04" });
  const retryId = "ch_01jdretried000000000000000";
  const retried = await adapter.authorize(debitCharge(retryId, { dueDate: inDays(4), mandateRef, debitRef: txid }));
  assert.equal(retried.outcome, "pending");
  assert.equal((retried as { pspRefId: string }).pspRefId, txid, "the period's cobr, not a new one");
  assert.equal([...f.ctx.cobrs.values()].filter((c) => c.idRec === mandateRef).length, 1);
  f.debit(txid, { ok: true });
  assert.deepEqual(await adapter.lookup({ chargeId: retryId, pspRefId: txid }), { outcome: "paid", pspRefId: txid });
});

test("a pix_automatico charge Efí refuses to make (a rec not approved) failed, and nothing was made", async () => {
  const m = await adapter.mandates.create(mandateInput());
  const id = "ch_01jdnotapproved00000000000";
  const r = await adapter.authorize(debitCharge(id, { dueDate: inDays(5), mandateRef: (m as { mandateRef: string }).mandateRef }));
  assert.equal(r.outcome, "failed");
  assert.equal((r as { reason: string }).reason, "processing_error");
  assert.equal(f.ctx.cobrs.has(efiIds.cobr(id)), false);
  assert.deepEqual(await adapter.lookup({ chargeId: id }), { outcome: "not_found" });
});
