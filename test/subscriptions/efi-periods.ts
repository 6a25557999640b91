import { eq } from "drizzle-orm";
import { subscriptions } from "../../src/db/schema.js";
import { efiIds } from "../../src/processors/efi/client.js";
import { expectStatus } from "../helpers/app.js";
import type { Rec } from "../helpers/fake-efi-context.js";
import { until } from "../helpers/wait.js";
import type { EfiWorld } from "../processors/live-efi-shared.js";
import { call, createPlan, customer, getSub, type Sub } from "./helpers.js";

// What the live Pix Automático tests through Efí share: a subscription whose period falls due,
// and that period's charge issued as a cobr scheduled at the payer's bank.

export const DAY = 86_400_000;
export type PixSub = Sub & { mandate: { id: string; status: string } };

export const sub = async (w: EfiWorld, id: string) => (await getSub(w.t, w.key, id)) as PixSub;
export const chargeOf = async (w: EfiWorld, id: string, attempt: number) => (await sub(w, id)).charges.find((c) => c.attempt === attempt);
export const statusOf = async (w: EfiWorld, id: string, attempt: number) => (await chargeOf(w, id, attempt))?.status;
export const bill = (w: EfiWorld) => w.t.services.modules.subscriptions.tasks.find((x) => x.name === "subscriptions.bill")!.run();
/** The fake's recurrence under feira's mandate id (its vinculo.contrato). */
export const recOf = (w: EfiWorld, mandateId: string): Rec | undefined => [...w.efi.ctx.recs.values()].find((r) => (r.vinculo as { contrato?: string }).contrato === mandateId);

/** An active trial subscription (journey 2, approved) whose first period falls due 4 days from now, due to be billed. */
export async function periodDue(w: EfiWorld) {
  const res = await call(w.t, w.key, "POST", "/v1/subscriptions", { planId: (await createPlan(w.t, w.key, { trialDays: 7 })).id, customer, paymentMethod: { type: "pix_automatico" } });
  expectStatus(res, 201);
  const s = res.json() as PixSub;
  const rec = recOf(w, s.mandate.id)!;
  w.efi.approveRec(rec.idRec);
  await until("active", async () => (await sub(w, s.id)).status === "active");
  // The trial ends (the period's due date) 4 days from now: its issue time, 5 days before, has passed.
  const due = new Date(Date.now() + 4 * DAY);
  await w.t.database.db.update(subscriptions).set({ anchorAt: due, currentPeriodEnd: due, nextRunAt: new Date(Date.now() - 60_000) }).where(eq(subscriptions.id, s.id));
  return { s, rec, due };
}

/** periodDue's subscription billed: its period's charge issued and its cobr scheduled at the payer's bank. */
export async function periodIssued(w: EfiWorld) {
  const { s, rec, due } = await periodDue(w);
  await until("the period's charge", async () => (await bill(w)) >= 0 && (await chargeOf(w, s.id, 1)) !== undefined);
  const charge = (await chargeOf(w, s.id, 1))!;
  const txid = efiIds.cobr(charge.chargeId);
  await until("the cobr scheduled at the payer's bank", () => w.efi.ctx.cobrs.get(txid)?.status === "ATIVA");
  return { s, rec, due, charge, txid };
}
