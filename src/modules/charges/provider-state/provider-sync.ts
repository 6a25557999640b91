import { withTx, type Db } from "../../../db/client.js";
import { AppError } from "../../../core/errors.js";
import type { FoundDispute, LookupResult, PaymentProcessor } from "../../../processors/processor.js";
import type { ProcessorRegistry } from "../../../processors/registry.js";
import type { ProviderAccountRef, SellerAccounts } from "../../../processors/provider-split.js";
import type { LedgerService } from "../../ledger/index.js";
import type { ChargeEffects } from "../charge-effects.js";
import { canTransition, type ChargeStatus } from "../charge-status.js";
import type { ChargeRow } from "../charges.mapper.js";
import { SELLER_UNAUTHORIZED, sellersOrNull, type ChargeSellers } from "../charge-sellers.js";
import { findCharge } from "../charges.repo.js";
import { createLatePayments } from "./late-payments.js";
import { withPaidBreakdown } from "./paid-amount.js";
import {
  findLiveCharge, lateRefundsPending, markProviderChecked, openLiveCharges, settledLiveCharges, type OpenChargeCursor,
} from "./provider-sync.repo.js";

// A live charge learns its fate from the provider alone: a webhook only says "look again", and
// the reconciliation task looks again on its own. Either way the payment is re-read from the
// adapter that served the charge and applied through the guarded transition of the sandbox
// (ledger, events, outbox, listeners). A state the charge already has, or cannot reach from
// where it is (a late or repeated notice), changes nothing. Two answers go further than a move:
// a chargeback on a paid charge, and money the provider took for a charge feira had failed
// (late-payments.ts: refunded). A chargeback of an adapter that serves disputes goes through the
// dispute path (the disputes module's handler: the dispute's hold, then won or lost), never as a
// plain move, so that the money moves once whichever of the payment and the dispute is read
// first; an adapter without disputes gets charged_back directly (what is still paid goes back,
// charge.disputed).

/** How many open live charges one reconciliation round reads. */
const RECONCILE_BATCH = 50;
/**
 * How many settled live charges one round reads again: paid ones for chargebacks, for 180 days
 * after payment, and expired ones for payments that land late, for 30 days after expiry.
 */
const SETTLED_BATCH = 50;
const DAY_MS = 24 * 60 * 60 * 1000;
const DISPUTE_WINDOW_MS = 180 * DAY_MS;
const LATE_PAYMENT_WINDOW_MS = 30 * DAY_MS;
/**
 * A pending live charge the provider has never heard of (its create got a 5xx or no answer, and
 * every lookup by feira's reference since says not_found) is failed with `processing_error` once
 * it is this old: long past any provider's indexing delay, so the create did not happen.
 */
export const NEVER_MADE_AFTER_MS = 10 * 60 * 1000;

/** What the disputes module does with a provider's dispute of a live charge (it registers itself: it is built after this module). */
export type ProviderDisputeHandler = (charge: ChargeRow, dispute: FoundDispute) => Promise<void>;

export type Move = { to: ChargeStatus; patch: Partial<ChargeRow> & { providerCode?: string } };

/** The charge status a provider state asks for; null when it asks for nothing (still pending, unknown, not found). */
function moveFor(state: LookupResult, now: Date): Move | null {
  const providerCode = "providerCode" in state && state.providerCode ? { providerCode: state.providerCode } : {};
  switch (state.outcome) {
    case "paid":
      return { to: "paid", patch: { paidAt: now, pspRefId: state.pspRefId } };
    case "in_analysis":
    case "authentication_required":
      return { to: state.outcome, patch: { pspRefId: state.pspRefId } };
    case "refused":
    case "failed":
      return { to: state.outcome, patch: { reason: state.reason, ...(state.pspRefId ? { pspRefId: state.pspRefId } : {}), ...providerCode } };
    // Only a paid charge can be charged back (the transition table says so).
    case "charged_back":
      return { to: "charged_back", patch: providerCode };
    // Refunds are feira's own requests and settle through the refund path. Pending, unknown and
    // not_found leave the charge as it is: the next round reads it again.
    default:
      return null;
  }
}

/** A batch reader that goes on, round after round, from the id where its last batch stopped. */
function rotation(read: (limit: number, after?: OpenChargeCursor) => Promise<ChargeRow[]>): () => Promise<ChargeRow[]> {
  let cursor: OpenChargeCursor | undefined;
  return async () => {
    let batch = await read(RECONCILE_BATCH, cursor);
    if (batch.length === 0 && cursor) batch = await read(RECONCILE_BATCH);
    const last = batch.at(-1);
    cursor = batch.length === RECONCILE_BATCH && last ? { id: last.id } : undefined;
    return batch;
  };
}

