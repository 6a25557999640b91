import { withTx, type Db, type Tx } from "../../db/client.js";
import { systemCtx, type RequestCtx } from "../../core/context.js";
import { AppError, invalid, notFound } from "../../core/errors.js";
import { buildPixBrCode, qrCodeDataUrl } from "../../lib/pix.js";
import { toMajor } from "../../lib/money.js";
import type { ChargeService } from "../charges/index.js";
import type { MerchantService } from "../merchants/index.js";
import { addDays, PAYER_PAID_DUE_DAYS } from "./billing.js";
import type { BillingEngine } from "./billing-engine.js";
import { emit, type EventContext } from "./subscription-events.js";
import type { LiveMandates } from "./live-mandates.js";
import * as mrepo from "./mandates.repo.js";
import * as repo from "./subscriptions.repo.js";

// Pix Automático mandates: the payer's one authorization of a
// subscription's recurring debits. The mandate is the Central Bank's recorrência: pending
// (CRIADA) until the payer's bank approves or rejects it, then active until either side cancels.
// Its maximum amount is the plan's price at sign-up; a plan change above it needs a new
// authorization, which feira does not ask for by itself (see `checkPlanChange`).
export type RetryPolicy = "none" | "3_in_7_days";

/**
 * The Central Bank's recurrences are weekly, monthly, quarterly, half-yearly or yearly, and a
 * period must outlast the 2 days between a charge and its due date: a day plan cannot be
 * debited by Pix Automático.
 */
export function checkPlanCadence(plan: { interval: string }) {
  if (plan.interval === "day") throw invalid("planId: Pix Automático debits weekly, monthly or yearly plans; a day plan cannot be paid by it");
}

export interface MandateDeps {
  db: Db;
  engine: Pick<BillingEngine, "clockNow" | "save">;
  events: EventContext;
  charges: Pick<ChargeService, "pay" | "refuseDebit">;
  merchants: Pick<MerchantService, "getMerchant">;
  /** Production mandates at the processor `pix_automatico=` names. */
  live: LiveMandates;
}

type QrPayment = { id: string; paymentDetails: Record<string, unknown> | null };
type OpenPlan = { price: number; currency: string; name: string; interval: string; intervalCount: number };

