import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { subscriptions } from "../../src/db/schema.js";
import { efiIds } from "../../src/processors/efi/client.js";
import { expectStatus } from "../helpers/app.js";
import { until } from "../helpers/wait.js";
import { startEfiWorld, type EfiWorld } from "../processors/live-efi-shared.js";
import { balanceOf, chargeRow } from "../processors/live-shared.js";
import { call, createPlan, customer, getSub, type Sub } from "../subscriptions/helpers.js";
import { disputesOfCharge } from "./helpers.js";
// topology: skip: every app stays in-process: Efí probes PUBLIC_BASE_URL at registration, and the test's own listening app is that URL

// Issue 46 item 4, Pix Automático: the MED of a debit's Pix. Efí's infraction names the Pix by its
// end-to-end id; feira reads which txid it paid (GET /v2/pix/{e2eid}: the cobr's) and finds the
// period's charge by that reference, as for a cob's Pix: a pix_med dispute with its money held,
// lost when Efí accepts it.

let w: EfiWorld;
before(async () => { w = await startEfiWorld({ mandates: true }); });
after(async () => w.close());

const task = (module: "disputes" | "subscriptions", name: string) => w.t.services.modules[module].tasks.find((k) => k.name === name)!.run();

/** A period's charge paid by the payer's bank's debit of its cobr: the charge id and the debit's end-to-end id. */
async function paidDebit() {
  const res = await call(w.t, w.key, "POST", "/v1/subscriptions", { planId: (await createPlan(w.t, w.key, { trialDays: 7 })).id, customer, paymentMethod: { type: "pix_automatico" } });
  expectStatus(res, 201);
  const sub = res.json() as Sub & { mandate: { id: string } };
  const rec = [...w.efi.ctx.recs.values()].find((r) => (r.vinculo as { contrato?: string }).contrato === sub.mandate.id)!;
  w.efi.approveRec(rec.idRec);
  await until("the mandate approved", async () => (await getSub(w.t, w.key, sub.id)).status === "active");
  // The trial's end, the first period's due date, 4 days away: the period is due to be billed now.
  const dueAt = new Date(Date.now() + 4 * 86_400_000);
  await w.t.database.db.update(subscriptions).set({ anchorAt: dueAt, currentPeriodEnd: dueAt, nextRunAt: new Date(Date.now() - 60_000) }).where(eq(subscriptions.id, sub.id));
  let chargeId = "";
  await until("the period's charge", async () => {
    await task("subscriptions", "subscriptions.bill");
    chargeId = (await getSub(w.t, w.key, sub.id)).charges[0]?.chargeId ?? "";
    return chargeId !== "";
  });
  const txid = efiIds.cobr(chargeId);
  await until("the cobr scheduled", () => w.efi.ctx.cobrs.get(txid)?.status === "ATIVA");
  w.efi.debit(txid, { ok: true });
  await until("the period's charge paid", async () => (await chargeRow(w, chargeId)).status === "paid");
  return { chargeId, e2eid: String((w.efi.ctx.cobrs.get(txid)!.pix as { endToEndId: string }[])[0]!.endToEndId) };
}

test("an infraction on a debit's Pix opens a pix_med dispute on the period's charge, held at once and lost when Efí accepts it", async () => {
  const { chargeId, e2eid } = await paidDebit();
  const before = await balanceOf(w);
  const i = w.efi.openInfraction(e2eid) as { idInfracao: string };
  assert.equal(typeof i, "object", String(i));
  assert.equal(await task("disputes", "disputes.poll-live"), 1);
  const [d] = await disputesOfCharge(w.t, w.key, chargeId);
  assert.deepEqual([d?.kind, d?.status], ["pix_med", "needs_response"]);
  assert.equal(await balanceOf(w), before - (await chargeRow(w, chargeId)).amount);

  assert.equal(typeof w.efi.decideInfraction(i.idInfracao, "ACEITA"), "object");
  assert.equal(await task("disputes", "disputes.poll-live"), 1);
  assert.deepEqual((await disputesOfCharge(w.t, w.key, chargeId)).map((x) => x.status), ["lost"]);
  assert.equal((await chargeRow(w, chargeId)).status, "refunded");
  assert.equal(await task("disputes", "disputes.poll-live"), 0);
});
