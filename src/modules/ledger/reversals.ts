import type { Tx } from "../../db/client.js";
import type { Environment } from "../../core/context.js";
import * as repo from "./ledger.repo.js";
import { grossOf, interestOf, reversalParts, type PaidParts, type SplitRule } from "./split.js";

// Reversals: money a charge's owners give back (a refund, a chargeback, a dispute). Each owner
// gives its part from what the charge still has pending for it and the rest from its available
// balance, which may go below zero. Every reversal goes through postReturn, and postReturn hands
// the owners whose available balance it debited to the reversal steps registered with
// onReversal (Connect's payouts: the pending payout requests of an owner left below zero are
// rejected to cover it), in the reversal's own transaction, so no caller can post a reversal
// without them and a failing step rolls the reversal back with it.

/** What a reversal needs to know of its charge; amount, net and split decide the recipients' part. */
export interface RefundedCharge {
  id: string;
  merchantId: string;
  environment: Environment;
  currency: string;
  amount?: number;
  /** Set when the buyer paid installments with interest: the gross every reversal is of. */
  totalAmount?: number | null;
  /** A charge with terms paid: its fine and interest (or discount) are in the gross, the originator's (split.ts grossOf). */
  paidBreakdown?: PaidParts | null;
  net?: number;
  split?: readonly SplitRule[] | null;
  /** Refunded so far, this refund included (it was reserved before the ledger is posted). */
  amountRefunded?: number;
  /** Taken so far by the charge's disputes (their holds). */
  amountDisputed?: number;
  /**
   * `provider` settlement (the charge's own column: a later change of the setting moves nothing
   * booked): the shares are in the sellers' accounts at `processor`, and a reversal takes each
   * seller's part from its atProvider balance there, as the processor debits the seller's
   * recipient (docs/guarantees.md, "Money in provider settlement").
   */
  settlement?: string | null;
  processor?: string;
}

/** The processor whose sellers' accounts hold a charge's shares, or null (platform settlement). */
export function sharesHeldAt(c: Pick<RefundedCharge, "settlement" | "processor">): string | null {
  return c.settlement === "provider" && c.processor ? c.processor : null;
}

/** The owners whose available balance a reversal debited, in one environment and currency. */
export interface Reversal {
  environment: Environment;
  currency: string;
  owners: string[];
}

/** A step that runs in the transaction of every reversal, after its ledger lines. */
export type ReversalStep = (tx: Tx, reversal: Reversal) => Promise<void>;

