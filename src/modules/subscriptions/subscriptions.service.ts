import type { Static } from "typebox";
import { withTx, type Db, type Tx } from "../../db/client.js";
import { systemCtx, type RequestCtx } from "../../core/context.js";
import { AppError, invalid, notFound } from "../../core/errors.js";
import { faultPoint } from "../../lib/faults.js";
import { derivedSeed, seededId } from "../../lib/ids.js";
import type { CardService } from "../cards/index.js";
import type { ChargeCommand, ChargeService, RefundService } from "../charges/index.js";
import type { CustomerService } from "../customers/index.js";
import type { MerchantService } from "../merchants/index.js";
import { ACTIVATION_WINDOW_MS, addDays, periodBounds, PIX_AUTO_WINDOW_DAYS, usesBillingDay } from "./billing.js";
import type { BillingEngine, FirstPayment } from "./billing-engine.js";
import { checkPlanCadence, type Mandates, type RetryPolicy } from "./mandates.js";
import type { MandateState } from "../../processors/capabilities.js";
import type { LiveMandates } from "./live-mandates.js";
import type { OpenPayments } from "./open-payments.js";
import { toMandate, type MandateRow } from "./mandates.repo.js";
import type { PlanService } from "./plans.service.js";
import { emit, type EventContext } from "./subscription-events.js";
import { assertTransition, type SubscriptionStatus } from "./subscription-status.js";
import { toListItem, toSubscription } from "./subscriptions.mapper.js";
import * as repo from "./subscriptions.repo.js";
import type { CancelBody, CreateSubscriptionBody, ListSubscriptionsQuery, UpdateSubscriptionBody } from "./subscriptions.schemas.js";
import { readForList } from "../../db/replica.js";

export interface SubscriptionServiceDeps {
  db: Db;
  engine: BillingEngine;
  events: EventContext;
  plans: PlanService;
  charges: Pick<ChargeService, "check">;
  refunds: Pick<RefundService, "refund">;
  cards: Pick<CardService, "create">;
  customers: Pick<CustomerService, "resolveForCharge">;
  merchants: Pick<MerchantService, "getMerchant">;
  mandates: Mandates;
  liveMandates: LiveMandates;
  openPayments: OpenPayments;
}

type CreateBody = Static<typeof CreateSubscriptionBody>;

