import type { Db } from "../../db/client.js";
import type { RequestCtx } from "../../core/context.js";
import { AppError } from "../../core/errors.js";
import { derivedSeed } from "../../lib/ids.js";
import type { ChargeCancel, ChargeRow, ChargeService, RefundService } from "../charges/index.js";
import * as repo from "./subscriptions.repo.js";

// What a Pix Automático subscription's cancel does with a payment still open: journey 3's first
// QR of a subscription not yet active, or a period's debit already sent to the payer's bank.
// Left alone, either could still be paid after the cancel and kept. The payment is cancelled at
// its processor (the cob removed, the cobr cancelled: charge-cancel.ts), outside any transaction
// and before the subscription's own move. When the processor no longer cancels a debit (the
// Central Bank allows it until the day before its attempt), the cancel says so in its answer
// (`pendingDebit`) and, with refund: true, fails the charge in feira all the same: when the debit
// lands it is a late payment, refunded in full (late-payments.ts). A first payment that landed
// before the cancel reached it is refunded: a subscription that never started keeps nothing.

/** A debit the payer's bank may still make after the cancel. */
export interface PendingDebit {
  chargeId: string;
  dueDate: string | null;
  /** refund: true: refunded in full when it lands. */
  refundOnPayment: boolean;
}

export interface OpenPaymentDeps {
  db: Db;
  charges: Pick<ChargeService, "get">;
  cancelOpen: ChargeCancel["cancelOpen"];
  refunds: Pick<RefundService, "refund">;
}

export function createOpenPayments(deps: OpenPaymentDeps) {
  const { db } = deps;

  /** The open invoice's charge still waiting for the payer, if any. */
  async function openCharge(ctx: RequestCtx, s: repo.SubscriptionRow): Promise<ChargeRow | null> {
    if (s.paymentMethod.type !== "pix_automatico" || !s.openInvoiceId) return null;
    const inv = await repo.findInvoice(db, s.openInvoiceId);
    if (!inv || inv.status !== "open" || !inv.currentChargeId) return null;
    const charge = await deps.charges.get(ctx, inv.currentChargeId);
    return charge.status === "pending" ? charge : null;
  }

  /** Refunds a payment that landed before the cancel reached it, under the cancel's refund key. */
  async function refundLanded(ctx: RequestCtx, s: repo.SubscriptionRow, charge: ChargeRow) {
    const r = await deps.refunds.refund({ ...ctx, idempotencySeed: derivedSeed(s.id, "cancel-refund") }, charge.id, undefined);
    if (r.status === "failed") throw new AppError("invalid_state", `refund: the processor refused the refund of ${charge.id}; the subscription was not cancelled`);
  }

  /**
   * Ends the open payment of a subscription being cancelled: whether money was (or will be)
   * given back, and the debit that may still land. Null when nothing was open.
   */
  async function end(ctx: RequestCtx, s: repo.SubscriptionRow, refund: boolean): Promise<{ refunded: boolean; pendingDebit: PendingDebit | null } | null> {
    const charge = await openCharge(ctx, s);
    if (!charge) return null;
    const refundIt = refund || s.status === "pending_activation";
    const after = await deps.cancelOpen(charge, { evenIfScheduled: refundIt });
    if (after.charge.status === "paid") {
      if (refundIt) await refundLanded(ctx, s, after.charge);
      return { refunded: refundIt, pendingDebit: null };
    }
    const dueDate = (after.charge.paymentDetails as { dueDate?: unknown } | null)?.dueDate;
    const pendingDebit = after.scheduled ? { chargeId: charge.id, dueDate: typeof dueDate === "string" ? dueDate : null, refundOnPayment: refundIt } : null;
    // Cancelled at the processor: nothing was taken, nothing to give back.
    return { refunded: pendingDebit?.refundOnPayment === true && after.charge.status === "failed", pendingDebit };
  }

  return { end };
}

export type OpenPayments = ReturnType<typeof createOpenPayments>;