export function createReversals() {
  const steps: ReversalStep[] = [];

  /**
   * A refund is taken from what the charge still has pending (latest installments first) and
   * the rest from the available balance, which may go negative. Fees are not returned, as
   * with Stripe and most Brazilian acquirers. With a split, each recipient gives back its share
   * in proportion to the part of the gross refunded (split.ts refundShares) and the originator
   * the rest, each from its own pending and then available balance.
   */
  async function postRefund(tx: Tx, c: RefundedCharge, amount: number, refundId: string) {
    await postReturn(tx, c, (c.amountRefunded ?? amount) - amount, amount, { type: "refund", sourceId: refundId, description: `refund of ${c.id}` });
  }

  /**
   * A chargeback: the payer's bank took back what was still paid (the amount less what was
   * refunded). It is taken back exactly as a refund of that rest would be (the recipients'
   * shares, the originator the rest, fees kept), so a partial refund and then a chargeback leave
   * the ledger as one full refund does. What the charge's disputes hold was taken already: a
   * lost dispute's chargeback takes only the rest, if any. Posted once per charge
   * (ledger_tx_once_idx).
   */
  async function postChargeback(tx: Tx, c: RefundedCharge & { amount: number }) {
    const taken = (c.amountRefunded ?? 0) + (c.amountDisputed ?? 0);
    const gross = grossOf(c);
    if (taken >= gross) return;
    await postReturn(tx, c, taken, gross - taken, { type: "chargeback", sourceId: c.id, description: `chargeback of ${c.id}` });
  }

  /**
   * A dispute opened: `held` of the gross is taken back as a refund of it would be (the split
   * recipients their share, the originator the rest, pending first, fees kept), `c` telling
   * what refunds and earlier disputes took before it. Once per dispute (ledger_tx_once_idx).
   */
  async function postDisputeHold(tx: Tx, c: RefundedCharge, held: number, disputeId: string) {
    const before = (c.amountRefunded ?? 0) + (c.amountDisputed ?? 0);
    await postReturn(tx, c, before, held, { type: "dispute", sourceId: disputeId, description: `dispute ${disputeId} of ${c.id} opened` });
  }

  /**
   * A dispute won: each owner gets back exactly what its hold took, into its available balance
   * (the part taken from pending had its settlement rows cut, and the provider returns the money
   * when it decides, as Stripe credits a won dispute). Once per dispute (ledger_tx_once_idx).
   */
  async function postDisputeReturn(tx: Tx, c: { id: string; environment: RefundedCharge["environment"]; currency: string }, disputeId: string) {
    const held = await repo.entriesOfOnce(tx, "dispute", disputeId);
    await repo.postTransaction(tx, {
      environment: c.environment, currency: c.currency, type: "dispute_won", sourceId: disputeId, description: `dispute ${disputeId} of ${c.id} won`,
      // A seller's part held at the processor goes back there (the processor credits the recipient).
      entries: held.map((e) => ({ owner: e.owner, account: e.owner === repo.PLATFORM || e.account.startsWith(repo.atProviderAccount("")) ? e.account : "available", amount: -e.amount })),
    });
  }

  /**
   * A refund still pending when the charge was charged back, which then failed: the chargeback
   * took back the amount less every refund reserved, this one included, but the payer's bank
   * took this part too. It is taken back now, as the chargeback's rest, once per refund
   * (ledger_tx_once_idx). `returnedBefore`: what refunds and the chargeback returned so far.
   */
  async function postChargebackRest(tx: Tx, c: RefundedCharge & { amount: number }, amount: number, refundId: string, returnedBefore: number) {
    await postReturn(tx, c, returnedBefore, amount, {
      type: "chargeback", sourceId: refundId, description: `chargeback of ${c.id}: the part held for refund ${refundId}, which failed`,
    });
  }

  /** Takes `amount` of the gross back from the charge's owners, `before` having gone back already. */
  async function postReturn(tx: Tx, c: RefundedCharge, before: number, amount: number, t: { type: string; sourceId: string; description: string }) {
    // Who gives what: each party its part, or the liable parties in place of the others (split.ts
    // reversalParts), of the gross the buyer paid (an installment plan's total) and the net of the
    // price (the buyer's interest is the originator's alone). A share a processor paid (provider
    // settlement) comes back out of the seller's atProvider balance there.
    const parts = c.amount !== undefined && c.net !== undefined
      ? reversalParts({
        amount: grossOf({ amount: c.amount, totalAmount: c.totalAmount, paidBreakdown: c.paidBreakdown }), net: c.net - interestOf({ amount: c.amount, totalAmount: c.totalAmount }),
        currency: c.currency, merchantId: c.merchantId, split: c.split,
      }, before, amount)
      : [{ owner: c.merchantId, amount }];
    const heldAt = sharesHeldAt(c);
    const entries: repo.EntryInput[] = [];
    for (const [i, part] of parts.entries()) {
      entries.push(...(heldAt && i > 0
        ? [{ owner: part.owner, account: repo.atProviderAccount(heldAt), amount: -part.amount }]
        : await takeBack(tx, c.id, part.owner, part.amount)));
    }
    await repo.postTransaction(tx, {
      environment: c.environment, currency: c.currency, ...t,
      entries: [...entries, { owner: repo.PLATFORM, account: "processor_receivable", amount }],
    });
    // Only an available debit can take a balance below zero: a part taken from pending was
    // never available, so it never backed a payout request.
    const owners = [...new Set(entries.filter((e) => e.account === "available" && e.amount < 0).map((e) => e.owner))];
    if (owners.length === 0) return;
    for (const step of steps) await step(tx, { environment: c.environment, currency: c.currency, owners });
  }

  /** Debits `amount` of an owner's part of a charge: its held rows first, then its unsettled rows, then available. */
  async function takeBack(tx: Tx, chargeId: string, owner: string, amount: number): Promise<repo.EntryInput[]> {
    let left = amount;
    let fromHeld = 0;
    let fromPending = 0;
    for (const s of await repo.openSettlements(tx, chargeId, owner)) {
      if (left === 0) break;
      const take = Math.min(left, s.amount);
      await repo.setSettlementAmount(tx, s.id, s.amount - take, s.amount - take === 0 ? new Date() : null);
      if (s.hold) fromHeld += take;
      else fromPending += take;
      left -= take;
    }
    return [
      { owner, account: "held", amount: -fromHeld },
      { owner, account: "pending", amount: -fromPending },
      { owner, account: "available", amount: -left },
    ];
  }

  /** Registers a step every reversal runs in its transaction (wired once, when the app is built). */
  function onReversal(step: ReversalStep): void {
    steps.push(step);
  }

  return { postRefund, postChargeback, postChargebackRest, postDisputeHold, postDisputeReturn, onReversal };
}

