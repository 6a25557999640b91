import { withTx, type Db, type Queryable, type Tx } from "../../db/client.js";
import { AppError } from "../../core/errors.js";
import { systemCtx, type RequestCtx } from "../../core/context.js";
import { derivedSeed, idTime, seededId } from "../../lib/ids.js";
import type { ChargeCommand, ChargeRow, ChargeService, ChargeStatus } from "../charges/index.js";
import {
  ACTIVATION_WINDOW_MS, addDays, DEFAULT_RETRY_DAYS, nextRetryAt, nextRunAt, outsideWindow, PAYER_PAID_DUE_DAYS, periodBounds,
  PIX_AUTO_RETRY_DAYS, PIX_AUTO_WINDOW_DAYS, pixAutoIssueAt,
} from "./billing.js";
import { emit, type EventContext, type InvoiceEventExtra } from "./subscription-events.js";
import { activateByFirstPayment, mandateIdOf, mandateOf } from "./mandates.repo.js";
import { BRAZIL_TIME_ZONE, calendarDate } from "../../processors/calendar.js";
import * as plansRepo from "./plans.repo.js";
import * as repo from "./subscriptions.repo.js";
import type { InvoiceRow, SubscriptionRow } from "./subscriptions.repo.js";

// The billing engine: each period's invoice, its charge attempts through the charge service
// (same checks, processor idempotency, ledger and charge events as POST /v1/charges), dunning,
// and the steps that fall due with time (renewals, retries, cancels at period end, trial ends,
// unpaid first payments). Ids are derived, never random: an invoice's id from (subscription,
// period start), an attempt's charge id from (invoice, attempt number). A second worker, or a
// rerun after a crash, lands on the same invoice and the same charge, which the charge service
// answers with the charge already made: a period is never billed twice.
export interface EngineDeps {
  db: Db;
  charges: Pick<ChargeService, "submit">;
  events: EventContext;
  /** Sandbox: the payer's bank debits a Pix Automático charge on its due date (mandates.debit). */
  debit?: (s: SubscriptionRow, chargeId: string) => Promise<{ id: string; status: string }>;
  now?: () => Date;
}

export interface StepResult {
  subscriptionId: string;
  action: string;
  at: Date;
  chargeId?: string;
  chargeStatus?: string;
}

export type FirstPayment = { cvv?: string; threeDSMode?: "managed" | "none" };

/** A Pix Automático period's debit: its day, when an unanswered one counts as unpaid, and its processor's references. */
type Debit = { at: Date; deadline: Date; expiresIn: number; mandateRef?: string; debitRef?: string };

/** Days past a live debit's day the engine waits for the payer's bank's answer (a notice, or the reconciliation's read). */
const LIVE_DEBIT_WAIT_DAYS = 1;

