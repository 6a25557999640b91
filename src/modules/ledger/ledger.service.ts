import { withTx, type Db, type Queryable } from "../../db/client.js";
import type { Environment, RequestCtx } from "../../http/context.js";
import type { PageQuery } from "../../http/pagination.js";
import { newId } from "../../lib/ids.js";
import { splitInstallments } from "./fees.js";
import * as repo from "./ledger.repo.js";

// Double-entry ledger per owner (merchant id or the platform), environment and currency.
// Positive amounts are credits. A paid charge credits the merchant's pending balance with the
// net, the platform's fee revenue with spread + anticipation fee, and debits the platform's
// receivable from the processor with the gross: the three sum to zero. Settlement moves the
// net from pending to available on its dates. Connect will add split shares as more credits
// in the same transaction, and payouts as debits of available.
export const PLATFORM = "platform";
const DAY_MS = 24 * 60 * 60 * 1000;

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

  async function postChargePaid(tx: Queryable, c: PaidCharge): Promise<void> {
    await repo.postTransaction(tx, {
      environment: c.environment, currency: c.currency, type: "charge", sourceId: c.id,
      entries: [
        { owner: PLATFORM, account: "processor_receivable", amount: -c.amount },
        { owner: c.merchantId, account: "pending", amount: c.net },
        { owner: PLATFORM, account: "fee_revenue", amount: c.spread + c.anticipationFee },
      ],
    });
    const dates = settlementDates(c.paymentMethodType, c.installments, c.paidAt);
    // The first installment absorbs the rounding remainder (splitInstallments).
    const parts = splitInstallments(c.net, dates.length);
    await repo.insertSettlements(tx, dates.map((dueAt, i) => ({
      id: newId("stl"), owner: c.merchantId, environment: c.environment, currency: c.currency,
      chargeId: c.id, installment: i + 1, amount: parts[i]!, dueAt,
    })));
  }

  /**
   * A refund is taken from what the charge still has pending (latest installments first) and
   * the rest from the available balance, which may go negative. Fees are not returned, as
   * with Stripe and most Brazilian acquirers.
   */
  async function postRefund(tx: Queryable, c: { id: string; merchantId: string; environment: Environment; currency: string }, amount: number, refundId: string) {
    let left = amount;
    for (const s of await repo.openSettlements(tx, c.id, c.merchantId)) {
      if (left === 0) break;
      const take = Math.min(left, s.amount);
      await repo.setSettlementAmount(tx, s.id, s.amount - take, s.amount - take === 0 ? new Date() : null);
      left -= take;
    }
    await repo.postTransaction(tx, {
      environment: c.environment, currency: c.currency, type: "refund", sourceId: refundId,
      description: `refund of ${c.id}`,
      entries: [
        { owner: c.merchantId, account: "pending", amount: -(amount - left) },
        { owner: c.merchantId, account: "available", amount: -left },
        { owner: PLATFORM, account: "processor_receivable", amount },
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

  async function balance(ctx: RequestCtx) {
    const rows = await repo.balances(db, ctx.merchantId, ctx.environment);
    const pick = (account: string) =>
      rows.filter((r) => r.account === account).map((r) => ({ currency: r.currency, amount: Number(r.amount) }));
    return { available: pick("available"), pending: pick("pending") };
  }

  async function transactions(ctx: RequestCtx, query: PageQuery & { type?: string }) {
    const page = await repo.listEntries(db, ctx.merchantId, ctx.environment, query);
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

  return { postChargePaid, postRefund, settle, balance, transactions };
}

export type LedgerService = ReturnType<typeof createLedgerService>;
