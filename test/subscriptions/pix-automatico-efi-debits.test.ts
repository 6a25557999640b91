import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { charges, subscriptionInvoices, subscriptions } from "../../src/db/schema.js";
import { efiIds } from "../../src/processors/efi/client.js";
import { expectStatus } from "../helpers/app.js";
import type { Rec } from "../helpers/fake-efi-context.js";
import { brDate } from "../helpers/fake-efi-model.js";
import { until } from "../helpers/wait.js";
import { startEfiWorld, type EfiWorld } from "../processors/live-efi-shared.js";
import { runTask } from "../processors/live-shared.js";
import { bill as billNow, chargeOf as chargeIn, periodDue as duePeriod, periodIssued as issuedPeriod, statusOf as statusIn, sub as subOf } from "./efi-periods.js";
import { call, eventsOf } from "./helpers.js";
// topology: skip: every app stays in-process: Efí probes PUBLIC_BASE_URL at registration, and the test's own listening app is that URL

// Live Pix Automático periods through Efí (pix_automatico=efi) against the Efí fake: each period's
// charge is a pix_automatico charge made through the charge path, whose Efí authorize makes the
// period's cobr inside the 2-10 day window, once; the payer's bank's debit (the fake's) pays it, or
// fails it and the engine's retry is a retentativa of the same cobr, until the retries are spent
// and the dunning applies; a lost cobr notice is found by the reconciliation.
let w: EfiWorld;
before(async () => { w = await startEfiWorld({ mandates: true }); });
after(async () => w.close());

const sub = (id: string) => subOf(w, id);
const chargeOf = (id: string, attempt: number) => chargeIn(w, id, attempt);
const bill = () => billNow(w);
const cobrsOf = (rec: Rec) => [...w.efi.ctx.cobrs.values()].filter((c) => c.idRec === rec.idRec);
const periodDue = () => duePeriod(w);
const periodIssued = () => issuedPeriod(w);

/** The engine's next step (a retry) brought to now, and run. */
async function nextStep(subscriptionId: string, attempt: number) {
  const past = new Date(Date.now() - 60_000);
  const s = (await w.t.database.db.select().from(subscriptions).where(eq(subscriptions.id, subscriptionId)))[0]!;
  await w.t.database.db.update(subscriptionInvoices).set({ nextAttemptAt: past }).where(eq(subscriptionInvoices.id, s.openInvoiceId!));
  await w.t.database.db.update(subscriptions).set({ nextRunAt: past }).where(eq(subscriptions.id, subscriptionId));
  await until(`attempt ${attempt}`, async () => (await bill()) >= 0 && (await chargeOf(subscriptionId, attempt)) !== undefined);
}

const statusOf = (id: string, attempt: number) => statusIn(w, id, attempt);

test("a live period's charge is its cobr, made once inside the window, and the payer's bank's debit pays it", async () => {
  const { s, rec, due, charge, txid } = await periodIssued();
  assert.equal(charge.status, "pending");
  const cobr = w.efi.ctx.cobrs.get(txid)!;
  assert.equal(cobr.calendario.dataDeVencimento, brDate(due));
  // CobRSolicitada's required recebedor: the account of EFI_ACCOUNT_NUMBER, _TYPE and _BRANCH.
  const sent = JSON.parse(w.efi.core.requests.find((r) => r.route === `PUT /v2/cobr/${txid}`)!.body) as { recebedor?: unknown };
  assert.deepEqual(sent.recebedor, { conta: w.efi.ctx.account.conta, tipoConta: w.efi.ctx.account.tipoConta, agencia: w.efi.ctx.account.agencia });
  await bill();
  assert.equal(cobrsOf(rec).length, 1, "one cobr for the period, whatever the runs");
  w.efi.debit(txid, { ok: true });
  await until("the charge paid (the cobr notice read back)", async () => (await statusOf(s.id, 1)) === "paid");
  const read = await sub(s.id);
  assert.equal(read.status, "active");
  assert.equal(read.charges.length, 1);
  const types = (await eventsOf(w.t, s.id)).map((e) => e.type);
  assert.equal(types.filter((x) => x === "subscription.renewed").length, 1);
  assert.equal(types.includes("subscription.payment_failed"), false);
});

test("a failed debit is refused (insufficient_funds) and retried as a retentativa of the same cobr, then paid", async () => {
  const { s, rec, txid } = await periodIssued();
  w.efi.debit(txid, { ok: false, codigo: "AM04" });
  await until("the charge refused", async () => (await statusOf(s.id, 1)) === "refused");
  assert.equal((await chargeOf(s.id, 1))!.reason, "insufficient_funds");
  await nextStep(s.id, 2);
  assert.equal(await statusOf(s.id, 2), "pending");
  assert.equal(cobrsOf(rec).length, 1, "the retry is an attempt of the period's cobr, never a second cobr");
  assert.equal(w.efi.ctx.cobrs.get(txid)!.tentativas.length, 2);
  w.efi.debit(txid, { ok: true });
  await until("the retry paid", async () => (await statusOf(s.id, 2)) === "paid");
  assert.equal((await sub(s.id)).status, "active");
});

