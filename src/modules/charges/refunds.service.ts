import { withTx, type Db } from "../../db/client.js";
import { AppError, invalid, notFound } from "../../http/errors.js";
import type { Environment, RequestCtx } from "../../http/context.js";
import { faultPoint } from "../../lib/faults.js";
import { seededId } from "../../lib/ids.js";
import { currencyExponent, formatMajor, toMajor, toMinor } from "../../lib/money.js";
import type { LedgerService } from "../ledger/ledger.service.js";
import type { ChargeEffects } from "./charge-effects.js";
import type { ChargeStatus } from "./charge-status.js";
import * as repo from "./charges.repo.js";
import type { PaymentProcessor, RefundResult } from "../../processors/processor.js";

// Refunds in three steps, so that concurrent refunds can never exceed the paid amount and
// the processor is never called inside a transaction:
// 1. reserve: one guarded UPDATE adds the amount to amount_refunded while the sum stays within
//    the charge, and a pending refund row is written;
// 2. the processor refunds, with the refund id as its idempotency key;
// 3. settle: the refund succeeds (ledger, charge.refunded, refunded status when nothing is
//    left) or fails (the reservation is released). The settling UPDATE is guarded by
//    status = 'pending', so the request, a retry of it and the janitor can all try: one wins.
// A crash between 1 and 3 leaves a pending refund. A retry under the same Idempotency-Key has
// the same refund id and carries on from step 2; otherwise the janitor (reconcilePending) does,
// after a grace period. Both call the processor again with the same refund id, which answers
// with its first result: the refund is completed or released, never done twice.
export function createRefundService(deps: {
  db: Db;
  effects: ChargeEffects;
  ledger: Pick<LedgerService, "postRefund">;
  processorFor(ctx: { environment: Environment }): PaymentProcessor;
}) {
  const { db } = deps;

  async function refund(ctx: RequestCtx, chargeId: string, amount: number | undefined) {
    const refundId = seededId("re", ctx.idempotencySeed);
    const charge = await repo.findCharge(db, ctx, chargeId);
    if (!charge) throw notFound("Charge", chargeId);
    if (ctx.idempotencySeed) {
      const earlier = await repo.findRefund(db, refundId);
      if (earlier?.chargeId === chargeId) return earlier.status === "pending" ? finish(earlier) : view(earlier, charge.currency, charge.status as ChargeStatus);
    }
    if (charge.status !== "paid") {
      throw new AppError("invalid_state", `Charge ${chargeId} is ${charge.status}; only paid charges can be refunded`);
    }
    const rest = charge.amount - charge.amountRefunded;
    let minor = rest;
    if (amount !== undefined) {
      const parsed = toMinor(amount, charge.currency, { minUnits: 10 ** -(currencyExponent(charge.currency) ?? 0) });
      if (!parsed.ok) throw invalid(parsed.message);
      minor = parsed.minor;
    }
    const tooMuch = () => invalid(`amount exceeds the refundable rest of ${formatMajor(rest, charge.currency)} ${charge.currency}`);
    if (minor > rest) throw tooMuch();

    const reserved = await withTx(db, async (tx) => {
      const row = await repo.reserveRefund(tx, chargeId, minor);
      if (!row) return null;
      return repo.insertRefund(tx, { id: refundId, chargeId, merchantId: ctx.merchantId, environment: ctx.environment, amount: minor, status: "pending" });
    });
    if (!reserved) throw tooMuch(); // a concurrent refund took the rest first
    faultPoint("refund.after-reserve");
    return finish(reserved);
  }

  /** Steps 2 and 3 for a pending refund. */
  async function finish(r: repo.RefundRow) {
    // A processor error leaves the refund pending (whether it refunded is unknown): a retry or
    // the janitor asks again under the same refund id.
    const outcome = await deps.processorFor(r).refund({ chargeId: r.chargeId, pspRefId: await pspRefOf(r), amountMinor: r.amount, refundId: r.id });
    faultPoint("refund.after-processor");
    return settle(r, outcome);
  }

  async function pspRefOf(r: repo.RefundRow): Promise<string | null> {
    return (await repo.findCharge(db, { merchantId: r.merchantId, environment: r.environment }, r.chargeId))?.pspRefId ?? null;
  }

  async function settle(r: repo.RefundRow, outcome: RefundResult) {
    const scope = { merchantId: r.merchantId, environment: r.environment as Environment };
    return withTx(db, async (tx) => {
      const done = await repo.settleRefund(tx, r.id, outcome.outcome === "succeeded" ? "succeeded" : "failed");
      const current = (await repo.findCharge(tx, scope, r.chargeId))!;
      if (!done) {
        // Settled already (by a retry or the janitor): answer with what it became.
        return view((await repo.findRefund(tx, r.id))!, current.currency, current.status as ChargeStatus);
      }
      if (done.status === "failed") {
        await repo.releaseRefund(tx, r.chargeId, r.amount);
        return view(done, current.currency, current.status as ChargeStatus);
      }
      await deps.ledger.postRefund(tx, current, r.amount, r.id);
      // The last refund makes the charge refunded (charge.refunded from the transition); a
      // partial one keeps it paid and is announced with the amount refunded so far.
      const after = current.amountRefunded === current.amount
        ? await deps.effects.moveTo(tx, current, "refunded")
        : (await deps.effects.announce(tx, current, "charge.refunded"), current);
      return view(done, current.currency, after.status as ChargeStatus);
    });
  }

  /**
   * The janitor: refunds still pending after `graceMs` were left by a crash (a live request
   * settles within its processor timeout). Each is finished against the processor's record.
   */
  async function reconcilePending(graceMs: number): Promise<number> {
    let n = 0;
    for (const r of await repo.stalePendingRefunds(db, graceMs, 100)) {
      try {
        await finish(r);
        n++;
      } catch {
        // The processor is unreachable or not configured: try again on the next run.
      }
    }
    return n;
  }

  function view(r: { id: string; chargeId: string; amount: number; status: string; createdAt: Date }, currency: string, chargeStatus: ChargeStatus) {
    return {
      id: r.id, chargeId: r.chargeId, amount: toMajor(r.amount, currency), currency,
      status: r.status as "succeeded" | "failed", chargeStatus, createdAt: r.createdAt.toISOString(),
    };
  }

  return { refund, reconcilePending };
}

export type RefundService = ReturnType<typeof createRefundService>;
