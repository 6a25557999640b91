import { withTx, type Db } from "../../../db/client.js";
import { refundsOf, type LookupResult, type PaymentProcessor, type RefundResult } from "../../../processors/processor.js";
import type { LedgerService } from "../../ledger/index.js";
import type { SellerAccounts } from "../../../processors/provider-split.js";
import type { ChargeEffects } from "../charge-effects.js";
import type { ChargeRow } from "../charges.mapper.js";
import { moveLatePayment } from "./provider-sync.repo.js";

// A payment the provider took for a live charge that feira had already failed (a Pix or boleto
// paid after it expired, or paid at the very moment it was cancelled) is not the merchant's: it
// is refunded to the payer in full, automatically, and reported by charge.late_payment_refunded.
// The charge stays failed. Each step is guarded so that any number of readers (notices,
// reconciliation, the expiry) do it once:
// 1. received: late_payment null -> refund_pending, and the money in on the ledger (the
//    platform owes it back: processor_receivable -> refund_payable);
// 2. the refund at the provider, under an id derived from the charge id (its idempotency key),
//    asked for only while the provider shows nothing refunded and knows no refund under that id;
// 3. refunded: refund_pending -> refunded once the provider confirms it (the refund's answer,
//    or a later lookup that shows the payment refunded), the money out on the ledger and the
//    event, in one transaction.

/** The refund id of a charge's late payment: the same on every attempt, so the provider's idempotency holds. */
export const lateRefundId = (chargeId: string) => `late_${chargeId}`;

export function createLatePayments(deps: {
  db: Db; effects: Pick<ChargeEffects, "announce">; ledger: Pick<LedgerService, "postLatePayment">;
  /** The sellers' accounts a refund on a seller's own account carries (provider-sync's); null: none to be had now. */
  sellersFor?: (c: ChargeRow, processor: PaymentProcessor) => Promise<SellerAccounts | null>;
}) {
  const { db } = deps;

  /** Step 1: the payment is recorded as received (once); the charge as it is after. */
  async function received(c: ChargeRow, pspRefId: string | undefined): Promise<ChargeRow | undefined> {
    return withTx(db, async (tx) => {
      const row = await moveLatePayment(tx, c.id, null, "refund_pending", pspRefId);
      if (row) await deps.ledger.postLatePayment(tx, row, row.amount, "received");
      return row;
    });
  }

  /** Step 3: the refund is confirmed (once): the money out and the event. */
  async function refunded(c: ChargeRow): Promise<void> {
    await withTx(db, async (tx) => {
      const row = await moveLatePayment(tx, c.id, "refund_pending", "refunded");
      if (!row) return;
      await deps.ledger.postLatePayment(tx, row, row.amount, "refunded");
      await deps.effects.announce(tx, row, "charge.late_payment_refunded");
    });
  }

  /** Step 2: the refund is asked for, unless the provider already has one under its id. */
  async function askRefund(c: ChargeRow, processor: PaymentProcessor): Promise<RefundResult | { outcome: "not_found" }> {
    const refunds = refundsOf(processor);
    // Without refunds at this processor the late payment stays recorded, for the operator to return.
    if (!refunds) return { outcome: "failed", reason: "refunds_not_supported" };
    // A payment on a seller's account is refunded there; without the seller's authorization, the next reader tries again.
    const on = deps.sellersFor ? await deps.sellersFor(c, processor) : {};
    if (!on) return { outcome: "pending", refundRef: null };
    const input = { chargeId: c.id, pspRefId: c.pspRefId, amountMinor: c.amount, refundId: lateRefundId(c.id), chargeAmountMinor: c.amount, ...on };
    const known = await refunds.refundStatus({ ...input, refundRef: null });
    return known.outcome === "not_found" ? refunds.refund(input) : known;
  }

  /**
   * What the provider says of a charge feira failed: nothing to do while it holds no money for
   * it; otherwise the late payment is recorded, refunded and confirmed, as far as it can go now.
   * A step the provider does not confirm yet is taken up again by the next reader.
   */
  async function settle(charge: ChargeRow, state: LookupResult, processor: PaymentProcessor): Promise<void> {
    if (charge.status !== "failed" && charge.status !== "refused") return;
    const returned = state.outcome === "refunded" || state.outcome === "charged_back"
      || (state.outcome === "paid" && (state.refundedMinor ?? 0) >= charge.amount);
    if (!returned && state.outcome !== "paid") return;
    let c: ChargeRow | undefined = charge;
    if (c.latePayment === null) c = await received(c, "pspRefId" in state ? state.pspRefId : undefined);
    // Recorded by another reader meanwhile: that one carries on (or the next round does).
    if (!c || c.latePayment === "refunded") return;
    if (returned || (await askRefund(c, processor)).outcome === "succeeded") await refunded(c);
  }

  /**
   * A second payment of a charge already paid: its boleto and the boleto's Pix both paid (the
   * sandbox's payer). The same steps as a late payment, at once, since the sandbox's refund of the
   * payer's second transfer needs no provider: received and refunded on the ledger for what was
   * paid (`amountMinor`), and charge.late_payment_refunded, once per charge; the charge stays paid
   * by its first payment. Undefined when the charge already had one (nothing is done twice).
   */
  async function secondPayment(c: ChargeRow, amountMinor: number): Promise<ChargeRow | undefined> {
    return withTx(db, async (tx) => {
      const row = await moveLatePayment(tx, c.id, null, "refunded", undefined, "paid");
      if (!row) return undefined;
      await deps.ledger.postLatePayment(tx, row, amountMinor, "received");
      await deps.ledger.postLatePayment(tx, row, amountMinor, "refunded");
      await deps.effects.announce(tx, row, "charge.late_payment_refunded");
      return row;
    });
  }

  return { settle, secondPayment };
}

export type LatePayments = ReturnType<typeof createLatePayments>;
