import { withTx, type Db } from "../../../db/client.js";
import { AppError, notFound } from "../../../core/errors.js";
import type { Environment, RequestCtx } from "../../../core/context.js";
import { faultPoint } from "../../../lib/faults.js";
import { seededId } from "../../../lib/ids.js";
import { amountToMinor } from "../../../core/amounts.js";
import { currencyExponent, formatMajor, toMajor, type AmountLimits } from "../../../lib/money.js";
import { grossOf, type LedgerService } from "../../ledger/index.js";
import type { ChargeEffects } from "../charge-effects.js";
import type { ChargeStatus } from "../charge-status.js";
import type { ChargeRow } from "../charges.mapper.js";
import * as repo from "../charges.repo.js";
import { findLiveCharge } from "../provider-state/provider-sync.repo.js";
import { refundsOf, type PaymentProcessor, type RefundResult } from "../../../processors/processor.js";
import { sellersOf, type ChargeSellers } from "../charge-sellers.js";

// Refunds in three steps, so that concurrent refunds can never exceed the paid amount and
// the processor is never called inside a transaction:
// 1. reserve: one guarded UPDATE adds the amount to amount_refunded while the sum stays within
//    the charge, and a pending refund row is written;
// 2. the processor refunds, with the refund id as its idempotency key (sent_at is stamped just
//    before the call: from then on the provider may have the refund);
// 3. settle: the refund succeeds (ledger, charge.refunded, refunded status when the succeeded
//    refunds add up to the charge), fails (the reservation is released) or stays pending (a
//    live provider accepted it without finishing, or gave no answer to rely on: the
//    reservation is kept, so the money cannot be refunded twice). The settling UPDATE is
//    guarded by status = 'pending', so the request, a retry, the janitor and the live
//    reconciliation can all try: one wins.
// A pending refund is carried on (resume) by a retry under the same Idempotency-Key (same
// refund id), by the live reconciliation (reconcileLive, every PROCESSOR_RECONCILE_INTERVAL_MS)
// or by the janitor (reconcilePending, a crash's leftovers after a grace period). A refund that
// was never sent is sent; one that was is read back with refundStatus, and sent again under the
// same refund id only when the provider says it never received it (not_found).
const REFUNDS_PAGE = 100;