export function createMandates(deps: MandateDeps) {
  const { db, engine } = deps;

  /**
   * The mandate of a new subscription, under an id derived from the subscription's (a retried
   * sign-up finds it). Journey 3 shows the first charge's QR: paying it authorizes the rest.
   * Journey 2 shows a QR of the authorization alone; in sandbox it is a BR Code of the maximum
   * amount under the mandate's id (no bank reads it: approve stands in for the payer).
   */
  async function open(s: repo.SubscriptionRow, plan: OpenPlan, retryPolicy: RetryPolicy, first: QrPayment | null) {
    const price = { amount: plan.price, currency: plan.currency };
    const id = mrepo.mandateIdOf(s.id);
    const now = await engine.clockNow(db, s);
    let qr = first?.paymentDetails as { qrCode?: string; qrCodeImage?: string } | null;
    // Live: the processor's recurrence (found again under this id after a crash) and its QR; the
    // first debit falls due when the first period (or the trial) ends.
    const live = deps.live.live(s.environment)
      ? await deps.live.create(s, { id, maxAmount: price.amount, retryPolicy, firstChargeId: first?.id ?? null }, plan, s.currentPeriodEnd, now)
      : null;
    if (live) qr = { qrCode: live.qrCode, qrCodeImage: await qrCodeDataUrl(live.qrCode) };
    if (!qr?.qrCode) {
      const merchant = await deps.merchants.getMerchant(s.merchantId);
      const code = buildPixBrCode({ key: merchant.pixKey, merchantName: merchant.name, merchantCity: merchant.city, amountMinor: price.amount, txid: id });
      qr = { qrCode: code, qrCodeImage: await qrCodeDataUrl(code) };
    }
    return mrepo.insertMandate(db, {
      id, merchantId: s.merchantId, environment: s.environment, subscriptionId: s.id, status: "pending",
      journey: first ? "qr_with_payment" : "qr", retryPolicy, maxAmount: price.amount, currency: price.currency,
      qrCode: qr.qrCode!, qrCodeImage: qr.qrCodeImage ?? "", expiresAt: addDays(now, PAYER_PAID_DUE_DAYS), firstChargeId: first?.id ?? null,
      providerRef: live?.providerRef ?? null,
    });
  }

  /**
   * A pending mandate past its expiry is expired (the Central Bank's EXPIRADA), read at the
   * subscription's clock; the subscription stays pending_activation until the merchant cancels.
   */
  async function current(m: mrepo.MandateRow): Promise<mrepo.MandateRow> {
    if (m.status !== "pending" || m.expiresAt > (await engine.clockNow(db, m))) return m;
    return (await mrepo.moveMandate(db, m.id, ["pending"], { status: "expired" })) ?? (await mrepo.findMandate(db, m, m.id))!;
  }

  async function find(ctx: Pick<RequestCtx, "merchantId" | "environment">, id: string) {
    const m = await mrepo.findMandate(db, ctx, id);
    if (!m) throw notFound("Mandate", id);
    return current(m);
  }

  async function ofSubscription(subscriptionId: string) {
    const m = await mrepo.mandateOf(db, subscriptionId);
    return m ? current(m) : null;
  }

  const get = async (ctx: RequestCtx, id: string) => mrepo.toMandate(await find(ctx, id));

  const sandboxOnly = (ctx: RequestCtx) => {
    if (ctx.environment !== "sandbox") throw new AppError("forbidden", "Forbidden: the payer's bank is simulated for sandbox mandates only; use a sandbox (sk_test_) key");
  };
  const notPending = (m: mrepo.MandateRow) => new AppError("invalid_state", `Mandate ${m.id} is ${m.status}; only a pending mandate can be approved or rejected`);

  /**
   * Sandbox: the payer's bank approves. Journey 3 pays the first charge, whose paid status
   * activates the mandate and the subscription (the charge listener); journey 2 activates both
   * here, the subscription into its trial as a card subscription's would be.
   */
  async function approve(ctx: RequestCtx, id: string) {
    sandboxOnly(ctx);
    const m = await find(ctx, id);
    if (m.status !== "pending") throw notPending(m);
    // The decision is one guarded transition (pending -> active), taken before the first payment:
    // a reject or a cancel racing it either wins, and this answers 409, or comes after it.
    if (!(await activate(m))) throw notPending((await mrepo.findMandate(db, ctx, id))!);
    // Journey 3: the payment that the approval is; its paid status activates the subscription.
    // A cancel that ended the first QR before it is answered here as that charge's state (409).
    if (m.firstChargeId) await deps.charges.pay(ctx, m.firstChargeId);
    return get(ctx, id);
  }

  /**
   * The payer's bank approved: the mandate is active and, for journey 2, the subscription too (into
   * its trial, as a card subscription's would be); journey 3's waits for its first payment. False
   * when the mandate was no longer pending.
   */
  async function activate(m: mrepo.MandateRow): Promise<boolean> {
    return withTx(db, async (tx) => {
      // The subscription first, then its mandate: the order of every subscription change (a
      // cancel racing this approval deadlocked when each took one and waited for the other).
      const s = (await repo.lockSubscription(tx, m.subscriptionId))!;
      const active = await mrepo.moveMandate(tx, m.id, ["pending"], { status: "active" });
      if (!active) return false;
      await mrepo.recordMandateEvent(tx, "mandate.activated", active);
      if (m.firstChargeId || s.status !== "pending_activation") return true;
      const row = await engine.save(tx, s, { status: "active" }, null, "pending_activation");
      if (row) await emit(tx, deps.events, "subscription.activated", row);
      return true;
    });
  }

  /** The payer's bank rejected it, or it expired unapproved; the subscription stays pending_activation. */
  async function end(m: mrepo.MandateRow, status: "rejected" | "expired"): Promise<boolean> {
    return withTx(db, async (tx) => {
      const ended = await mrepo.moveMandate(tx, m.id, ["pending"], { status });
      if (ended && status === "rejected") await mrepo.recordMandateEvent(tx, "mandate.rejected", ended);
      return ended !== undefined;
    });
  }

  /** Sandbox: the payer's bank rejects; the subscription stays pending_activation. */
  async function reject(ctx: RequestCtx, id: string) {
    sandboxOnly(ctx);
    const m = await find(ctx, id);
    if (!(await end(m, "rejected"))) throw notPending(m);
    return get(ctx, id);
  }

  /** Cancels a pending or active mandate in the caller's transaction (the subscription's cancel). */
  async function cancelIn(tx: Tx, subscriptionId: string, by: "payer" | "merchant") {
    const m = await mrepo.mandateOf(tx, subscriptionId);
    if (!m) return null;
    const cancelled = await mrepo.moveMandate(tx, m.id, ["pending", "active"], { status: "cancelled", cancelledBy: by });
    if (cancelled) await mrepo.recordMandateEvent(tx, "mandate.cancelled", cancelled);
    return cancelled ?? null;
  }

  /**
   * A plan change under a mandate: its maximum amount is what the payer authorized, so a price
   * above it would be refused by the payer's bank period after period. It is refused here
   * instead (422 naming planId); a higher price needs a new subscription, with a new mandate.
   */
  async function checkPlanChange(subscriptionId: string, plan: { price: number; currency: string; interval: string }) {
    const m = await ofSubscription(subscriptionId);
    if (m) checkPlanCadence(plan);
    if (m && plan.price > m.maxAmount) {
      throw invalid(`planId: the new plan's price (${toMajor(plan.price, plan.currency)} ${plan.currency}) is above the Pix Automático mandate's maximum amount (${toMajor(m.maxAmount, m.currency)}); the payer must authorize a new mandate: cancel this subscription and create a new one`);
    }
  }

  /** Sandbox: the next `count` debits fail, as for a payer without funds. */
  async function failDebits(ctx: RequestCtx, id: string, count: number) {
    sandboxOnly(ctx);
    const m = await find(ctx, id);
    if (m.status !== "active" && m.status !== "pending") throw new AppError("invalid_state", `Mandate ${m.id} is ${m.status}; no debit will be made`);
    await mrepo.updateMandate(db, m.id, { failDebits: count });
    return get(ctx, id);
  }

  /**
   * Sandbox: the payer's bank debits a recurring charge on its due date. A debit failed on
   * purpose is counted down first, so a rerun after a crash fails no more debits than asked.
   */
  async function debit(s: repo.SubscriptionRow, chargeId: string) {
    const m = await mrepo.mandateOf(db, s.id);
    const fails = m ? await mrepo.takeFailedDebit(db, m.id) : false;
    const ctx = systemCtx(s, "billing");
    return fails ? deps.charges.refuseDebit(ctx, chargeId) : deps.charges.pay(ctx, chargeId);
  }

  return { open, get, find, ofSubscription, approve, reject, activate, end, cancelIn, checkPlanChange, sandboxOnly, failDebits, debit };
}

export type Mandates = ReturnType<typeof createMandates>;
