import type { Static } from "typebox";
import { withTx, type Db } from "../../db/client.js";
import { AppError, invalid, notFound } from "../../http/errors.js";
import type { RequestCtx } from "../../http/context.js";
import { seededId } from "../../lib/ids.js";
import type { PaymentProcessor } from "../../processors/processor.js";
import { computePayoutFee, type FeeDefinition } from "../ledger/fees.js";
import type { LedgerService, PayoutPosting } from "../ledger/ledger.service.js";
import type { MerchantService } from "../merchants/merchants.service.js";
import { recordEvent } from "../webhooks/outbox.js";
import * as connectRepo from "./connect.repo.js";
import type { ConnectService } from "./connect.service.js";
import { dayRange, envelope, pageWindow } from "./paging.js";
import * as repo from "./payouts.repo.js";
import type { ListPayoutsQuery } from "./payouts.schemas.js";
import { publicStatus, type SubmerchantStatus } from "./submerchant-status.js";

// Payout requests (spec 2.7, 3.3, 8). Made by the master or the submerchant itself; the amount is
// reserved on the ledger (available -> payout_reserved) at once, under a lock on the
// submerchant's row, so racing requests can never take the available balance below zero. The
// admin approves (the net goes by Pix to the submerchant's CNPJ through the processor, keyed by
// the payout id, and the fee is revenue) or rejects (the reserve is released); either emits its
// event to the submerchant's webhook endpoints.
export interface PayoutDeps {
  db: Db;
  connect: Pick<ConnectService, "requireConnect">;
  ledger: Pick<LedgerService, "reservePayout" | "completePayout" | "releasePayout">;
  merchants: Pick<MerchantService, "getFees">;
  processors: { forEnvironment(env: "sandbox" | "production"): PaymentProcessor | null };
  now?: () => Date;
}

const CURRENCY = "BRL";

/** The submerchant's payout fee in BRL; a Pix one when several methods are defined. */
function payoutFeeOf(fees: FeeDefinition[]): FeeDefinition | undefined {
  const payout = fees.filter((f) => f.feeType === "payout" && f.currencyCode.toUpperCase() === CURRENCY && f.brand === null);
  return payout.find((f) => f.paymentMethod === "pix") ?? payout[0];
}