export function createRefundService(deps: {
  db: Db;
  effects: ChargeEffects;
  ledger: Pick<LedgerService, "postRefund" | "postChargebackRest">;
  processorFor(ctx: { environment: Environment }, processorName?: string | null): PaymentProcessor;
  amountLimits: AmountLimits;
  /** A provider-settled charge's sellers' accounts at its processor (a refund made on a seller's account). */
  sellers?: ChargeSellers;
}) {
  const { db } = deps;

  async function refund(ctx: RequestCtx, chargeId: string, amount: number | undefined) {
    const refundId = seededId("re", ctx.idempotencySeed);
    const charge = await repo.findCharge(db, ctx, chargeId);
    if (!charge) throw notFound("Charge", chargeId);
    if (ctx.idempotencySeed) {
      const earlier = await repo.findRefund(db, refundId);
      if (earlier?.chargeId === chargeId) return earlier.status === "pending" ? resume(earlier) : view(earlier, charge.currency, charge.status);
    }
    if (charge.status !== "paid") {
      throw new AppError("invalid_state", `Charge ${chargeId} is ${charge.status}; only paid charges can be refunded`);
    }
    // What an open or lost dispute took is not the merchant's to refund (Stripe refuses it too).
    // Of what the buyer paid: a charge with installment interest refunds up to its totalAmount.
    const rest = grossOf(charge) - charge.amountRefunded - charge.amountDisputed;
    let minor = rest;
    if (amount !== undefined) {
      minor = amountToMinor(amount, charge.currency, deps.amountLimits, { minUnits: 10 ** -(currencyExponent(charge.currency) ?? 0) });
    }
    const tooMuch = () => new AppError("refund_exceeds_refundable", `amount exceeds the refundable rest of ${formatMajor(rest, charge.currency)} ${charge.currency}`,
      { available: { minor: rest, currency: charge.currency } });
    // Nothing left (refunds reserved, or a dispute holding the rest) is never a refund of 0.
    if (minor > rest || minor === 0) throw tooMuch();
    // Checked before anything is reserved: a processor without refunds is refunded at the provider.
    if (!refundsOf(deps.processorFor(ctx, charge.processor))) {
      throw new AppError("method_not_supported", `Charge ${chargeId}'s processor does not refund through feira; refund it at the provider`);
    }

    const reserved = await withTx(db, async (tx) => {
      const row = await repo.reserveRefund(tx, chargeId, minor, grossOf(charge));
      if (!row) return null;
      return repo.insertRefund(tx, { id: refundId, chargeId, merchantId: ctx.merchantId, environment: ctx.environment, amount: minor, status: "pending" });
    });
    if (!reserved) throw tooMuch(); // a concurrent refund took the rest first
    faultPoint("refund.after-reserve");
    return send(reserved, charge);
  }

  const inputOf = async (r: repo.RefundRow, charge: ChargeRow | undefined) => ({
    chargeId: r.chargeId, pspRefId: charge?.pspRefId ?? null, amountMinor: r.amount, refundId: r.id, chargeAmountMinor: charge ? grossOf(charge) : undefined,
    // A payment made on a seller's own account is refunded there (charge-sellers.ts).
    ...(charge ? await sellersOf(charge, deps.processorFor(r, charge.processor), deps.sellers) : {}),
  });
  const chargeOf = (r: repo.RefundRow) => repo.findCharge(db, { merchantId: r.merchantId, environment: r.environment }, r.chargeId);
  // The adapter that served the charge refunds it (a live charge's processor column).
  const processorOf = (r: repo.RefundRow, charge: ChargeRow | undefined) => {
    const refunds = refundsOf(deps.processorFor(r, charge?.processor));
    // refund() checked it before this refund was reserved; only a processor removed since can lack it.
    if (!refunds) throw new AppError("method_not_supported", `Refund ${r.id}'s processor does not refund through feira`);
    return refunds;
  };

  /** Steps 2 and 3: sends the refund to the processor and settles it with the answer. */
  async function send(r: repo.RefundRow, known?: ChargeRow) {
    const charge = known ?? await chargeOf(r);
    const processor = processorOf(r, charge);
    await repo.markRefundSent(db, r.id);
    const outcome = await processor.refund(await inputOf(r, charge));
    faultPoint("refund.after-processor");
    return settle(r, outcome);
  }

  /**
   * Carries on with a pending refund. Once sent, the provider may hold it: its state is read,
   * never a second refund sent blindly; only a provider that never received it (not_found) is
   * sent it again, under the same refund id (the same idempotency key).
   */
  async function resume(r: repo.RefundRow) {
    if (!r.sentAt) return send(r);
    const charge = await chargeOf(r);
    const state = await readBack(r, charge);
    return state.outcome === "not_found" ? send(r, charge) : settle(r, state);
  }

  /** The provider's state of a refund that was sent. */
  async function readBack(r: repo.RefundRow, charge: ChargeRow | undefined) {
    const processor = processorOf(r, charge);
    await repo.markRefundSent(db, r.id);
    return processor.refundStatus({ ...(await inputOf(r, charge)), refundRef: r.refundRef });
  }

  /** Settles a sent refund from the provider's state; never sends it (undefined when the provider has none). */
  async function settleFromProvider(r: repo.RefundRow) {
    const state = await readBack(r, await chargeOf(r));
    return state.outcome === "not_found" ? undefined : settle(r, state);
  }

  async function settle(r: repo.RefundRow, outcome: RefundResult) {
    const scope = { merchantId: r.merchantId, environment: r.environment as Environment };
    const facts = { refundRef: outcome.outcome === "failed" ? null : outcome.refundRef, providerCode: outcome.providerCode };
    return withTx(db, async (tx) => {
      // Refunds of one charge settle one at a time, so the one that completes the charge sees
      // every other succeeded refund (two racing settlements cannot both miss the last step).
      await repo.lockCharge(tx, r.chargeId);
      const done = outcome.outcome === "pending"
        ? undefined
        : await repo.settleRefund(tx, r.id, outcome.outcome, facts);
      const current = (await repo.findCharge(tx, scope, r.chargeId))!;
      if (!done) {
        // Still pending at the provider (its word is kept), or settled already by a retry,
        // the janitor or the reconciliation: answer with what the refund is now.
        const now = outcome.outcome === "pending" ? await repo.notePendingRefund(tx, r.id, facts) : undefined;
        return view(now ?? (await repo.findRefund(tx, r.id))!, current.currency, current.status);
      }
      if (done.status === "failed") {
        if (current.status === "charged_back") {
          // amount_refunded still holds this refund's reservation: what it holds beyond the
          // refunds that succeeded is what the chargeback left out (this refund included).
          const held = current.amountRefunded - (await repo.succeededRefundTotal(tx, r.chargeId));
          await deps.ledger.postChargebackRest(tx, current, r.amount, r.id, grossOf(current) - held);
        }
        await repo.releaseRefund(tx, r.chargeId, r.amount);
        // Endpoints hear of it: a refund answered pending said nothing final to its caller.
        await deps.effects.announce(tx, current, "charge.refund_failed", { amountRefunded: current.amountRefunded - r.amount });
        return view(done, current.currency, current.status);
      }
      // amount_refunded also holds pending reservations; the ledger's shares and the refunded
      // status follow the refunds that succeeded, this one included.
      const refunded = await repo.succeededRefundTotal(tx, r.chargeId);
      await deps.ledger.postRefund(tx, { ...current, amountRefunded: refunded }, r.amount, r.id);
      // The last refund makes the charge refunded (charge.refunded from the transition); a
      // partial one keeps it paid and is announced with the amount refunded so far.
      const after = refunded === grossOf(current) && current.status === "paid"
        ? await deps.effects.moveTo(tx, current, "refunded")
        : (await deps.effects.announce(tx, current, "charge.refunded"), current);
      return view(done, current.currency, after.status);
    });
  }

  /** Carries each refund on with `step`; returns how many it settled. A failing processor is tried again next round. */
  async function resumeAll(rows: repo.RefundRow[], step: (r: repo.RefundRow) => Promise<{ status: string } | undefined> = resume): Promise<number> {
    let n = 0;
    for (const r of rows) {
      try {
        const now = await step(r);
        if (now && now.status !== "pending") n++;
      } catch {
        // The processor is unreachable or not configured: try again on the next run.
      }
    }
    return n;
  }

  /**
   * The janitor: refunds still pending after `graceMs` and not asked about for as long were
   * left by a crash (a live request settles within its processor timeout).
   */
  const reconcilePending = async (graceMs: number) => resumeAll(await repo.stalePendingRefunds(db, graceMs, 100));

  /**
   * The live reconciliation: production refunds still pending, read again at their provider on
   * the live cadence. `quietMs` (the processor timeout) keeps it off a refund whose own request
   * may still be waiting for the provider.
   */
  const reconcileLive = async (quietMs: number) => resumeAll(await repo.openLiveRefunds(db, quietMs, 50));

  /**
   * A provider's notice about a live charge (it may be about a refund: Mercado Pago's
   * payment.updated, Pagar.me's charge.refunded): the charge's pending refunds are read again
   * at once rather than at the next round. Reads only, so a refund whose own request is still
   * waiting for the provider is never sent twice; the guarded settlement orders the two.
   */
  async function reconcileNotice(processor: string, refs: readonly string[]): Promise<number> {
    for (const ref of refs) {
      const charge = await findLiveCharge(db, processor, ref);
      if (charge) return resumeAll(await repo.openLiveRefunds(db, 0, 50, charge.id), settleFromProvider);
    }
    return 0;
  }

  function view(r: { id: string; chargeId: string; amount: number; status: string; createdAt: Date }, currency: string, chargeStatus: ChargeStatus) {
    return {
      id: r.id, chargeId: r.chargeId, amount: toMajor(r.amount, currency), currency,
      status: r.status as "succeeded" | "failed" | "pending", chargeStatus, createdAt: r.createdAt.toISOString(),
    };
  }

  /** GET /v1/charges/{id}/refunds: the charge's refunds as they are now, newest first, at most 100. */
  async function list(ctx: RequestCtx, chargeId: string) {
    const charge = await repo.findCharge(db, ctx, chargeId);
    if (!charge) throw notFound("Charge", chargeId);
    const rows = await repo.listRefunds(db, ctx, chargeId, REFUNDS_PAGE);
    return { data: rows.slice(0, REFUNDS_PAGE).map((r) => view(r, charge.currency, charge.status)), hasMore: rows.length > REFUNDS_PAGE };
  }

  return { refund, list, reconcilePending, reconcileLive, reconcileNotice };
}

export type RefundService = ReturnType<typeof createRefundService>;