export function createSubscriptionService(deps: SubscriptionServiceDeps) {
  const { db, engine } = deps;

  async function find(ctx: Pick<RequestCtx, "merchantId" | "environment">, id: string) {
    const row = await repo.findSubscription(db, ctx, id);
    if (!row) throw notFound("Subscription", id);
    return row;
  }

  async function view(ctx: Pick<RequestCtx, "merchantId" | "environment">, id: string) {
    const s = await find(ctx, id);
    const plan = (await deps.events.plan(db, s))!;
    const customer = await deps.events.customer(db, s);
    const open = s.openInvoiceId ? (await repo.findInvoice(db, s.openInvoiceId)) ?? null : null;
    const mandate = s.paymentMethod.type === "pix_automatico" ? await deps.mandates.ofSubscription(s.id) : null;
    return { ...toSubscription(s, plan, customer, await repo.chargesOf(db, s.id, 100), open), mandate: mandate ? toMandate(mandate) : null };
  }

  /**
   * The first payment as the client typed it (its customer and card as sent), checked with the
   * charge path's own rules before anything is written; the attempt itself charges the vault
   * card of the customer found or made.
   */
  function firstCharge(id: string, plan: { price: number; currency: string }, body: CreateBody): ChargeCommand {
    const pm = body.paymentMethod;
    // Journey 3's first payment is the Pix the mandate's QR carries.
    const paymentMethod = pm.type === "credit_card" ? { ...pm, installments: 1 } : { type: pm.type === "pix_automatico" ? "pix" as const : pm.type };
    return {
      amountMinor: plan.price, currency: plan.currency, customer: body.customer, paymentMethod,
      metadata: { subscriptionId: id }, subscriptionId: id, ...(body.split ? { split: body.split } : {}),
      ...(pm.type === "pix_automatico" ? { mandateProcessor: true as const } : {}),
    };
  }

  /**
   * POST /v1/subscriptions. Everything is checked first, the first payment with the charge
   * path's own rules (charges.validate); then the customer, the vault card, the subscription and
   * its first invoice are written, and the first period is charged through the charge service.
   * Ids come from the Idempotency-Key's seed: a retry after a crash finds the subscription and
   * reruns the first attempt under the same charge id, which the charge service answers with
   * the charge already made.
   */
  async function create(ctx: RequestCtx, body: CreateBody) {
    const id = seededId("sub", ctx.idempotencySeed);
    const pm = body.paymentMethod;
    const first: FirstPayment = pm.type === "credit_card" ? { cvv: pm.cvv, threeDSMode: pm.threeDSMode } : {};
    if (ctx.idempotencySeed) {
      const earlier = await repo.findSubscription(db, ctx, id);
      if (earlier) return finishFirstPayment(earlier, first, pm).then(() => view(ctx, id));
    }
    const plan = await deps.plans.usable(ctx, body.planId, "planId");
    if (body.billingDay !== undefined && !usesBillingDay(plan)) {
      throw invalid(`billingDay applies to month and year plans; a ${plan.interval} plan bills every ${plan.intervalCount} ${plan.interval}(s) from its start`);
    }
    if (pm.type === "credit_card" && pm.cardId && !body.customer.id) throw invalid("customer.id is required with paymentMethod.cardId");
    if (pm.type === "pix_automatico") {
      // Live mandates need the processor pix_automatico= names (the Central Bank's rec and cobr) and a plan with
      // a Central Bank periodicity: refused before anything is written rather than never debited.
      checkPlanCadence(plan);
      deps.liveMandates.checkSignUp(ctx.environment, plan);
      await requireTaxId(ctx, body.customer);
    }
    const checked = await deps.charges.check(ctx, firstCharge(id, plan, body));
    if (!checked.ok) throw checked.problems[0]!;

    const now = await engine.clockNow(db, ctx);
    const customer = await withTx(db, (tx) => deps.customers.resolveForCharge(tx, ctx, body.customer));
    let cardId = pm.type === "credit_card" ? pm.cardId : undefined;
    if (pm.type === "credit_card" && pm.number) {
      // Kept in the vault for the renewals (sealed; the CVV is never kept).
      // Under an id derived from the subscription's: a retry after a crash between this card and
      // the subscription's transaction finds this card instead of saving a second one.
      const cardCtx = { ...ctx, idempotencySeed: derivedSeed(id, "vault-card") };
      const card = await deps.cards.create(cardCtx, customer.id, { number: pm.number, holderName: pm.holderName!, expirationMonth: pm.expirationMonth!, expirationYear: pm.expirationYear! });
      cardId = card.id;
      faultPoint("subscription.after-card");
    }
    const trialEnd = plan.trialDays > 0 ? addDays(now, plan.trialDays) : null;
    // A Pix Automático subscription waits for its mandate (its trial too), however long that takes.
    const awaitsMandate = pm.type === "pix_automatico";
    const anchor = trialEnd ?? now;
    const billingDay = body.billingDay ?? anchor.getUTCDate();
    const period = trialEnd ? { start: now, end: trialEnd } : periodBounds(anchor, billingDay, plan, 0);
    const invoiceId = seededId("inv", derivedSeed(id, `period-${period.start.toISOString()}`));
    const created = await withTx(db, async (tx) => {
      const row = await repo.insertSubscription(tx, {
        id, merchantId: ctx.merchantId, environment: ctx.environment, planId: plan.id, customerId: customer.id,
        paymentMethod: cardId ? { type: "credit_card", cardId } : { type: pm.type }, status: trialEnd && !awaitsMandate ? "active" : "pending_activation",
        billingDay, anchorAt: anchor, cycle: trialEnd ? -1 : 0, currentPeriodStart: period.start, currentPeriodEnd: period.end, trialEnd,
        openInvoiceId: trialEnd ? null : invoiceId, nextRunAt: awaitsMandate ? null : trialEnd ?? new Date(now.getTime() + ACTIVATION_WINDOW_MS),
        split: body.split ?? null, metadata: body.metadata ?? null, createdAt: now,
      });
      if (!row) return null; // a concurrent retry of this key got there first
      const inv = trialEnd ? null : await repo.insertInvoice(tx, {
        id: invoiceId, subscriptionId: id, merchantId: ctx.merchantId, environment: ctx.environment, cycle: 0,
        periodStart: period.start, periodEnd: period.end, planId: plan.id, amount: plan.price, currency: plan.currency, status: "open",
      });
      await emit(tx, deps.events, "subscription.created", row);
      return { row, inv };
    });
    const paid = created?.inv ? await engine.attempt(created.row, created.inv, 1, now, { renewal: false, first }) : null;
    if (created && pm.type === "pix_automatico") await deps.mandates.open(created.row, plan, retryPolicyOf(pm), paid);
    return view(ctx, id);
  }

  const retryPolicyOf = (pm: CreateBody["paymentMethod"]): RetryPolicy => (pm.type === "pix_automatico" ? pm.retryPolicy ?? "3_in_7_days" : "none");

  /** Pix Automático debits the payer's account: the Central Bank's rec names the payer by CPF or CNPJ. */
  async function requireTaxId(ctx: RequestCtx, customer: CreateBody["customer"]) {
    const type = customer.id ? (await deps.customers.resolveForCharge(db, ctx, { id: customer.id })).documentType : customer.document?.type;
    if (type !== "cpf" && type !== "cnpj") throw invalid("customer.document: Pix Automático needs the payer's CPF or CNPJ");
  }

  /** A retry of a create whose first attempt may have been cut short: rerun it (same charge id). */
  async function finishFirstPayment(s: repo.SubscriptionRow, first: FirstPayment, pm: CreateBody["paymentMethod"]) {
    // A sign-up cut short before its mandate was written reruns the first attempt too (the charge
    // service answers with the charge already made), for the QR the mandate shows.
    const mandateMissing = s.paymentMethod.type === "pix_automatico" && !(await deps.mandates.ofSubscription(s.id));
    const inv = s.openInvoiceId ? await repo.findInvoice(db, s.openInvoiceId) : undefined;
    let paid: Awaited<ReturnType<typeof engine.attempt>> | null = null;
    if (inv && inv.cycle === 0 && inv.periodStart.getTime() === s.createdAt.getTime() && (mandateMissing || inv.inFlight || (inv.status === "open" && inv.attempts === 0))) {
      paid = await engine.attempt(s, inv, Math.max(inv.attempts, 1), await engine.clockNow(db, s), { renewal: false, first });
    }
    if (mandateMissing) {
      const plan = (await deps.events.plan(db, s))!;
      await deps.mandates.open(s, plan, retryPolicyOf(pm), paid);
    }
  }

  async function list(ctx: RequestCtx, q: Static<typeof ListSubscriptionsQuery>) {
    let merchantId = ctx.merchantId;
    if (q.merchantId && q.merchantId !== ctx.merchantId) {
      // A Connect master may list a submerchant's subscriptions; any other merchant is not found.
      const other = await deps.merchants.getMerchant(q.merchantId).catch(() => null);
      if (!other || other.parentId !== ctx.merchantId) throw notFound("Merchant", q.merchantId);
      merchantId = other.id;
    }
    const page = q.page ?? 1;
    const limit = q.limit ?? 10;
    const { rows, total } = await readForList(db, ctx, (r) => repo.listSubscriptions(r, {
      merchantId, environment: ctx.environment, customerId: q.customerId, status: q.status, search: q.search, page, limit,
    }));
    return { data: rows.map(toListItem), meta: { total, page, limit, totalPages: Math.ceil(total / limit) } };
  }

  /** Applies a status change under the transition table, guarded by the status it was read in. */
  async function move(s: repo.SubscriptionRow, to: SubscriptionStatus, patch: Partial<repo.SubscriptionRow>, event: Parameters<typeof emit>[2], also?: (tx: Tx) => Promise<unknown>) {
    assertTransition(s.id, s.status, to);
    const row = await withTx(db, async (tx) => {
      // One lock order for everything a subscription's change touches: the subscription, then
      // its invoice, then its mandate, as the charge listener and the mandate's decisions take
      // them; two orders deadlocked a cancel racing its mandate's approval (a 500).
      const locked = await repo.lockSubscription(tx, s.id);
      if (locked?.status !== s.status) return undefined;
      if (locked.openInvoiceId) await repo.updateInvoice(tx, locked.openInvoiceId, { status: "void", currentChargeId: null, nextAttemptAt: null });
      const moved = await repo.updateSubscription(tx, s.id, { ...patch, status: to }, s.status);
      if (moved && also) await also(tx);
      if (moved) await emit(tx, deps.events, event, moved);
      return moved;
    });
    if (!row) throw new AppError("conflict", `Subscription ${s.id} was changed by another request; retry`);
    return row;
  }

  async function cancel(ctx: RequestCtx, id: string, body: Static<typeof CancelBody>) {
    const s = await find(ctx, id);
    const now = await engine.clockNow(db, s);
    if (body.atPeriodEnd) {
      if (body.refund) throw invalid("refund applies to immediate cancels; a subscription cancelled at period end has used what it paid for");
      if (s.status !== "active") throw new AppError("invalid_state", `Subscription ${id} is ${s.status}; only an active subscription can be cancelled at the end of its period`);
      if (!s.cancelAtPeriodEnd) {
        await withTx(db, (tx) => engine.save(tx, s, { cancelAtPeriodEnd: true, cancellationType: "end_of_period" }, null, "active"));
      }
      return view(ctx, id);
    }
    assertTransition(id, s.status, "cancelled");
    let refunded = false;
    const paid = body.refund ? await repo.paidInvoiceOf(db, s.id, s.currentPeriodStart) : undefined;
    // A payment still open (journey 3's first QR, a period's debit at the payer's bank) is ended first.
    const open = await deps.openPayments.end(ctx, s, body.refund === true && !paid?.currentChargeId);
    if (open?.refunded) refunded = true;
    if (body.refund && !paid?.currentChargeId && !open) throw invalid("refund: the current period has no paid charge to refund");
    if (paid?.currentChargeId) {
      // Keyed by the subscription: a retry of this cancel finds the same refund, never makes two.
      // Its time part is the start of the period it gives back, which no retry of the cancel
      // changes (the subscription's own time would file it under the day it was created).
      const seed = derivedSeed(s.id, "cancel-refund", s.currentPeriodStart);
      const r = await deps.refunds.refund({ ...ctx, idempotencySeed: seed }, paid.currentChargeId, undefined);
      // Pending is under way at the processor (a Pix devolução is settled after its answer): the
      // refund's own events follow it; only a refusal leaves the subscription as it was.
      if (r.status === "failed") throw new AppError("invalid_state", `refund: the processor refused the refund of ${paid.currentChargeId}; the subscription was not cancelled`);
      refunded = true;
    }
    // The merchant's cancel ends the mandate too: no later period may be debited. A live one is
    // cancelled at the processor first (a cancel it does not confirm is a 503 and changes nothing).
    await deps.liveMandates.cancelAtProvider(await deps.mandates.ofSubscription(s.id));
    // Read again: a first payment that landed meanwhile activated it.
    const fresh = open ? await find(ctx, id) : s;
    await move(fresh, "cancelled", {
      cancelledAt: now, cancellationType: "immediate", cancelAtPeriodEnd: false, refunded, nextRunAt: null, openInvoiceId: null,
    }, "subscription.cancelled", (tx) => deps.mandates.cancelIn(tx, s.id, "merchant"));
    return { ...(await view(ctx, id)), pendingDebit: open?.pendingDebit ?? null };
  }

  /** Sandbox: the payer cancels the mandate in the bank app, which cancels the subscription. */
  async function cancelByPayer(ctx: RequestCtx, mandateId: string) {
    deps.mandates.sandboxOnly(ctx);
    const m = await deps.mandates.find(ctx, mandateId);
    if (m.status !== "pending" && m.status !== "active") throw new AppError("invalid_state", `Mandate ${m.id} is ${m.status}; it can no longer be cancelled`);
    await payerCancelled(m);
    return deps.mandates.get(ctx, mandateId);
  }

  /** The payer cancelled the mandate (the sandbox's route, or a live processor's state read back). */
  async function payerCancelled(m: MandateRow): Promise<boolean> {
    let s = (await repo.findSubscription(db, m, m.subscriptionId))!;
    // A subscription not yet active keeps nothing: its first QR is ended as a merchant's cancel ends it.
    if (s.status === "pending_activation" && (await deps.openPayments.end(systemCtx(s, "mandate"), s, false))) s = (await repo.findSubscription(db, m, m.subscriptionId))!;
    const cancelMandate = (tx: Tx) => deps.mandates.cancelIn(tx, s.id, "payer");
    if (s.status === "cancelled" || s.status === "expired") return (await withTx(db, cancelMandate)) !== null;
    await move(s, "cancelled", { cancelledAt: await engine.clockNow(db, s), cancellationType: "mandate_cancelled", cancelAtPeriodEnd: false, nextRunAt: null, openInvoiceId: null }, "subscription.cancelled", cancelMandate);
    return true;
  }

  /**
   * A live mandate as its processor shows it now (read back after a notice, or by the
   * reconciliation), applied by the transitions the sandbox's payer's bank uses; each is guarded
   * by the mandate's status, so the same state read twice changes it once.
   */
  async function applyProviderState(m: MandateRow): Promise<{ outcome: MandateState["outcome"]; changed: boolean }> {
    const state = await deps.liveMandates.read(m);
    let changed = false;
    if (state.outcome === "active") changed = await deps.mandates.activate(m);
    else if (state.outcome === "rejected" || state.outcome === "expired") changed = await deps.mandates.end(m, state.outcome);
    // The receiver's own cancel is finished by the merchant's request that made it (a retry of it after a crash finds it cancelled).
    else if (state.outcome === "cancelled" && state.by === "payer" && (m.status === "pending" || m.status === "active")) changed = await payerCancelled(m);
    return { outcome: state.outcome, changed };
  }

  async function pause(ctx: RequestCtx, id: string) {
    const s = await find(ctx, id);
    await move(s, "paused", { pausedAt: await engine.clockNow(db, s), nextRunAt: null, openInvoiceId: null }, "subscription.paused");
    return view(ctx, id);
  }

  /**
   * Resume: the next period starts on the resume date (its day becomes the billing day, as
   * Stripe resets the billing cycle anchor), and is billed at once.
   */
  async function resume(ctx: RequestCtx, id: string) {
    const s = await find(ctx, id);
    const now = await engine.clockNow(db, s);
    // A Pix Automático period can be debited no sooner than 2 days after its charge is sent:
    // its first period after the pause starts then (the days between are not billed).
    const start = s.paymentMethod.type === "pix_automatico" ? addDays(now, PIX_AUTO_WINDOW_DAYS.latest) : now;
    const row = await move(s, "active", {
      pausedAt: null, anchorAt: start, billingDay: start.getUTCDate(), cycle: -1, currentPeriodStart: now, currentPeriodEnd: start,
      nextRunAt: now, claimedUntil: new Date(Date.now() + 60_000),
    }, "subscription.resumed");
    await engine.runClaimed([row], async () => now);
    return view(ctx, id);
  }

  async function update(ctx: RequestCtx, id: string, body: Static<typeof UpdateSubscriptionBody>) {
    const s = await find(ctx, id);
    if (s.status === "cancelled" || s.status === "expired") throw new AppError("invalid_state", `Subscription ${id} is ${s.status}; it can no longer change`);
    const patch: Partial<repo.SubscriptionRow> = {};
    if (body.planId !== undefined) {
      const plan = await deps.plans.usable(ctx, body.planId, "planId");
      const current = (await deps.events.plan(db, s))!;
      if (plan.currency !== current.currency) throw invalid(`planId: the new plan is in ${plan.currency}, the subscription in ${current.currency}`);
      await deps.mandates.checkPlanChange(s.id, plan);
      patch.nextPlanId = plan.id === s.planId ? null : plan.id;
    }
    if (body.metadata !== undefined) patch.metadata = body.metadata;
    await repo.updateSubscription(db, id, patch);
    return view(ctx, id);
  }

  async function getSettings(ctx: RequestCtx) {
    return engine.settingsOf(db, ctx);
  }

  async function putSettings(ctx: RequestCtx, body: { retryDays: number[]; onExhausted: "expire" | "cancel" }) {
    await repo.putSettings(db, ctx, body.retryDays, body.onExhausted);
    return engine.settingsOf(db, ctx);
  }

  return { create, get: view, list, cancel, cancelByPayer, applyProviderState, pause, resume, update, getSettings, putSettings };
}

export type SubscriptionService = ReturnType<typeof createSubscriptionService>;