export function createPayoutService(deps: PayoutDeps) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  function view(p: repo.PayoutRow) {
    return {
      id: p.id, merchantId: p.merchantId, amount: p.amount, currency: CURRENCY as typeof CURRENCY, status: p.status,
      payoutFee: p.payoutFee, netAmount: p.netAmount, processedAt: p.processedAt?.toISOString() ?? null,
      createdAt: p.createdAt.toISOString(), reason: p.reason,
    };
  }

  /** The keys carried by payout events (spec 2.7). */
  const eventData = (p: repo.PayoutRow) => {
    const { createdAt: _createdAt, reason: _reason, ...keys } = view(p);
    return keys;
  };

  const posting = (p: repo.PayoutRow): PayoutPosting => ({
    id: p.id, owner: p.merchantId, environment: p.environment, currency: p.currency,
    amount: p.amount, payoutFee: p.payoutFee, netAmount: p.netAmount,
  });

  /** The caller's view of payouts: a master its submerchants', a submerchant its own. */
  async function scopeOf(ctx: RequestCtx) {
    const account = await deps.connect.requireConnect(ctx);
    return account.parentId ? { merchantId: account.id } : { parentId: account.id };
  }

  /** POST /v1/submerchants/{merchantId}/payout-requests; exactly once per Idempotency-Key. */
  async function create(ctx: RequestCtx, merchantId: string, amount: number) {
    const scope = await scopeOf(ctx);
    const submerchant = await connectRepo.findSubmerchant(db, merchantId);
    const visible = submerchant && ("merchantId" in scope ? submerchant.id === scope.merchantId : submerchant.parentId === scope.parentId);
    if (!submerchant || !visible) throw notFound("Submerchant", merchantId);
    const id = seededId("po", ctx.idempotencySeed);
    if (ctx.idempotencySeed) {
      const earlier = await repo.findPayout(db, id);
      if (earlier?.merchantId === merchantId) return view(earlier);
    }
    const status = submerchant.status as SubmerchantStatus;
    if (status !== "active") {
      throw invalid(`Submerchant ${merchantId} is not active (${publicStatus(status)}); only active submerchants can request payouts`);
    }
    if (!submerchant.companyTaxId) throw invalid(`Submerchant ${merchantId} has no companyTaxId (CNPJ), the Pix key of its payouts`);
    const fee = computePayoutFee(payoutFeeOf(await deps.merchants.getFees(merchantId)), amount);
    if (!fee.ok) throw invalid(`Submerchant ${merchantId} cannot request this payout: ${fee.message}`);

    return withTx(db, async (tx) => {
      // The row lock serializes this submerchant's payouts: each one sees the balance the
      // previous one left.
      await connectRepo.lockSubmerchant(tx, merchantId);
      const again = await repo.findPayout(tx, id);
      if (again) return view(again); // a retry of this key committed while we waited
      const row = {
        id, merchantId, parentId: submerchant.parentId, environment: ctx.environment, amount, currency: CURRENCY,
        payoutFee: fee.payoutFee, netAmount: fee.netAmount, status: "pending" as const, pixKey: submerchant.companyTaxId,
      };
      const reserved = await deps.ledger.reservePayout(tx, { ...row, owner: merchantId });
      if (!reserved) throw invalid(`amount of ${amount} cents exceeds the available balance of submerchant ${merchantId}`);
      return view(await repo.insertPayout(tx, row));
    });
  }

  async function list(ctx: RequestCtx, q: Static<typeof ListPayoutsQuery>) {
    const scope = await scopeOf(ctx);
    const window = pageWindow(q);
    const days = (["createdAt", "processedAt"] as const).flatMap((column) => (q[column] ? [{ column, ...dayRange(q[column]) }] : []));
    const { rows, total } = await repo.listPayouts(db, {
      scope, environment: ctx.environment, merchantId: q.merchantId, status: q.status, currency: q.currency?.toUpperCase(),
      days, limit: window.limit, offset: window.offset,
    });
    return envelope(rows.map(view), total, window);
  }

  async function get(ctx: RequestCtx, id: string) {
    const scope = await scopeOf(ctx);
    const row = await repo.findPayout(db, id);
    const visible = row && row.environment === ctx.environment &&
      ("merchantId" in scope ? row.merchantId === scope.merchantId : row.parentId === scope.parentId);
    if (!row || !visible) throw notFound("Payout request", id);
    return view(row);
  }

  async function pendingPayout(id: string): Promise<repo.PayoutRow> {
    const row = await repo.findPayout(db, id);
    if (!row) throw notFound("Payout request", id);
    if (row.status !== "pending") throw new AppError("invalid_state", `Payout request ${id} is ${row.status}; only pending requests can be decided`);
    return row;
  }

  /**
   * Decides a pending request in one transaction: the guarded status change, the ledger and the
   * event. Two racing decisions: one wins, the other gets 409.
   */
  async function decide(p: repo.PayoutRow, to: "approved" | "rejected", patch: { reason?: string | null; processorRef?: string }) {
    return withTx(db, async (tx) => {
      const row = await repo.decide(tx, p.id, to, { processedAt: now(), reason: patch.reason ?? null, processorRef: patch.processorRef ?? null });
      if (!row) throw new AppError("conflict", `Payout request ${p.id} was decided by another request`);
      if (to === "approved") await deps.ledger.completePayout(tx, posting(row));
      else await deps.ledger.releasePayout(tx, posting(row));
      await recordEvent(tx, {
        merchantId: row.merchantId, environment: row.environment, type: to === "approved" ? "payout.approved" : "payout.rejected",
        objectId: row.id, data: eventData(row),
      });
      return view(row);
    });
  }

  /**
   * Admin approval: the Pix transfer first (outside any transaction, keyed by the payout id, so
   * an approval retried after a crash gets the processor's first answer and transfers once),
   * then the decision. A transfer the processor refuses rejects the request.
   */
  async function approve(id: string) {
    const p = await pendingPayout(id);
    const processor = deps.processors.forEnvironment(p.environment);
    if (!processor) throw invalid("No payment processor is configured for production payouts (set PAYMENT_PROCESSOR)");
    const sent = await processor.payout({ payoutId: p.id, amountMinor: p.netAmount, currency: p.currency, pixKey: p.pixKey, pixKeyType: "cnpj" });
    if (sent.outcome === "failed") return decide(p, "rejected", { reason: `Pix transfer failed: ${sent.reason}` });
    return decide(p, "approved", { processorRef: sent.payoutRef });
  }

  async function reject(id: string, reason: string | undefined) {
    return decide(await pendingPayout(id), "rejected", { reason: reason ?? null });
  }

  return { create, list, get, approve, reject };
}

export type PayoutService = ReturnType<typeof createPayoutService>;