test("the retries spent (3 in 7 days), the subscription's dunning applies", async () => {
  const { s, rec, txid } = await periodIssued();
  w.efi.debit(txid, { ok: false, codigo: "AM04" });
  await until("the charge refused", async () => (await statusOf(s.id, 1)) === "refused");
  for (const attempt of [2, 3, 4]) {
    await nextStep(s.id, attempt);
    w.efi.debit(txid, { ok: false, codigo: "AM04" });
    await until(`attempt ${attempt} refused`, async () => (await statusOf(s.id, attempt)) === "refused");
  }
  await until("expired", async () => (await sub(s.id)).status === "expired");
  assert.equal(cobrsOf(rec).length, 1);
  assert.equal(w.efi.ctx.cobrs.get(txid)!.status, "EXPIRADA");
});

test("a debit whose cobr notice was lost is found by the reconciliation", async () => {
  const { s, txid } = await periodIssued();
  w.efi.core.controls.setWebhookFault("drop", 1);
  w.efi.debit(txid, { ok: true });
  await until("the notice dropped", () => w.efi.core.webhooks.sent.some((x) => x.label === "cobr.CONCLUIDA"));
  assert.equal(await statusOf(s.id, 1), "pending");
  await until("paid by the reconciliation", async () => (await runTask(w, "charges.reconcile-live")) >= 0 && (await statusOf(s.id, 1)) === "paid");
});

test("a cobr made at Efí whose answer was lost is read back under the charge id's txid: never a second cobr", async () => {
  const { s, rec } = await periodDue();
  // The PUT makes the cobr and its answer is lost.
  await w.efi.setFault("lost-answer", { times: 1, match: "PUT /v2/cobr/" });
  await until("the period's charge", async () => (await bill()) >= 0 && (await chargeOf(s.id, 1)) !== undefined);
  const charge = (await chargeOf(s.id, 1))!;
  assert.deepEqual(w.efi.core.requests.filter((r) => r.fault === "lost-answer").map((r) => r.method), ["PUT"]);
  assert.equal(charge.status, "pending", "the cobr read back: pending, never failed");
  await bill();
  await runTask(w, "charges.reconcile-live");
  assert.equal(cobrsOf(rec).length, 1);
  const txid = efiIds.cobr(charge.chargeId);
  await until("the cobr scheduled", () => w.efi.ctx.cobrs.get(txid)?.status === "ATIVA");
  w.efi.debit(txid, { ok: true });
  await until("paid", async () => (await statusOf(s.id, 1)) === "paid");
  assert.equal(cobrsOf(rec).length, 1);
});

test("a period's charge past its expiresAt while its cobr is still scheduled is not cancelled: it ends as the cobr ends", async () => {
  // The Central Bank refuses to cancel a cobr on or after its first attempt's date (API Pix,
  // PATCH /cobr/{txid}), and a charge expires after it; the cobr ends by itself when its retries are spent.
  const { s, txid, charge } = await periodIssued();
  await w.t.database.db.update(charges).set({ expiresAt: new Date(Date.now() - 60_000) }).where(eq(charges.id, charge.chargeId));
  const before = w.efi.core.requests.length;
  await runTask(w, "charges.expire-live");
  const sent = w.efi.core.requests.slice(before).map((r) => `${r.method} ${r.url.split("?")[0]}`);
  assert.deepEqual(sent.filter((r) => !r.startsWith("GET ")), [], "no cancel of any kind was sent");
  assert.equal(await statusOf(s.id, 1), "pending");
  assert.equal(w.efi.ctx.cobrs.get(txid)!.status, "ATIVA");
  w.efi.debit(txid, { ok: false, codigo: "AM04" });
  await until("the charge refused as its debit failed", async () => (await statusOf(s.id, 1)) === "refused");
});

test("a paid period is refunded through its cobr's Pix (CobRCompleta.pix[]): a cancel with refund: true returns the debit", async () => {
  const { s, txid, charge } = await periodIssued();
  w.efi.debit(txid, { ok: true });
  await until("paid", async () => (await statusOf(s.id, 1)) === "paid");
  const res = await call(w.t, w.key, "POST", `/v1/subscriptions/${s.id}/cancel`, { refund: true });
  expectStatus(res, 200);
  assert.equal(res.json().status, "cancelled");
  assert.equal(res.json().refunded, true);
  const pix = (w.efi.ctx.cobrs.get(txid)!.pix as { endToEndId: string; devolucoes?: { valor: string; status: string }[] }[])[0]!;
  assert.equal(pix.devolucoes?.length, 1, "one devolução, on the cobr's Pix");
  assert.equal(pix.devolucoes![0]!.valor, w.efi.ctx.cobrs.get(txid)!.valor.original);
  await until("the charge refunded", async () => (await statusOf(s.id, 1)) === "refunded");
  assert.ok((await eventsOf(w.t, charge.chargeId)).some((e) => e.type === "charge.refunded"));
});
