import type { Sink } from "../../db/batch.js";
import { withTx, type Db, type Queryable, type Tx } from "../../db/client.js";
import { scopeOf } from "../../db/scope.js";
import type { Environment, RequestCtx } from "../../http/context.js";
import type { PageQuery } from "../../http/pagination.js";
import { newId } from "../../lib/ids.js";
import { splitInstallments } from "./fees.js";
import * as repo from "./ledger.repo.js";
import { refundShares, splitShares, type SplitRule } from "./split.js";

// Double-entry ledger per owner (merchant id or the platform), environment and currency.
// Positive amounts are credits. A paid charge credits the merchant's pending balance with the
// net, the platform's fee revenue with spread + anticipation fee, and debits the platform's
// receivable from the processor with the gross: the three sum to zero. Settlement moves the
// net from pending to available on its dates. A split (Connect) divides the net: each recipient's
// share is credited to its own pending balance in the same transaction, with its own settlement
// rows, and the originator keeps the rest. Payouts move available to payout_reserved when they
// are requested, and out of the ledger (paid_out, fee revenue) when they are approved.
export const PLATFORM = "platform";
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
  spread: number;
  anticipationFee: number;
  net: number;
  paymentMethodType: string;
  installments: number;
  paidAt: Date;
  /** Shares of the net for other merchants of the originator's Connect (validated before). */
  split?: readonly SplitRule[] | null;
}

/** What a refund needs to know of its charge; amount, net and split decide the recipients' part. */
export interface RefundedCharge {
  id: string;
  merchantId: string;
  environment: Environment;
  currency: string;
  amount?: number;
  net?: number;
  split?: readonly SplitRule[] | null;
  /** Refunded so far, this refund included (it was reserved before the ledger is posted). */
  amountRefunded?: number;
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

export function createLedgerService(deps: { db: Db }) {
  const { db } = deps;

  async function postChargePaid(sink: Sink, c: PaidCharge): Promise<void> {
    const { shares, originator } = splitShares(c.net, c.split);
    const owners = [{ owner: c.merchantId, amount: originator }, ...shares];
    const dates = settlementDates(c.paymentMethodType, c.installments, c.paidAt);
    // Every owner's part settles on the charge's dates; the first installment absorbs the
    // rounding remainder (splitInstallments).
    const settlementRows = owners.filter((o) => o.amount > 0).flatMap((o) => {
      const parts = splitInstallments(o.amount, dates.length);
      return dates.map((dueAt, i) => ({
        id: newId("stl"), owner: o.owner, environment: c.environment, currency: c.currency,
        chargeId: c.id, installment: i + 1, amount: parts[i]!, dueAt,
      }));
    });
    await repo.postTransaction(sink, {
      environment: c.environment, currency: c.currency, type: "charge", sourceId: c.id,
      entries: [
        { owner: PLATFORM, account: "processor_receivable", amount: -c.amount },
        ...owners.map((o) => ({ owner: o.owner, account: "pending" as const, amount: o.amount })),
        { owner: PLATFORM, account: "fee_revenue", amount: c.spread + c.anticipationFee },
      ],
    }, settlementRows);
  }

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
   * the ledger as one full refund does. Posted once per charge (ledger_tx_once_idx).
   */
  async function postChargeback(tx: Tx, c: RefundedCharge & { amount: number }) {
    const refunded = c.amountRefunded ?? 0;
    await postReturn(tx, c, refunded, c.amount - refunded, { type: "chargeback", sourceId: c.id, description: `chargeback of ${c.id}` });
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

  /** Takes `amount` of the gross back from the charge's owners, `before` having gone back already. */
  async function postReturn(tx: Tx, c: RefundedCharge, before: number, amount: number, t: { type: string; sourceId: string; description: string }) {
    const recipients = c.amount !== undefined && c.net !== undefined
      ? refundShares({ amount: c.amount, net: c.net, split: c.split }, before, amount)
      : [];
    const fromRecipients = recipients.reduce((sum, r) => sum + r.amount, 0);
    const entries: repo.EntryInput[] = [];
    for (const part of [{ owner: c.merchantId, amount: amount - fromRecipients }, ...recipients]) {
      entries.push(...(await takeBack(tx, c.id, part.owner, part.amount)));
    }
    await repo.postTransaction(tx, {
      environment: c.environment, currency: c.currency, ...t,
      entries: [...entries, { owner: PLATFORM, account: "processor_receivable", amount }],
    });
  }

  /** Debits `amount` of an owner's part of a charge: its unsettled rows first, then available. */
  async function takeBack(tx: Tx, chargeId: string, owner: string, amount: number): Promise<repo.EntryInput[]> {
    let left = amount;
    for (const s of await repo.openSettlements(tx, chargeId, owner)) {
      if (left === 0) break;
      const take = Math.min(left, s.amount);
      await repo.setSettlementAmount(tx, s.id, s.amount - take, s.amount - take === 0 ? new Date() : null);
      left -= take;
    }
    return [
      { owner, account: "pending", amount: -(amount - left) },
      { owner, account: "available", amount: -left },
    ];
  }

  /**
   * Reserves a payout: available -> payout_reserved, only when the available balance covers it.
   * The caller holds a lock that serializes the payouts of this owner (connect locks the
   * submerchant's row), so two requests cannot both see the same balance; false when it does not
   * cover the amount, and then nothing is written.
   */
  async function reservePayout(tx: Tx, p: PayoutPosting): Promise<boolean> {
    const available = await repo.accountBalance(tx, { merchantId: p.owner, environment: p.environment }, { currency: p.currency, account: "available" });
    if (available < p.amount) return false;
    await repo.postTransaction(tx, {
      environment: p.environment, currency: p.currency, type: "payout", sourceId: p.id, description: `payout ${p.id} requested`,
      entries: [
        { owner: p.owner, account: "available", amount: -p.amount },
        { owner: p.owner, account: "payout_reserved", amount: p.amount },
      ],
    });
    return true;
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
    const rows = await repo.balances(db, scopeOf(ctx));
    const pick = (account: string) =>
      rows.filter((r) => r.account === account).map((r) => ({ currency: r.currency, amount: Number(r.amount) }));
    return { available: pick("available"), pending: pick("pending") };
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

  return { postChargePaid, postRefund, postChargeback, postChargebackRest, postLatePayment, reservePayout, completePayout, releasePayout, settle, rollUp, balance, transactions };
}

export type LedgerService = ReturnType<typeof createLedgerService>;