export function createBillingEngine(deps: EngineDeps) {
  const { db } = deps;
  const realNow = deps.now ?? (() => new Date());

  /** "Now" for a subscription: real time, or its merchant's test clock in sandbox. */
  async function clockNow(q: Queryable, s: Pick<SubscriptionRow, "merchantId" | "environment">): Promise<Date> {
    if (s.environment !== "sandbox") return realNow();
    return new Date(realNow().getTime() + (await repo.clockOffset(q, s.merchantId)));
  }

  async function settingsOf(q: Queryable, s: Pick<SubscriptionRow, "merchantId" | "environment">) {
    const row = await repo.getSettings(q, s);
    return { retryDays: row?.retryDays ?? DEFAULT_RETRY_DAYS, onExhausted: row?.onExhausted ?? "expire" };
  }

  const dueAt = (s: SubscriptionRow, open: InvoiceRow | null) => nextRunAt({
    status: s.status, createdAt: s.createdAt, currentPeriodStart: s.currentPeriodStart, currentPeriodEnd: s.currentPeriodEnd, cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    pixAutomatico: s.paymentMethod.type === "pix_automatico",
    openInvoiceDueAt: open && open.status === "open" ? open.nextAttemptAt ?? s.currentPeriodStart : null,
  });

  /** Saves the patch and the next due time that follows from it. */
  async function save(tx: Tx, s: SubscriptionRow, patch: Partial<SubscriptionRow>, open: InvoiceRow | null, from?: SubscriptionRow["status"]) {
    const next = { ...s, ...patch };
    return repo.updateSubscription(tx, s.id, { ...patch, nextRunAt: dueAt(next, open) }, from);
  }

  /** A Pix Automático subscription retries per its mandate's policy; the others per the merchant's schedule. */
  async function retryDaysOf(tx: Tx, s: SubscriptionRow, merchantDays: number[]) {
    if (s.paymentMethod.type !== "pix_automatico") return merchantDays;
    return PIX_AUTO_RETRY_DAYS[(await mandateOf(tx, s.id))?.retryPolicy ?? "none"];
  }

  /**
   * A failed attempt (refused, failed, or unpaid by its deadline). A first payment is not
   * retried (the subscription stays pending_activation until its window ends, as Stripe's
   * incomplete); a renewal is retried per the merchant's schedule, and when the schedule is
   * exhausted the subscription expires, or is cancelled if the merchant chose so.
   */
  async function recordFailure(tx: Tx, s: SubscriptionRow, inv: InvoiceRow, reason: string, at: Date, extra: InvoiceEventExtra = {}) {
    const settings = await settingsOf(tx, s);
    const info = { ...extra, reason };
    if (s.status !== "active") {
      const closed = { ...inv, currentChargeId: null, inFlight: false, nextAttemptAt: null };
      await repo.updateInvoice(tx, inv.id, { currentChargeId: null, inFlight: false, nextAttemptAt: null });
      await emit(tx, deps.events, "subscription.payment_failed", s, { row: closed, extra: info });
      return;
    }
    const retryAt = nextRetryAt(at, inv.attempts, await retryDaysOf(tx, s, settings.retryDays));
    if (retryAt) {
      const open = { ...inv, currentChargeId: null, inFlight: false, nextAttemptAt: retryAt };
      await repo.updateInvoice(tx, inv.id, { currentChargeId: null, inFlight: false, nextAttemptAt: retryAt });
      const saved = (await save(tx, s, {}, open)) ?? s;
      await emit(tx, deps.events, "subscription.payment_failed", saved, { row: open, extra: info });
      return;
    }
    const dead = { ...inv, status: "uncollectible", currentChargeId: null, inFlight: false, nextAttemptAt: null };
    await repo.updateInvoice(tx, inv.id, { status: "uncollectible", currentChargeId: null, inFlight: false, nextAttemptAt: null });
    await emit(tx, deps.events, "subscription.payment_failed", s, { row: dead, extra: info });
    const cancel = settings.onExhausted === "cancel";
    const ended = await repo.updateSubscription(tx, s.id, {
      status: cancel ? "cancelled" : "expired", openInvoiceId: null, nextRunAt: null,
      ...(cancel ? { cancelledAt: at, cancellationType: "payment_failed" } : {}),
    }, "active");
    if (ended) await emit(tx, deps.events, cancel ? "subscription.cancelled" : "subscription.expired", ended, { row: dead });
  }

  /**
   * The charge listener (charge-effects), in the transaction of the charge's status change: a
   * paid charge pays its invoice (and activates a pending_activation subscription) atomically
   * with the charge, its ledger posting and charge.paid; a failure that arrives later (3-D
   * Secure refused, a Pix expired, a review rejected) counts as a failed attempt.
   */
  async function onChargeStatus(tx: Tx, charge: ChargeRow, _from: ChargeStatus): Promise<void> {
    const link = await repo.findSubCharge(tx, charge.id);
    if (!link) return;
    await repo.setSubChargeStatus(tx, charge.id, charge.status, charge.reason);
    if (charge.status !== "paid" && charge.status !== "refused" && charge.status !== "failed") return;
    const s = (await repo.lockSubscription(tx, link.subscriptionId))!;
    const inv = (await repo.findInvoice(tx, link.invoiceId))!;
    const at = await clockNow(tx, s);
    if (charge.status === "paid") {
      if (inv.status !== "open") return; // paid after its period was written off: money kept, nothing reopens
      const paid = { ...inv, status: "paid", paidAt: at, currentChargeId: charge.id, nextAttemptAt: null };
      await repo.updateInvoice(tx, inv.id, { status: "paid", paidAt: at, currentChargeId: charge.id, nextAttemptAt: null });
      // While its attempt is in flight the attempt closes the invoice (and sends its events); a
      // payment that comes later (Pix, boleto, 3-D Secure) closes it here.
      const patch: Partial<SubscriptionRow> = s.openInvoiceId === inv.id && !inv.inFlight ? { openInvoiceId: null } : {};
      if (s.status === "pending_activation") {
        const active = await save(tx, s, { ...patch, status: "active" }, patch.openInvoiceId === null ? null : paid, "pending_activation");
        if (active) await activateByFirstPayment(tx, s.id, charge.id);
        if (active) await emit(tx, deps.events, "subscription.activated", active, { row: paid, extra: { chargeId: charge.id, chargeStatus: "paid" } });
      } else if (patch.openInvoiceId === null) {
        await save(tx, s, patch, null);
      }
      return;
    }
    // An immediate refusal inside an attempt is handled by the attempt itself, after the charge.
    if (inv.status !== "open" || inv.inFlight || inv.currentChargeId !== charge.id) return;
    await recordFailure(tx, s, inv, charge.reason ?? charge.status, at, { chargeId: charge.id, chargeStatus: charge.status });
  }

  /**
   * The charge of an invoice's attempt, in the invoice's own minor units. A Pix Automático
   * period's attempt (`debitAt`) is a debit under the mandate, due that day in Brasília time and
   * kept pending until then (issued up to PIX_AUTO_WINDOW_DAYS.issue days ahead); journey 3's
   * first period is the Pix QR the payer scans.
   */
  function chargeCommand(s: SubscriptionRow, inv: InvoiceRow, first?: FirstPayment, debit?: Debit): ChargeCommand {
    const pm = s.paymentMethod;
    const paymentMethod = pm.type === "credit_card"
      ? { type: "credit_card" as const, cardId: pm.cardId!, installments: 1, ...(first?.cvv ? { cvv: first.cvv } : {}), ...(first?.threeDSMode ? { threeDSMode: first.threeDSMode } : {}) }
      : debit ? {
        type: "pix_automatico" as const, dueDate: calendarDate(debit.at, BRAZIL_TIME_ZONE), mandateId: mandateIdOf(s.id), expiresIn: debit.expiresIn,
        ...(debit.mandateRef ? { mandateRef: debit.mandateRef } : {}), ...(debit.debitRef ? { debitRef: debit.debitRef } : {}),
      }
      : pm.type === "pix" || pm.type === "pix_automatico" ? { type: "pix" as const, expiresIn: PAYER_PAID_DUE_DAYS * 86_400 } : { type: "boleto" as const };
    return {
      amountMinor: inv.amount, currency: inv.currency, customer: { id: s.customerId }, paymentMethod,
      metadata: { subscriptionId: s.id, invoiceId: inv.id }, subscriptionId: s.id,
      ...(s.split ? { split: s.split } : {}),
      // Journey 3's first Pix is the mandate processor's (its recurrence names it), whatever pix's route.
      ...(pm.type === "pix_automatico" && !debit ? { mandateProcessor: true as const } : {}),
    };
  }


  /**
   * Attempt `n` of a Pix Automático period: the day it is debited and how long the engine waits
   * for its outcome. In the sandbox the engine debits it itself on that day (deps.debit). A live
   * debit is made by the payer's bank, whose answer comes as the charge's status change (a
   * notice or the reconciliation, read back): the engine waits LIVE_DEBIT_WAIT_DAYS past the day
   * before counting it unpaid. A live retry is a new attempt of the period's cobr (the Central
   * Bank refuses a second one in the cycle) on a future day, as its retentativa must be.
   */
  async function debitOf(s: SubscriptionRow, inv: InvoiceRow, n: number, at: Date): Promise<Debit> {
    if (s.environment !== "production") {
      return { at: n === 1 ? inv.periodStart : at, deadline: n === 1 ? inv.periodStart : at, expiresIn: (PIX_AUTO_WINDOW_DAYS.issue + 1) * 86_400 };
    }
    const day = n === 1 ? inv.periodStart : addDays(at, 1);
    const deadline = addDays(day, LIVE_DEBIT_WAIT_DAYS);
    const mandateRef = (await mandateOf(db, s.id))?.providerRef ?? undefined;
    const debitRef = n > 1 ? (await repo.periodDebitRef(db, inv.id)) ?? undefined : undefined;
    // Kept pending at the processor past the engine's deadline: the expiry never races the wait.
    return { at: day, deadline, expiresIn: Math.ceil((deadline.getTime() - at.getTime()) / 1000) + 86_400, mandateRef, debitRef };
  }

  /**
   * The seed of attempt `n`'s charge: random part from (invoice, n), time part from when the
   * attempt is due, which no retry changes: the first at the invoice's issue (its id's time), a
   * retry at the invoice's nextAttemptAt. Once in flight, the attempt's charge id is recorded on
   * the invoice (nextAttemptAt then holds its deadline): a rerun takes the time from that id.
   */
  function attemptSeed(inv: InvoiceRow, n: number): string {
    const label = `attempt-${n}`;
    if (inv.inFlight && inv.attempts === n && inv.currentChargeId) return derivedSeed(inv.id, label, idTime(inv.currentChargeId));
    return derivedSeed(inv.id, label, n === 1 || !inv.nextAttemptAt ? idTime(inv.id) : inv.nextAttemptAt);
  }

  /**
   * Attempt `n` of an invoice: marks it in flight, charges through the charge service (outside
   * any transaction), then handles the outcome: renewal events and, for a refusal, the failure.
   */
  async function attempt(s: SubscriptionRow, inv: InvoiceRow, n: number, at: Date, opts: { renewal: boolean; first?: FirstPayment }) {
    const seed = attemptSeed(inv, n);
    const chargeId = seededId("ch", seed);
    const payerPaid = s.paymentMethod.type !== "credit_card";
    // A Pix Automático renewal is debited on its due date (the period's start), a retry the day it is made.
    const pixAuto = s.paymentMethod.type === "pix_automatico" && opts.renewal;
    const debit = pixAuto ? await debitOf(s, inv, n, at) : undefined;
    const deadline = debit ? debit.deadline : addDays(at, PAYER_PAID_DUE_DAYS);
    // A rerun after a crash: its first run decided to send it (inside the window) and may have.
    const rerun = inv.inFlight && inv.currentChargeId === chargeId;
    await withTx(db, async (tx) => {
      await repo.insertSubCharge(tx, { chargeId, invoiceId: inv.id, subscriptionId: s.id, attempt: n, status: "pending" });
      await repo.updateInvoice(tx, inv.id, { attempts: n, currentChargeId: chargeId, inFlight: true, nextAttemptAt: deadline });
    });
    let result: { id: string; status: string; paymentDetails: Record<string, unknown> | null; reason: string | null };
    try {
      // The Central Bank refuses a recurring charge sent outside 2-10 days before its due date:
      // one whose window passed (a worker down for days) is never sent, and counts as failed. A
      // rerun is sent again under its id (the processor answers with what it made), never
      // failed here: the debit it may have scheduled would be collected for a failed period.
      if (pixAuto && n === 1 && !rerun && outsideWindow(inv.periodStart, at)) throw new AppError("invalid_state", "outside_schedule_window");
      result = await deps.charges.submit(systemCtx(s, "billing", seed), chargeCommand(s, inv, opts.first, debit));
    } catch (err) {
      // The charge path refused the request itself (a card removed from the vault, a split
      // participant gone): an attempt that failed without a charge.
      if (!(err instanceof AppError) || err.statusCode >= 500) throw err;
      result = { id: chargeId, status: "failed", paymentDetails: null, reason: err.message };
      await repo.setSubChargeStatus(db, chargeId, "failed", err.message);
    }
    await withTx(db, async (tx) => {
      const fresh = (await repo.lockSubscription(tx, s.id))!;
      const current = (await repo.findInvoice(tx, inv.id))!;
      // Handled already (a rerun of this attempt), or superseded: nothing more to do.
      if (!current.inFlight || current.currentChargeId !== chargeId) return;
      await repo.updateInvoice(tx, inv.id, { inFlight: false });
      const extra = { chargeId: result.id, chargeStatus: result.status, paymentDetails: result.paymentDetails, reason: result.reason };
      const view = { ...current, inFlight: false };
      if (opts.renewal && (n === 1 || (payerPaid && !pixAuto && result.status === "pending"))) {
        await emit(tx, deps.events, "subscription.renewed", fresh, { row: view, extra });
      }
      if ((result.status === "refused" || result.status === "failed") && current.status === "open") {
        await recordFailure(tx, fresh, view, result.reason ?? result.status, at, extra);
      } else if (current.status === "open") {
        await save(tx, fresh, {}, view); // awaiting the payer until the deadline
      } else {
        await save(tx, fresh, fresh.openInvoiceId === inv.id ? { openInvoiceId: null } : {}, null); // paid: the listener recorded it
      }
    });
    return result;
  }

  /**
   * Starts the period after the current one: swaps in a changed plan, opens its invoice. The
   * subscription is due again at `now`, not at the period's start: a Pix Automático period opens
   * days before it, and an attempt cut short by a crash must be rerun at once, in its window.
   */
  async function openNextPeriod(s: SubscriptionRow, now: Date, issueAt: Date) {
    const planId = s.nextPlanId ?? s.planId;
    const plan = (await plansRepo.findPlan(db, s, planId))!;
    const cycle = s.cycle + 1;
    const { start, end } = periodBounds(s.anchorAt, s.billingDay, plan, cycle);
    // Filed under its issue time (read from the subscription before it moves: the same on a rerun).
    const invoiceId = seededId("inv", derivedSeed(s.id, `period-${start.toISOString()}`, issueAt));
    return withTx(db, async (tx) => {
      const inv = await repo.insertInvoice(tx, {
        id: invoiceId, subscriptionId: s.id, merchantId: s.merchantId, environment: s.environment, cycle,
        periodStart: start, periodEnd: end, planId, amount: plan.price, currency: plan.currency, status: "open",
      });
      const moved = await repo.updateSubscription(tx, s.id, {
        planId, nextPlanId: null, cycle, currentPeriodStart: start, currentPeriodEnd: end, openInvoiceId: inv.id, nextRunAt: now,
      }, "active");
      return moved ? { s: moved, inv } : null;
    });
  }

  /** One due step of a claimed subscription at `now` (its clock's time); null when nothing was due. */
  async function step(claimed: SubscriptionRow, now: Date): Promise<StepResult | null> {
    const s = (await repo.findSubscription(db, claimed, claimed.id))!;
    const done = (action: string, r?: { id: string; status: string }): StepResult =>
      ({ subscriptionId: s.id, action, at: now, ...(r ? { chargeId: r.id, chargeStatus: r.status } : {}) });
    if (!s.nextRunAt || s.nextRunAt > now) return null;
    if (s.status === "pending_activation") {
      if (now.getTime() < s.createdAt.getTime() + ACTIVATION_WINDOW_MS) return null;
      const ended = await withTx(db, async (tx) => {
        const row = await repo.updateSubscription(tx, s.id, { status: "expired", nextRunAt: null, openInvoiceId: null }, "pending_activation");
        if (row) await emit(tx, deps.events, "subscription.expired", row);
        return row;
      });
      return ended ? done("expired") : null;
    }
    if (s.status !== "active") return null;
    const inv = s.openInvoiceId ? (await repo.findInvoice(db, s.openInvoiceId)) ?? null : null;
    if (s.cancelAtPeriodEnd && s.currentPeriodEnd <= now) {
      const row = await withTx(db, async (tx) => {
        if (inv?.status === "open") await repo.updateInvoice(tx, inv.id, { status: "void", currentChargeId: null, nextAttemptAt: null });
        const ended = await repo.updateSubscription(tx, s.id, { status: "cancelled", cancelledAt: s.currentPeriodEnd, nextRunAt: null, openInvoiceId: null }, "active");
        if (ended) await emit(tx, deps.events, "subscription.cancelled", ended);
        return ended;
      });
      return row ? done("cancelled") : null;
    }
    // An attempt cut short by a crash: rerun it under the same charge id (the charge service
    // answers with the charge it made), so its outcome is handled once.
    if (inv?.inFlight) return done("retried", await attempt(s, inv, inv.attempts, now, { renewal: !(inv.cycle === 0 && inv.periodStart.getTime() === s.createdAt.getTime()) }));
    if (inv && inv.status === "open") {
      if (inv.nextAttemptAt && inv.nextAttemptAt > now) return null;
      if (inv.currentChargeId && deps.debit && s.paymentMethod.type === "pix_automatico" && s.environment === "sandbox") {
        // Its due date: the sandbox stands in for the payer's bank, which debits (or fails) it;
        // the charge's status change pays the invoice or records the failure.
        return done("debited", await deps.debit(s, inv.currentChargeId));
      }
      if (inv.currentChargeId) {
        // A Pix or boleto (or a 3-D Secure page) left unpaid past its deadline: a failed attempt.
        await withTx(db, async (tx) => recordFailure(tx, (await repo.lockSubscription(tx, s.id))!, inv, "unpaid", now, { chargeId: inv.currentChargeId }));
        return done("payment_failed");
      }
      return done("retried", await attempt(s, inv, inv.attempts + 1, now, { renewal: true }));
    }
    const renewAt = s.paymentMethod.type === "pix_automatico" && !s.cancelAtPeriodEnd ? pixAutoIssueAt(s) : s.currentPeriodEnd;
    if (renewAt > now) return null;
    const opened = await openNextPeriod(s, now, renewAt);
    if (!opened) return null;
    return done("renewed", await attempt(opened.s, opened.inv, 1, now, { renewal: true }));
  }

  async function settle(id: string): Promise<void> {
    await withTx(db, async (tx) => {
      const s = await repo.lockSubscription(tx, id);
      if (s) await save(tx, s, {}, s.openInvoiceId ? (await repo.findInvoice(tx, s.openInvoiceId)) ?? null : null);
    });
  }

  /** Runs due steps of claimed subscriptions; the claim is released after each. */
  async function runClaimed(rows: SubscriptionRow[], nowOf: (s: SubscriptionRow) => Promise<Date>): Promise<StepResult[]> {
    const results: StepResult[] = [];
    for (const s of rows) {
      try {
        const now = await nowOf(s);
        const r = await step(s, now);
        if (r) results.push(r);
        else await settle(s.id); // nothing was due after all (changed meanwhile): recompute when it is
      } finally {
        await repo.releaseClaim(db, s.id);
      }
    }
    return results;
  }

  return { clockNow, settingsOf, onChargeStatus, attempt, step, runClaimed, save };
}

export type BillingEngine = ReturnType<typeof createBillingEngine>;
