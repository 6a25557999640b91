import type { Sink } from "../../db/batch.js";
import { withTx, type Db, type Queryable, type Tx } from "../../db/client.js";
import { scopeOf, type Scope } from "../../db/scope.js";
import type { Environment, RequestCtx } from "../../core/context.js";
import type { PageQuery } from "../../db/pagination.js";
import { newId } from "../../lib/ids.js";
import { splitInstallments } from "./fees.js";
import * as repo from "./ledger.repo.js";
import { PLATFORM } from "./ledger.repo.js";
import { holdOf, releaseDueHolds, settlementHold } from "./holds.js";
import { createReversals } from "./reversals.js";
import { collectedOf, interestOf, grossOf, splitShares, type PaidParts, type Share, type SplitRule } from "./split.js";

// Double-entry ledger per owner (merchant id or the platform), environment and currency.
// Positive amounts are credits. A paid charge credits the merchant's pending balance with the
// net, the platform's fee revenue with spread + anticipation fee, and debits the platform's
// receivable from the processor with the gross: the three sum to zero. Settlement moves the
// net from pending to available on its dates. A split (Connect) divides the net: each recipient's
// share is credited to its own pending balance in the same transaction, with its own settlement
// rows, and the originator keeps the rest. Payouts move available to payout_reserved when they
// are requested, and out of the ledger (paid_out, fee revenue) when they are approved. Refunds
// and chargebacks take money back through reversals.ts.
export type { Reversal } from "./reversals.js";
const DAY_MS = 24 * 60 * 60 * 1000;
// Entries per rollup statement: large enough that a backlog of millions (after the migration)
// goes at thousands per round trip, small enough that one statement's locks and its time on the
// single PGlite connection stay short.
const ROLLUP_BATCH = 5000;

export interface PaidCharge {
  id: string;
  merchantId: string;
  environment: Environment;
  currency: string;
  amount: number;
  /** Set when the buyer paid installments with interest: what the processor collected. */
  totalAmount?: number | null;
  spread: number;
  anticipationFee: number;
  net: number;
  paymentMethodType: string;
  installments: number;
  paidAt: Date;
  /** Shares of the net for other merchants of the originator's Connect (validated before). */
  split?: readonly SplitRule[] | null;
  /**
   * `provider` settlement: the processor that paid the shares to the sellers' own accounts. The
   * shares are then booked to each seller's atProvider balance at it, with no settlement rows:
   * they never reach feira's available balance, and no payout can take them.
   */
  atProvider?: string | null;
  /** A charge with terms: what the payer paid, in parts (split.ts collectedOf: the originator's excess). */
  paidBreakdown?: PaidParts | null;
}

export interface PayoutPosting {
  id: string;
  owner: string;
  environment: Environment;
  currency: string;
  amount: number;
  payoutFee: number;
  netAmount: number;
}

/**
 * When the net becomes available. Cards are paid by the acquirer per installment, every 30
 * days (D+30, D+60, ... the Brazilian default without anticipation); everything else (Pix,
 * boleto, transfers, regional methods) the next day (D+1).
 */
export function settlementDates(method: string, installments: number, paidAt: Date): Date[] {
  if (method === "credit_card") {
    return Array.from({ length: installments }, (_, i) => new Date(paidAt.getTime() + 30 * (i + 1) * DAY_MS));
  }
  return [new Date(paidAt.getTime() + DAY_MS)];
}

/** The atProvider balances among an owner's balance rows: one per processor and currency. */
function atProviderOf(rows: readonly { currency: string; account: string; amount: string }[]) {
  return rows.filter((r) => r.account.startsWith(repo.atProviderAccount("")))
    .map((r) => ({ processor: r.account.slice(repo.atProviderAccount("").length), currency: r.currency, amount: Number(r.amount) }));
}

