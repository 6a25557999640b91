import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { eq, inArray } from "drizzle-orm";
import { idempotencyKeys, mandates, subscriptions } from "../../src/db/schema.js";
import { efiIds } from "../../src/processors/efi/client.js";
import { expectStatus, storedKey } from "../helpers/app.js";
import type { Rec } from "../helpers/fake-efi-context.js";
import { until } from "../helpers/wait.js";
import { startEfiWorld, type EfiWorld } from "../processors/live-efi-shared.js";
import { call, createPlan, customer, eventsOf, getSub, type Sub } from "./helpers.js";
// topology: skip: every app stays in-process: Efí probes PUBLIC_BASE_URL at registration, and the test's own listening app is that URL

// Production Pix Automático through Efí (pix_automatico=efi) against the Efí fake over mutual TLS:
// the sign-up makes a recurrence (journey 3 naming the first period's cob), found again under the
// mandate id after a crash; the payer's approval, rejection and cancellation come from notices
// read back; the merchant's cancel cancels the recurrence at Efí; a lost notice is found by the
// reconciliation; a notice naming a recurrence feira does not have changes nothing.
let w: EfiWorld;
before(async () => { w = await startEfiWorld({ mandates: true }); });
after(async () => w.close());

type Mandate = { id: string; status: string; journey: string; qrCode: string; cancelledBy: string | null };
type PixSub = Sub & { mandate: Mandate };

async function signUp(plan: { id: string }, headers: Record<string, string> = {}): Promise<PixSub> {
  const res = await call(w.t, w.key, "POST", "/v1/subscriptions", { planId: plan.id, customer, paymentMethod: { type: "pix_automatico" } }, headers);
  expectStatus(res, 201);
  return res.json();
}

/** The fake's recurrence under feira's mandate id (its vinculo.contrato). */
const recOf = (mandateId: string): Rec[] => [...w.efi.ctx.recs.values()].filter((r) => (r.vinculo as { contrato?: string }).contrato === mandateId);
const mandateRow = async (id: string) => (await w.t.database.db.select().from(mandates).where(eq(mandates.id, id)))[0]!;
const sub = async (id: string) => (await getSub(w.t, w.key, id)) as PixSub;
/** A reconciliation's time once every mandate's last read is an interval old. */
const aMinuteOn = () => new Date(Date.now() + 61_000);

/** A journey-2 subscription (a trial) whose recurrence the payer approved, active. */
async function activeTrialSub() {
  const s = await signUp(await createPlan(w.t, w.key, { trialDays: 7 }));
  const rec = recOf(s.mandate.id)[0]!;
  w.efi.approveRec(rec.idRec);
  await until("active", async () => (await sub(s.id)).status === "active");
  return { s, rec };
}

test("journey 3: the recurrence names the first cob, its QR is the mandate's, and paying it activates mandate and subscription", async () => {
  const plan = await createPlan(w.t, w.key);
  const s = await signUp(plan);
  assert.equal(s.status, "pending_activation");
  assert.equal(s.mandate.status, "pending");
  assert.equal(s.mandate.journey, "qr_with_payment");
  const [rec, ...more] = recOf(s.mandate.id);
  assert.ok(rec && more.length === 0, "one recurrence under the mandate id");
  assert.equal(rec.status, "CRIADA");
  assert.equal(rec.politicaRetentativa, "PERMITE_3R_7D");
  assert.equal(rec.calendario.periodicidade, "MENSAL");
  assert.equal((rec.ativacao as { dadosJornada: { txid: string } }).dadosJornada.txid, efiIds.txid(s.charges[0]!.chargeId));
  assert.equal((await mandateRow(s.mandate.id)).providerRef, rec.idRec);
  assert.ok(s.mandate.qrCode.includes("rec/"), "the QR carries the recurrence's location");

  assert.equal(typeof w.efi.approveRec(rec.idRec), "object");
  await until("subscription active", async () => (await sub(s.id)).status === "active");
  await until("mandate active", async () => (await sub(s.id)).mandate.status === "active");
  const types = (await eventsOf(w.t, s.mandate.id)).map((e) => e.type);
  assert.equal(types.filter((x) => x === "mandate.activated").length, 1);
});

test("a sign-up retried after a crash that lost its mandate row finds Efí's recurrence again: never two", async () => {
  const plan = await createPlan(w.t, w.key);
  const key = { "idempotency-key": `pa-efi-crash-${Date.now()}` };
  const s = await signUp(plan, key);
  const before = (await mandateRow(s.mandate.id)).providerRef;
  // As if the process died between Efí's answer and the mandate's insert: no mandate, and the
  // key's claim abandoned (its stored answer gone), so the retry reruns the sign-up under its seed.
  await w.t.database.db.delete(mandates).where(eq(mandates.id, s.mandate.id));
  await w.t.database.db.update(idempotencyKeys).set({ state: "processing", responseStatus: null, responseBody: null, lockedUntil: new Date(0) })
    .where(eq(idempotencyKeys.key, storedKey(w.t, key["idempotency-key"])));
  const again = await signUp(plan, key);
  assert.equal(again.mandate.id, s.mandate.id);
  assert.equal(recOf(s.mandate.id).length, 1);
  assert.equal((await mandateRow(s.mandate.id)).providerRef, before);
});

test("journey 2 (a trial): the payer's approval notice, read back, activates the subscription", async () => {
  const plan = await createPlan(w.t, w.key, { trialDays: 7 });
  const s = await signUp(plan);
  assert.equal(s.mandate.journey, "qr");
  const rec = recOf(s.mandate.id)[0]!;
  assert.equal((rec.ativacao as { dadosJornada?: unknown }).dadosJornada, undefined);
  w.efi.approveRec(rec.idRec);
  await until("subscription active", async () => (await sub(s.id)).status === "active");
  assert.equal((await sub(s.id)).mandate.status, "active");
});