export function createProviderSync(deps: {
  db: Db; effects: ChargeEffects; processors: ProcessorRegistry; ledger: Pick<LedgerService, "postLatePayment">; now?: () => Date;
  /** A provider-settled charge's sellers' accounts, for a payment made on a seller's own account (charge-sellers.ts). */
  sellers?: ChargeSellers;
  /** The seller's account a notice names by the processor's id of it, token fresh; null: none of feira's sellers' (connect's sellerAccount). */
  sellerAccount?: (processor: string, account: string) => Promise<ProviderAccountRef | null>;
}) {
  const { db, effects } = deps;
  const now = deps.now ?? (() => new Date());
  /** The sellers' accounts a call about the charge carries; null when a seller's authorization cannot be had now. */
  const sellersFor = (charge: ChargeRow, processor: PaymentProcessor) => sellersOrNull(charge, processor, deps.sellers);
  const late = createLatePayments({ db, effects, ledger: deps.ledger, sellersFor });
  let disputeHandler: ProviderDisputeHandler | null = null;

  /** The adapter that served a live charge; null for a sandbox charge. */
  function processorOf(charge: ChargeRow): PaymentProcessor | null {
    if (charge.environment !== "production") return null;
    const processor = deps.processors.adapter("production", charge.processor);
    return processor && processor.name !== "sandbox" ? processor : null;
  }

  /** Applies a move through the guarded transition; the charge as it is after (as another reader left it, when that one moved it first). */
  async function apply(charge: ChargeRow, move: Move): Promise<ChargeRow> {
    if (move.to === charge.status || !canTransition(charge.status, move.to)) return charge;
    const { providerCode, ...patch } = move.patch;
    if (providerCode) patch.paymentDetails = { ...(charge.paymentDetails as Record<string, unknown> | null), providerCode };
    try {
      return await withTx(db, (tx) => effects.moveTo(tx, charge, move.to, patch));
    } catch (err) {
      // Another notice, the reconciliation or the expiry moved it first: that one won, and the
      // charge is answered as that one left it (the expiry then counts it, and settles a late
      // payment it shows, as guarded as any reader's).
      if (err instanceof AppError && (err.code === "conflict" || err.code === "invalid_state")) return (await findCharge(db, charge, charge.id)) ?? charge;
      throw err;
    }
  }

  /** Applies what the provider says of a charge: a move, or a late payment's refund. */
  async function applyState(charge: ChargeRow, state: LookupResult, processor: PaymentProcessor): Promise<ChargeRow> {
    if (charge.status === "failed" || charge.status === "refused") {
      await late.settle(charge, state, processor);
      return charge;
    }
    let c = charge;
    // A chargeback read before feira knew the payment (its notices lost or out of order): the
    // payment is applied first, then taken back, so the ledger and the events tell both.
    if (state.outcome === "charged_back" && canTransition(c.status, "paid")) {
      c = await apply(c, { to: "paid", patch: { paidAt: now(), pspRefId: state.pspRefId } });
    }
    // The processor's disputes decide what its chargeback does: the ones the read carries, or
    // (none carried) the ones its own notices name.
    if (state.outcome === "charged_back" && (state.disputes || processor.disputes)) {
      for (const dispute of state.disputes ?? []) c = await applyDispute(c, dispute);
      return c;
    }
    const move = moveFor(state, now()) ?? neverMade(c, state);
    // What the payer paid, when the provider says (a boleto or a Pix with a due date paid late or
    // early): kept with its parts.
    return move ? apply(c, state.outcome === "paid" ? withPaidBreakdown(c, move, state.paidAmount, now()) : move) : c;
  }

  /** The move of a charge the provider never made: failed, once it is old enough to be sure. */
  function neverMade(charge: ChargeRow, state: LookupResult): Move | null {
    if (state.outcome !== "not_found" || charge.status !== "pending" || charge.pspRefId) return null;
    if (now().getTime() - charge.createdAt.getTime() < NEVER_MADE_AFTER_MS) return null;
    return { to: "failed", patch: { reason: "processing_error", providerCode: "not_found_at_provider" } };
  }

  /** Hands a provider's dispute of a charge to the dispute path; the charge as it is after. */
  async function applyDispute(charge: ChargeRow, dispute: FoundDispute): Promise<ChargeRow> {
    if (!disputeHandler) return charge;
    await disputeHandler(charge, dispute);
    return (await findCharge(db, charge, charge.id)) ?? charge;
  }

  /**
   * A dispute a provider's notice named, read back (Mercado Pago's chargebacks): applied to the
   * live charge of its payment, that payment read first when feira does not know it paid yet
   * (notices lost or out of order). False when no live charge of `processor` is its payment.
   */
  async function syncDispute(processor: string, dispute: FoundDispute): Promise<boolean> {
    const charge = await findLiveCharge(db, processor, dispute.chargeRef);
    if (!charge) return false;
    const c = charge.status === "paid" ? charge : await syncCharge(charge);
    await applyDispute(c, dispute);
    return true;
  }

  /**
   * The account a notice's disputes are of, as the sellers their reads carry: a seller's linked
   * account there (its disputes are its own, like its payments), else none (the operator's own:
   * an id that is no seller's is never read with a seller's token by guess). A seller whose
   * authorization cannot be had now: 503, and the provider sends the notice again.
   */
  async function noticeSellers(processor: string, account: string): Promise<SellerAccounts> {
    try {
      const ref = await deps.sellerAccount?.(processor, account);
      return ref ? { sellers: [ref] } : {};
    } catch (err) {
      if (err instanceof AppError && err.code === "submerchant_not_at_provider") {
        throw new AppError("unavailable", `the dispute is of a seller's account at ${processor} whose authorization has expired or was revoked; send the notice again once the seller authorizes again`);
      }
      throw err;
    }
  }

  /**
   * The disputes a processor's notice names (by the provider's dispute ids), each read back
   * through its adapter's disputes capability and applied; one with no answer to rely on is
   * refused with a 503, which the provider retries.
   */
  async function syncDisputes(processor: string, refs: readonly string[], on: SellerAccounts = {}): Promise<void> {
    const capability = deps.processors.adapter("production", processor)?.disputes;
    if (!capability?.lookup) return;
    for (const ref of refs) {
      const state = await capability.lookup({ disputeRef: ref, ...on });
      if (state.outcome === "unknown") throw new AppError("unavailable", `${capability.provider} gave no answer to rely on for dispute ${ref} (${state.failure.kind}); send the notice again`);
      if (state.outcome !== "not_found") await syncDispute(processor, state);
    }
  }

  /** A notice's disputes, read on the account it names when that is a seller's (noticeSellers). */
  async function syncNoticeDisputes(processor: string, refs: readonly string[], account?: string): Promise<void> {
    const sellerOwned = deps.processors.adapter("production", processor)?.sellerOwned;
    return syncDisputes(processor, refs, sellerOwned && account ? await noticeSellers(processor, account) : {});
  }

  /**
   * The charge's payment as its processor says now, read on the seller's account when it is the
   * seller's; unknown (nothing sent) when the seller's authorization cannot be had.
   */
  async function read(charge: ChargeRow, processor: PaymentProcessor): Promise<LookupResult> {
    const on = await sellersFor(charge, processor);
    return on ? processor.lookup({ chargeId: charge.id, pspRefId: charge.pspRefId, ...on }) : SELLER_UNAUTHORIZED;
  }

  /** Re-reads a live charge at its processor and applies what the provider says; returns the charge as it is after. */
  async function syncCharge(charge: ChargeRow): Promise<ChargeRow> {
    const processor = processorOf(charge);
    if (!processor) return charge;
    return applyState(charge, await read(charge, processor), processor);
  }

  /** The charge a provider notice names (feira's id or the provider's), or undefined. */
  function findByReference(processor: string, ref: string): Promise<ChargeRow | undefined> {
    return findLiveCharge(db, processor, ref);
  }

  /** Syncs the first of `refs` that names a live charge of `processor`; false when none does. */
  async function syncByReference(processor: string, refs: readonly string[]): Promise<boolean> {
    for (const ref of refs) {
      const charge = await findByReference(processor, ref);
      if (charge) {
        await syncCharge(charge);
        return true;
      }
    }
    return false;
  }

  // Open charges, and late payments whose refund is not confirmed: each round goes on from where
  // the last one stopped, back to the oldest after the newest. Charges that stay open (Pix and
  // boletos awaiting their payers), or refunds the provider refused, would otherwise fill every
  // batch, and a newer charge whose answer or webhook was lost would never be read.
  const nextOpen = rotation((limit, after) => openLiveCharges(db, limit, after));
  const nextLateRefunds = rotation((limit, after) => lateRefundsPending(db, limit, after));

  /**
   * One reconciliation round; returns how many charges moved. The next open live charges, oldest
   * first; late payments whose refund is not confirmed yet; and settled live charges (paid, or
   * expired) least recently read first, for chargebacks and late payments whose notice was lost.
   */
  async function reconcileLive(): Promise<number> {
    let moved = 0;
    for (const c of await nextOpen()) {
      const after = await syncCharge(c);
      if (after.status !== c.status) moved++;
    }
    for (const c of await nextLateRefunds()) await syncCharge(c);
    const at = now();
    const windows = { paidSince: new Date(at.getTime() - DISPUTE_WINDOW_MS), expiredSince: new Date(at.getTime() - LATE_PAYMENT_WINDOW_MS) };
    for (const c of await settledLiveCharges(db, windows, SETTLED_BATCH)) {
      const after = await syncCharge(c);
      if (after.status !== c.status) moved++;
      await markProviderChecked(db, c.id, at);
    }
    return moved;
  }

  const handleDisputes = (handler: ProviderDisputeHandler) => { disputeHandler = handler; };

  return { syncCharge, syncByReference, syncDispute, syncDisputes, syncNoticeDisputes, handleDisputes, reconcileLive, processorOf, read, sellersFor, apply, applyState, late };
}

export type ProviderSync = ReturnType<typeof createProviderSync>;