export function createLedgerService(deps: { db: Db }) {
  const { db } = deps;
  const reversals = createReversals();

  async function postChargePaid(sink: Sink, c: PaidCharge): Promise<void> {
    // The buyer's interest is the originator's: the split divides the net of the price only; so are
    // a late payment's fine and interest (collected).
    const interest = interestOf(c);
    const { shares, originator } = splitShares({ amount: c.amount, net: c.net - interest, currency: c.currency }, c.split);
    const atProvider = c.atProvider ? repo.atProviderAccount(c.atProvider) : null;
    const collected = collectedOf(c);
    // A share of a rule with hold: true is booked to its owner's held balance, and its
    // settlement rows wait for the release (or a refund) before their dates count. Shares a
    // processor pays (provider settlement) are booked to atProvider below, with no settlement rows.
    // A recipient's holdDays (kept on the charge's rule) holds its share until paidAt + days:
    // then the holds task makes its rows ordinary, due no earlier than that.
    const owners = [
      { owner: c.merchantId, amount: originator + interest + collected, hold: null },
      ...(atProvider ? [] : shares.map((s, i) => ({ ...s, hold: holdOf(c.split?.[i], c.paidAt) }))),
    ];
    const dates = settlementDates(c.paymentMethodType, c.installments, c.paidAt);
    // Every owner's part settles on the charge's dates; the first installment absorbs the
    // rounding remainder (splitInstallments).
    const settlementRows = owners.filter((o) => o.amount > 0).flatMap((o) => {
      const parts = splitInstallments(o.amount, dates.length);
      return dates.map((dueAt, i) => ({
        id: newId("stl"), owner: o.owner, environment: c.environment, currency: c.currency,
        chargeId: c.id, installment: i + 1, amount: parts[i]!, ...settlementHold(o.hold, dueAt),
      }));
    });
    await repo.postTransaction(sink, {
      environment: c.environment, currency: c.currency, type: "charge", sourceId: c.id,
      entries: [
        { owner: PLATFORM, account: "processor_receivable", amount: -grossOf(c) },
        ...owners.map((o) => ({ owner: o.owner, account: o.hold ? "held" as const : "pending" as const, amount: o.amount })),
        ...(atProvider ? shares.map((s) => ({ owner: s.owner, account: atProvider, amount: s.amount })) : []),
        { owner: PLATFORM, account: "fee_revenue", amount: c.spread + c.anticipationFee },
      ],
    }, settlementRows);
  }

  /**
   * Ends the holds of a charge's shares (of one recipient, or all): what is still held moves to
   * the owner's pending balance and settles on the charge's dates (at the next settlement when
   * they passed). Answers what moved per owner; a second release moves nothing (releaseHeld).
   */
  async function releaseHolds(tx: Tx, c: { id: string; environment: Environment; currency: string }, owner?: string): Promise<Share[]> {
    const rows = await repo.releaseHeld(tx, c.id, owner);
    const moved = new Map<string, number>();
    for (const r of rows) moved.set(r.owner, (moved.get(r.owner) ?? 0) + r.amount);
    const released = [...moved].map(([o, amount]) => ({ owner: o, amount })).filter((r) => r.amount > 0);
    if (released.length === 0) return [];
    await repo.postTransaction(tx, {
      environment: c.environment, currency: c.currency, type: "release", sourceId: c.id, description: `holds of ${c.id} released`,
      entries: released.flatMap((r) => [
        { owner: r.owner, account: "held" as const, amount: -r.amount },
        { owner: r.owner, account: "pending" as const, amount: r.amount },
      ]),
    });
    return released;
  }

  /**
   * A payment that arrived after feira failed its charge is the payer's, never the merchant's:
   * "received" holds it as owed back (refund_payable), "refunded" releases it when the
   * provider confirms the refund. No fee is taken. Each leg is posted once per charge.
   */
  async function postLatePayment(tx: Tx, c: { id: string; environment: Environment; currency: string }, amount: number, leg: "received" | "refunded") {
    const sign = leg === "received" ? 1 : -1;
    await repo.postTransaction(tx, {
      environment: c.environment, currency: c.currency, type: leg === "received" ? "late_payment" : "late_payment_refund", sourceId: c.id,
      description: `${leg === "received" ? "late payment of" : "refund of the late payment of"} ${c.id}`,
      entries: [
        { owner: PLATFORM, account: "processor_receivable", amount: -sign * amount },
        { owner: PLATFORM, account: "refund_payable", amount: sign * amount },
      ],
    });
  }

  /**
   * Reserves a payout: available -> payout_reserved, only when the available balance covers it.
   * The caller holds a lock that serializes the payouts of this owner (connect locks the
   * submerchant's row), so two requests cannot both see the same balance. Answers the available
   * balance it read; when that does not cover the amount nothing is written.
   */
  async function reservePayout(tx: Tx, p: PayoutPosting): Promise<{ reserved: boolean; available: number; atProvider?: number }> {
    const available = await availableBalance(tx, p);
    // What the processor holds for the seller (provider settlement) is told apart: the processor
    // pays it, and no payout of feira's may take it (paid_by_provider).
    if (available < p.amount) {
      return { reserved: false, available, atProvider: await repo.atProviderTotal(tx, { merchantId: p.owner, environment: p.environment }, p.currency) };
    }
    await repo.postTransaction(tx, {
      environment: p.environment, currency: p.currency, type: "payout", sourceId: p.id, description: `payout ${p.id} requested`,
      entries: [
        { owner: p.owner, account: "available", amount: -p.amount },
        { owner: p.owner, account: "payout_reserved", amount: p.amount },
      ],
    });
    return { reserved: true, available };
  }

  /** An owner's available balance in one currency, as the transaction sees it now. */
  async function availableBalance(tx: Tx, o: { owner: string; environment: Environment; currency: string }): Promise<number> {
    return repo.accountBalance(tx, { merchantId: o.owner, environment: o.environment }, { currency: o.currency, account: "available" });
  }

  /** An approved payout leaves the ledger: the net was sent by Pix, the fee is revenue. */
  async function completePayout(tx: Tx, p: PayoutPosting): Promise<void> {
    await repo.postTransaction(tx, {
      environment: p.environment, currency: p.currency, type: "payout", sourceId: p.id, description: `payout ${p.id} approved`,
      entries: [
        { owner: p.owner, account: "payout_reserved", amount: -p.amount },
        { owner: PLATFORM, account: "fee_revenue", amount: p.payoutFee },
        { owner: PLATFORM, account: "paid_out", amount: p.netAmount },
      ],
    });
  }

  /** A rejected payout gives the reserved amount back to the available balance. */
  async function releasePayout(tx: Tx, p: PayoutPosting): Promise<void> {
    await repo.postTransaction(tx, {
      environment: p.environment, currency: p.currency, type: "payout", sourceId: p.id, description: `payout ${p.id} rejected`,
      entries: [
        { owner: p.owner, account: "payout_reserved", amount: -p.amount },
        { owner: p.owner, account: "available", amount: p.amount },
      ],
    });
  }

  /**
   * Money of an approved payout that the receiving bank sent back (a Pix devolução on the
   * transfer) is the submerchant's again: out of paid_out, into its available balance. The fee
   * stays revenue: the transfer was made. The caller posts each returned cent once (guarded).
   */
  async function returnPayout(tx: Tx, p: PayoutPosting, returnedMinor: number): Promise<void> {
    await repo.postTransaction(tx, {
      environment: p.environment, currency: p.currency, type: "payout_return", sourceId: p.id, description: `payout ${p.id} returned`,
      entries: [
        { owner: PLATFORM, account: "paid_out", amount: -returnedMinor },
        { owner: p.owner, account: "available", amount: returnedMinor },
      ],
    });
  }

  /**
   * A transfer the processor made from a seller's balance there to its bank (provider
   * settlement): out of the seller's atProvider balance at that processor, into paid_out. The
   * caller posts each transfer once (its payout record is unique on the processor's id).
   */
  async function postProviderTransfer(tx: Tx, t: { id: string; owner: string; environment: Environment; currency: string; processor: string; amount: number }): Promise<void> {
    await repo.postTransaction(tx, {
      environment: t.environment, currency: t.currency, type: "provider_transfer", sourceId: t.id, description: `transfer ${t.id} made by ${t.processor}`,
      entries: [
        { owner: t.owner, account: repo.atProviderAccount(t.processor), amount: -t.amount },
        { owner: PLATFORM, account: "paid_out", amount: t.amount },
      ],
    });
  }

  /** Settles due rows in batches; returns how many were settled. */
  async function settle(f: { dueBy: Date; environment?: Environment; owner?: string }): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await withTx(db, async (tx) => {
        const due = await repo.claimDueSettlements(tx, { ...f, limit: 100 });
        for (const s of due) {
          await repo.postTransaction(tx, {
            environment: s.environment, currency: s.currency, type: "settlement", sourceId: s.chargeId,
            description: `installment ${s.installment} of ${s.chargeId}`,
            entries: [
              { owner: s.owner, account: "pending", amount: -s.amount },
              { owner: s.owner, account: "available", amount: s.amount },
            ],
          });
          await repo.setSettlementAmount(tx, s.id, s.amount, new Date());
        }
        return due.length;
      });
      total += n;
      if (n < 100) return total;
    }
  }

  /**
   * Rolls every committed entry not rolled up yet into the running balances (ledger.repo.ts),
   * in statements of ROLLUP_BATCH entries; returns how many. Balances are exact whether this
   * has run or not: it only makes reading them cheap.
   */
  async function rollUp(batch = ROLLUP_BATCH): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await repo.rollUpEntries(db, batch);
      total += n;
      if (n < batch) return total;
    }
  }

  async function balance(ctx: RequestCtx) {
    return balanceOf(scopeOf(ctx));
  }

  /** An owner's balances per currency: pending, available, held and what processors hold for it (atProvider). */
  async function balanceOf(scope: Scope) {
    const rows = await repo.balances(db, scope);
    const pick = (account: string) =>
      rows.filter((r) => r.account === account).map((r) => ({ currency: r.currency, amount: Number(r.amount) }));
    return { available: pick("available"), pending: pick("pending"), held: pick("held"), atProvider: atProviderOf(rows) };
  }

  async function transactions(ctx: RequestCtx, query: PageQuery & { type?: string }) {
    const page = await repo.listEntries(db, scopeOf(ctx), query);
    return {
      hasMore: page.hasMore,
      data: page.data.map((e) => ({
        id: e.id,
        type: e.type,
        balance: e.account,
        amount: e.amount,
        currency: e.currency,
        sourceId: e.sourceId,
        transactionId: e.transactionId,
        createdAt: e.createdAt.toISOString(),
      })),
    };
  }

  /** Ends the holds of days that are over at `now` (holds.ts): the worker's task and the sandbox clock's advance. */
  const releaseHeldDays = (f: { now: Date; environment?: Environment; master?: string }) => releaseDueHolds(db, f);

  return { ...reversals, postChargePaid, releaseHolds, releaseHeldDays, postLatePayment, reservePayout, availableBalance, completePayout, releasePayout, returnPayout, postProviderTransfer, settle, rollUp, balance, balanceOf, transactions };
}

export type LedgerService = ReturnType<typeof createLedgerService>;
