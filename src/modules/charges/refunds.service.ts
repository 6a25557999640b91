import { withTx, type Db } from "../../db/client.js";
import { AppError, invalid, notFound } from "../../http/errors.js";
import type { RequestCtx } from "../../http/context.js";
import { newId } from "../../lib/ids.js";
import { currencyExponent, formatMajor, toMajor, toMinor } from "../../lib/money.js";
import type { LedgerService } from "../ledger/ledger.service.js";
import type { ChargeEffects } from "./charge-effects.js";
import type { ChargeStatus } from "./charge-status.js";
import * as repo from "./charges.repo.js";
import type { PaymentProcessor } from "../../processors/processor.js";

// Refunds in three steps, so that concurrent refunds can never exceed the paid amount and
// the processor is never called inside a transaction:
// 1. reserve: one guarded UPDATE adds the amount to amount_refunded while the sum stays within
//    the charge, and a pending refund row is written;
// 2. the processor refunds;
// 3. settle: the refund succeeds (ledger, charge.refunded, refunded status when nothing is
//    left) or fails (the reservation is released).
export function createRefundService(deps: {
  db: Db;
  effects: ChargeEffects;
  ledger: Pick<LedgerService, "postRefund">;
  processorFor(ctx: RequestCtx): PaymentProcessor;
}) {
  const { db } = deps;

  async function refund(ctx: RequestCtx, chargeId: string, amount: number | undefined) {
    const charge = await repo.findCharge(db, ctx, chargeId);
    if (!charge) throw notFound("Charge", chargeId);
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

    const refundId = newId("re");
    const reserved = await withTx(db, async (tx) => {
      const row = await repo.reserveRefund(tx, chargeId, minor);
      if (!row) return false;
      await repo.insertRefund(tx, { id: refundId, chargeId, merchantId: ctx.merchantId, environment: ctx.environment, amount: minor, status: "pending" });
      return true;
    });
    if (!reserved) throw tooMuch(); // a concurrent refund took the rest first

    let outcome;
    try {
      outcome = await deps.processorFor(ctx).refund({ chargeId, pspRefId: charge.pspRefId, amountMinor: minor, refundId });
    } catch (err) {
      await withTx(db, async (tx) => {
        await repo.releaseRefund(tx, chargeId, minor);
        await repo.setRefundStatus(tx, refundId, "failed");
      });
      throw err;
    }

    return withTx(db, async (tx) => {
      if (outcome.outcome === "failed") {
        await repo.releaseRefund(tx, chargeId, minor);
        const failed = await repo.setRefundStatus(tx, refundId, "failed");
        return view(failed, charge.currency, charge.status as ChargeStatus);
      }
      const done = await repo.setRefundStatus(tx, refundId, "succeeded");
      await deps.ledger.postRefund(tx, charge, minor, refundId);
      const current = (await repo.findCharge(tx, ctx, chargeId))!;
      // The last refund makes the charge refunded (charge.refunded from the transition); a
      // partial one keeps it paid and is announced with the amount refunded so far.
      const after = current.amountRefunded === current.amount
        ? await deps.effects.moveTo(tx, current, "refunded")
        : (await deps.effects.announce(tx, current, "charge.refunded"), current);
      return view(done, charge.currency, after.status as ChargeStatus);
    });
  }

  function view(r: { id: string; chargeId: string; amount: number; status: string; createdAt: Date }, currency: string, chargeStatus: ChargeStatus) {
    return {
      id: r.id, chargeId: r.chargeId, amount: toMajor(r.amount, currency), currency,
      status: r.status as "succeeded" | "failed", chargeStatus, createdAt: r.createdAt.toISOString(),
    };
  }

  return { refund };
}

export type RefundService = ReturnType<typeof createRefundService>;