test("the payer's cancellation in the bank app cancels the subscription (mandate_cancelled)", async () => {
  const { s, rec } = await activeTrialSub();
  w.efi.cancelRec(rec.idRec);
  await until("cancelled", async () => (await sub(s.id)).status === "cancelled");
  const after = await sub(s.id);
  assert.equal(after.cancellationType, "mandate_cancelled");
  assert.equal(after.mandate.status, "cancelled");
  assert.equal(after.mandate.cancelledBy, "payer");
});

test("the merchant's cancel cancels the recurrence at Efí", async () => {
  const { s, rec } = await activeTrialSub();
  expectStatus(await call(w.t, w.key, "POST", `/v1/subscriptions/${s.id}/cancel`, {}), 200);
  assert.equal(rec.status, "CANCELADA");
  assert.equal((rec.encerramento as { cancelamento: { solicitante: string } }).cancelamento.solicitante, "USUARIO_RECEBEDOR");
  const after = await sub(s.id);
  assert.equal(after.status, "cancelled");
  assert.equal(after.mandate.cancelledBy, "merchant");
});

test("a rejection whose notice was lost is found by the reconciliation", async () => {
  const plan = await createPlan(w.t, w.key, { trialDays: 7 });
  const s = await signUp(plan);
  const rec = recOf(s.mandate.id)[0]!;
  w.efi.core.controls.setWebhookFault("drop", 1);
  w.efi.rejectRec(rec.idRec);
  await until("the notice dropped", () => w.efi.core.webhooks.sent.some((x) => x.label === "rec.REJEITADA"));
  assert.equal((await sub(s.id)).mandate.status, "pending");
  await w.t.services.subscriptions.reconcileMandates(aMinuteOn());
  const read = await sub(s.id);
  assert.equal(read.mandate.status, "rejected");
  assert.equal(read.status, "pending_activation");
  assert.deepEqual((await eventsOf(w.t, s.mandate.id)).map((e) => e.type), ["mandate.rejected"]);
});

test("a notice with a forged status or an unknown recurrence changes nothing: the recurrence is read back", async () => {
  const plan = await createPlan(w.t, w.key, { trialDays: 7 });
  const s = await signUp(plan);
  const rec = recOf(s.mandate.id)[0]!;
  const url = w.efi.webhookTarget("rec")!;
  for (const idRec of ["RR0908935620990101forged00001", rec.idRec]) {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ recs: [{ idRec, status: "APROVADA" }] }) });
    assert.equal(res.status, 200);
  }
  const read = await sub(s.id);
  assert.equal(read.mandate.status, "pending", "Efí still shows CRIADA, whatever the notice said");
  assert.equal(read.status, "pending_activation");
  assert.deepEqual(await eventsOf(w.t, s.mandate.id), []);
});

test("the receiver's own cancel at Efí (a merchant's cancel cut short) is never taken as the payer's; the merchant's retry finishes it", async () => {
  const { s, rec } = await activeTrialSub();
  const labels = () => w.efi.core.webhooks.sent.filter((x) => x.label === "rec.CANCELADA" && x.status === 200).length;
  const sent = labels();
  // As if feira's cancel died after Efí's answer: the rec is CANCELADA by the receiver, feira's mandate still active.
  await w.t.services.processors.mandates("production")!.capability.cancel({ mandateId: s.mandate.id, mandateRef: rec.idRec });
  await until("the notice answered", () => labels() > sent);
  await w.t.services.subscriptions.reconcileMandates(aMinuteOn());
  assert.equal((await sub(s.id)).status, "active");
  expectStatus(await call(w.t, w.key, "POST", `/v1/subscriptions/${s.id}/cancel`, {}), 200);
  const after = await sub(s.id);
  assert.equal(after.cancellationType, "immediate");
  assert.equal(after.mandate.cancelledBy, "merchant");
});

test("the reconciliation reads each open mandate once per interval, and a run that changed nothing reports no work", async () => {
  const plan = await createPlan(w.t, w.key, { trialDays: 7 });
  const [a, b] = [await signUp(plan), await signUp(plan)];
  const task = w.t.services.modules.subscriptions.tasks.find((x) => x.name === "subscriptions.mandates.reconcile")!;
  // Both last read (made) an interval ago: due now.
  await w.t.database.db.update(mandates).set({ updatedAt: new Date(Date.now() - 61_000) }).where(inArray(mandates.id, [a.mandate.id, b.mandate.id]));
  const reads = () => w.efi.core.requests.filter((r) => r.method === "GET" && r.route.startsWith("GET /v2/rec/")).length;
  const before = reads();
  assert.equal(await task.run(), 0, "read, nothing changed: no work, so the worker waits its interval");
  const once = reads() - before;
  assert.ok(once >= 2, `each due mandate read (${once} reads)`);
  assert.equal(await task.run(), 0);
  assert.equal(reads() - before, once, "read again only an interval later");
  // A change the notice missed is work.
  w.efi.core.controls.setWebhookFault("drop", 1);
  w.efi.rejectRec(recOf(a.mandate.id)[0]!.idRec);
  await until("the notice dropped", () => w.efi.core.webhooks.sent.some((x) => x.label === "rec.REJEITADA"));
  assert.equal(await w.t.services.subscriptions.reconcileMandates(aMinuteOn()), 1);
  assert.equal((await sub(a.id)).mandate.status, "rejected");
});
