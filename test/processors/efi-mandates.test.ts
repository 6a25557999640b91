import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { MandateInput } from "../../src/processors/capabilities.js";
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
  assert.equal(first.outcome, "pending");
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
  assert.equal(early.outcome, "failed", "CRIADA: not approved yet");
  f.approveRec(mandateRef);
  for (const days of [1, 11]) {
    const r = await debit(`ch_01jdwindow${days}000000000000000`.slice(0, 29), days);
    assert.deepEqual(r.outcome, "failed", `${days} days ahead`);
    assert.match((r as { reason: string }).reason, /CobROperacaoInvalida/);
  }
  const id = "ch_01jdinside00000000000000000".slice(0, 29);
  const made = await debit(id, 5);
  assert.deepEqual(made, { outcome: "scheduled", debitRef: efiIds.cobr(id) });
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

