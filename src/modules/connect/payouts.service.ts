import type { Static } from "typebox";
import { scopeOf } from "../../db/scope.js";
import { withTx, type Db, type Tx } from "../../db/client.js";
import { checkAmountCeiling } from "../../core/amounts.js";
import { AppError, invalid, notFound } from "../../core/errors.js";
import type { RequestCtx } from "../../core/context.js";
import { isUniqueViolation } from "../../db/batch.js";
import { seededId } from "../../lib/ids.js";
import { endToEndIdProblem, endToEndIdTimeProblem } from "../../lib/pix-end-to-end-id.js";
import type { AmountLimits } from "../../lib/money.js";
import type { ProcessorRegistry } from "../../processors/registry.js";
import { computePayoutFee, type FeeDefinition, type LedgerService, type PayoutPosting, type Reversal } from "../ledger/index.js";
import type { MerchantService } from "../merchants/index.js";
import { recordEvent } from "../webhooks/index.js";
import * as connectRepo from "./connect.repo.js";
import { createPayoutTransfers } from "./payout-transfers.js";
import type { ConnectService } from "./connect.service.js";
import { dayRange, envelope, pageWindow } from "./paging.js";
import * as repo from "./payouts.repo.js";
import type { AdminListPayoutsQuery, ListPayoutsQuery } from "./payouts.schemas.js";
import { publicStatus, type SubmerchantStatus } from "./submerchant-status.js";

// Payout requests (docs/decisions.md). Made by the master or the submerchant itself; the amount is
// reserved on the ledger (available -> payout_reserved) at once, under a lock on the
// submerchant's row, so racing requests can never take the available balance below zero. The
// admin approves (the net goes by Pix to the submerchant's CNPJ, and the fee is revenue) or
// rejects (the reserve is released); either emits its event to the submerchant's webhook
// endpoints. Approved without an end-to-end id, the transfer goes through a processor's Pix-out
// (payout-transfers.ts: the simulator in the sandbox, PAYOUT_PROVIDER in production); without
// PAYOUT_PROVIDER a production payout stays pending (reserved) until the operator transfers at its
// own bank and approves with that transfer's end-to-end id.
export interface PayoutDeps {
  db: Db;
  connect: Pick<ConnectService, "requireConnect">;
  ledger: Pick<LedgerService, "reservePayout" | "completePayout" | "releasePayout" | "returnPayout" | "availableBalance" | "balanceOf">;
  merchants: Pick<MerchantService, "getFees">;
  processors: Pick<ProcessorRegistry, "payouts">;
  /** The ceiling on one payout (config.amountLimits, BRL). */
  amountLimits: AmountLimits;
  /** PAYOUT_AUTO_APPROVE: production requests are sent through PAYOUT_PROVIDER as they are made. */
  autoApprove?: boolean;
  /** How long a transfer's send may still land after it started (payout-transfers.ts): at least the processor's call timeout. */
  sendLeaseMs?: number;
  now?: () => Date;
}

const CURRENCY = "BRL";
/** Twice the default processor timeout (PROCESSOR_TIMEOUT_MS, 15 s). */
const DEFAULT_SEND_LEASE_MS = 30_000;
/** Why a reversal rejected a payout request: its reserve was needed to cover the money taken back. */
export const BALANCE_REVERSED = "balance_reversed";

/** The submerchant's payout fee in BRL; a Pix one when several methods are defined. */
function payoutFeeOf(fees: FeeDefinition[]): FeeDefinition | undefined {
  const payout = fees.filter((f) => f.feeType === "payout" && f.currencyCode.toUpperCase() === CURRENCY && f.brand === null);
  return payout.find((f) => f.paymentMethod === "pix") ?? payout[0];
}

export function createPayoutService(deps: PayoutDeps) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  const transfers = createPayoutTransfers({
    db, processors: deps.processors, now, sendLeaseMs: deps.sendLeaseMs ?? DEFAULT_SEND_LEASE_MS,
    decideIn: (tx, id, to, patch) => decideIn(tx, id, to, patch),
    returnIn: (tx, p, returnedMinor) => returnIn(tx, p, returnedMinor),
  });

  function view(p: repo.PayoutRow) {
    return {
      id: p.id, merchantId: p.merchantId, amount: p.amount, currency: CURRENCY as typeof CURRENCY, status: p.status,
      payoutFee: p.payoutFee, netAmount: p.netAmount, processedAt: p.processedAt?.toISOString() ?? null,
      createdAt: p.createdAt.toISOString(), reason: p.reason, endToEndId: p.endToEndId, returnedAmount: p.returnedAmount,
      transfer: p.transferStatus ? { status: p.transferStatus } : null, source: p.source,
    };
  }

  /** The operator's view adds where the money goes: the submerchant's CNPJ as the Pix key. */
  const operatorView = (p: repo.PayoutRow) => ({
    ...view(p), environment: p.environment, masterId: p.parentId, pixKey: p.pixKey, pixKeyType: "cnpj" as const, transferId: p.transferId,
  });

  /**
   * Payout events carry id, merchantId, amount, currency, status, payoutFee, netAmount,
   * processedAt, the transfer's endToEndId (null when rejected) and the rejection's reason;
   * payout.returned adds returnedAmount (in all, so far).
   */
  const eventData = (p: repo.PayoutRow) => {
    const { createdAt: _createdAt, transfer: _transfer, source: _source, returnedAmount, ...keys } = view(p);
    return p.status === "returned" ? { ...keys, returnedAmount } : keys;
  };

  const posting = (p: repo.PayoutRow): PayoutPosting => ({
    id: p.id, owner: p.merchantId, environment: p.environment, currency: p.currency,
    amount: p.amount, payoutFee: p.payoutFee, netAmount: p.netAmount,
  });

  /** The caller's view of payouts: a master its submerchants', a submerchant its own. */
  async function viewerOf(ctx: RequestCtx): Promise<repo.PayoutViewer> {
    const account = await deps.connect.requireConnect(ctx);
    return account.parentId ? { own: scopeOf(ctx) } : { master: scopeOf(ctx) };
  }

  /** POST /v1/submerchants/{merchantId}/payout-requests; exactly once per Idempotency-Key. */
  async function create(ctx: RequestCtx, merchantId: string, amount: number) {
    const viewer = await viewerOf(ctx);
    // Only in the caller's environment: a submerchant exists in the one that registered it.
    const submerchant = "own" in viewer
      ? (merchantId === ctx.merchantId ? await connectRepo.findOwnRegistration(db, ctx) : undefined)
      : await connectRepo.findSubmerchant(db, ctx, merchantId);
    if (!submerchant) throw notFound("Submerchant", merchantId);
    checkAmountCeiling(amount, CURRENCY, deps.amountLimits, "amount", { minorUnits: true });
    const id = seededId("po", ctx.idempotencySeed);
    if (ctx.idempotencySeed) {
      const earlier = await repo.findPayoutById(db, id);
      if (earlier?.merchantId === merchantId) return view(earlier);
    }
    const status = submerchant.status;
    if (status !== "active") {
      throw new AppError("submerchant_not_active", `Submerchant ${merchantId} is not active (${publicStatus(status)}); only active submerchants can request payouts`);
    }
    if (!submerchant.companyTaxId) throw invalid(`Submerchant ${merchantId} has no companyTaxId (CNPJ), the Pix key of its payouts`);
    const fee = computePayoutFee(payoutFeeOf(await deps.merchants.getFees(merchantId)), amount);
    if (!fee.ok) throw invalid(`Submerchant ${merchantId} cannot request this payout: ${fee.message}`);

    const autoSender = deps.autoApprove && ctx.environment === "production" ? deps.processors.payouts("production") : null;
    const inserted = await withTx(db, async (tx) => {
      // The row lock serializes this submerchant's payouts: each one sees the balance the
      // previous one left.
      await connectRepo.lockSubmerchant(tx, merchantId);
      const again = await repo.findPayoutById(tx, id);
      if (again) return again; // a retry of this key committed while we waited
      const row = {
        id, merchantId, parentId: submerchant.parentId, environment: ctx.environment, amount, currency: CURRENCY,
        payoutFee: fee.payoutFee, netAmount: fee.netAmount, status: "pending" as const, pixKey: submerchant.companyTaxId,
      };
      const { reserved, available, atProvider } = await deps.ledger.reservePayout(tx, { ...row, owner: merchantId });
      if (!reserved) throw atProvider && atProvider > 0 ? paidByProvider(merchantId, amount, available, atProvider) : insufficient(merchantId, amount, available);
      // PAYOUT_AUTO_APPROVE: the decision to send is this transaction's too, committed before the call.
      return repo.insertPayout(tx, autoSender ? { ...row, ...transfers.sendingFields(id, autoSender.processor) } : row);
    });
    return view(autoSender && inserted.transferStatus === "sending" ? await transfers.send(inserted, autoSender) : inserted);
  }

  async function list(ctx: RequestCtx, q: Static<typeof ListPayoutsQuery>) {
    const viewer = await viewerOf(ctx);
    const window = pageWindow(q);
    const days = (["createdAt", "processedAt"] as const).flatMap((column) => (q[column] ? [{ column, ...dayRange(q[column]) }] : []));
    const { rows, total } = await repo.listPayouts(db, {
      viewer, merchantId: q.merchantId, status: q.status, currency: q.currency?.toUpperCase(),
      days, limit: window.limit, offset: window.offset,
    });
    return envelope(rows.map(view), total, window);
  }

  async function get(ctx: RequestCtx, id: string) {
    const row = await repo.findPayout(db, await viewerOf(ctx), id);
    if (!row) throw notFound("Payout request", id);
    return view(row);
  }

  /** A payout the operator may decide: a processor's transfer (provider settlement) is only a record. */
  async function requirePayout(id: string): Promise<repo.PayoutRow> {
    const row = await repo.findPayoutById(db, id);
    if (!row) throw notFound("Payout request", id);
    if (row.source === "provider") {
      throw new AppError("conflict", `Payout ${row.id} is a transfer ${row.transferProcessor ?? "the processor"} made from the seller's balance there (transfer ${row.transferId ?? ""}): a read-only record, which cannot be approved or rejected`);
    }
    return row;
  }

  const beingSent = (p: repo.PayoutRow) => new AppError("conflict",
    `Payout request ${p.id} is being sent by Pix through ${p.transferProcessor ?? "its processor"} (transfer ${p.transferId ?? ""}): its transfer's end decides it`);

  const notPending = (p: repo.PayoutRow) =>
    new AppError("invalid_state", `Payout request ${p.id} is ${p.status}; only pending requests can be decided`);

  /**
   * Decides a pending request in one transaction: the guarded status change, the ledger and the
   * event. Two racing decisions: one wins, the other gets 409.
   */
  async function decide(p: repo.PayoutRow, to: "approved" | "rejected", patch: repo.DecisionPatch) {
    return withTx(db, async (tx) => {
      const row = await decideIn(tx, p.id, to, patch);
      if (!row) throw new AppError("conflict", `Payout request ${p.id} was decided by another request`);
      return view(row);
    });
  }

  /**
   * The one way a request leaves pending, in the caller's transaction: the status change guarded
   * by `WHERE status = 'pending'`, its ledger move and its event; undefined (nothing written)
   * when another transaction decided the request first.
   */
  async function decideIn(tx: Tx, id: string, to: "approved" | "rejected", patch: repo.DecisionPatch) {
    const row = await repo.decide(tx, id, to, {
      processedAt: now(), reason: patch.reason ?? null, endToEndId: patch.endToEndId ?? null,
      ...(patch.transferStatus ? { transferStatus: patch.transferStatus } : {}),
    });
    if (!row) return undefined;
    if (to === "approved") await deps.ledger.completePayout(tx, posting(row));
    else await deps.ledger.releasePayout(tx, posting(row));
    await recordEvent(tx, {
      merchantId: row.merchantId, environment: row.environment, type: to === "approved" ? "payout.approved" : "payout.rejected",
      objectId: row.id, data: eventData(row),
    });
    return row;
  }

  /**
   * Money of an approved transfer that the receiving bank sent back (`returnedMinor` in all, read
   * from the processor): the part not yet returned goes back to the submerchant's available
   * balance, the payout becomes `returned`, and `payout.returned` reports it. Guarded by the
   * amount already returned: each cent once, whoever reads the return first.
   */
  async function returnIn(tx: Tx, p: repo.PayoutRow, returnedMinor: number) {
    const row = await repo.recordReturn(tx, p.id, p.returnedAmount, returnedMinor);
    if (!row) return undefined;
    await deps.ledger.returnPayout(tx, posting(row), returnedMinor - p.returnedAmount);
    await recordEvent(tx, { merchantId: row.merchantId, environment: row.environment, type: "payout.returned", objectId: row.id, data: eventData(row) });
    return row;
  }

  /**
   * A reversal's step (ledger onReversal), in the reversal's transaction after its ledger lines:
   * an owner it left below zero has its pending requests rejected (reason balance_reversed, the
   * reserve back to available) until the balance is zero or more or none is left. Newest first:
   * the oldest requests are the ones the operator is likeliest to be transferring already (a live
   * payout waits for the operator's own Pix), and, as Stripe does, the most recent ones are held
   * back first. The submerchant's row lock (the one a payout request takes) orders this with
   * requests being made: one made meanwhile is seen here, or sees the reversed balance. An
   * approval racing this is settled by the guarded status change: the request is approved (and
   * the balance stays below zero) or rejected (and the approval gets 409), never both. Owners
   * are locked in id order, so two reversals sharing recipients cannot deadlock.
   */
  async function coverReversal(tx: Tx, r: Reversal): Promise<void> {
    for (const owner of [...r.owners].sort()) {
      const scope = { owner, environment: r.environment, currency: r.currency };
      await connectRepo.lockSubmerchant(tx, owner);
      if ((await deps.ledger.availableBalance(tx, scope)) >= 0) continue;
      for (const p of await repo.pendingPayouts(tx, scope)) {
        await decideIn(tx, p.id, "rejected", { reason: BALANCE_REVERSED });
        // Read again rather than added up: an admin's rejection committed meanwhile released its
        // reserve too, and a request approved meanwhile released nothing.
        if ((await deps.ledger.availableBalance(tx, scope)) >= 0) break;
      }
    }
  }

  /**
   * Admin approval. With an end-to-end id: the operator made the Pix transfer at its bank, and
   * the approval records it (approveTransfer). Without one: the processor's Pix-out sends it
   * (payout-transfers.ts), and the payout answers `pending` with `transfer: {status: "sending"}`
   * until the transfer's end decides it.
   */
  async function approve(id: string, endToEndId?: string) {
    const p = await requirePayout(id);
    if (endToEndId !== undefined) return approveTransfer(p, endToEndId);
    return view(await transfers.approve(p));
  }

  /**
   * Records the operator's own Pix transfer: exactly once. The same id again answers the approved
   * payout (a retry); another id on it, or an id that already paid another payout, is a 409. The
   * unique index on (environment, end_to_end_id) settles two racing approvals with one id.
   */
  async function approveTransfer(p: repo.PayoutRow, endToEndId: string) {
    const problem = endToEndIdProblem(endToEndId) ?? endToEndIdTimeProblem(endToEndId, p.createdAt, now());
    if (problem) throw invalid(problem);
    const settled = (row: repo.PayoutRow) => {
      if (row.status === "approved" && row.endToEndId === endToEndId) return view(row);
      if (row.status === "approved") {
        throw new AppError("conflict", `Payout request ${row.id} was already approved with endToEndId ${row.endToEndId ?? "(none: paid through the processor)"}`);
      }
      throw notPending(row);
    };
    if (p.status !== "pending") return settled(p);
    if (p.transferStatus === "sending") throw beingSent(p);
    const other = await repo.findByEndToEndId(db, p.environment, endToEndId);
    // This very payout, approved with this id by a concurrent request since it was read: a retry.
    if (other?.id === p.id) return settled(other);
    if (other) throw usedElsewhere(endToEndId, other.id);
    try {
      return await decide(p, "approved", { endToEndId });
    } catch (err) {
      if (!(err instanceof AppError && err.code === "conflict") && !isUniqueViolation(err)) throw err;
      // Another request decided first: the same approval answers as a retry; anything else conflicts.
      const current = await requirePayout(p.id);
      if (current.status !== "pending") return settled(current);
      const holder = await repo.findByEndToEndId(db, p.environment, endToEndId);
      throw usedElsewhere(endToEndId, holder?.id ?? "another payout request");
    }
  }

  /** A payout the available balance does not cover; a balance below zero is named as such. */
  const insufficient = (merchantId: string, amount: number, available: number) => new AppError("insufficient_balance", available < 0
    ? `The available balance of submerchant ${merchantId} is ${available} cents, below zero (a refund or chargeback took back more than it had): no payout can be requested until it is positive`
    : `amount of ${amount} cents exceeds the available balance of submerchant ${merchantId} (${available} cents)`,
    { amount: { minor: amount, currency: CURRENCY } });

  /** A payout beyond the available balance of a seller whose other money a processor holds and pays. */
  const paidByProvider = (merchantId: string, amount: number, available: number, atProvider: number) => new AppError("paid_by_provider",
    `amount of ${amount} cents exceeds the available balance of submerchant ${merchantId} (${available} cents); its ${atProvider} cents at processors (atProvider) are paid to it by the processor, never by a payout request`,
    { amount: { minor: amount, currency: CURRENCY } });

  const usedElsewhere = (endToEndId: string, payoutId: string) =>
    new AppError("conflict", `endToEndId ${endToEndId} is already recorded on payout request ${payoutId}: one Pix transfer pays one payout`);

  async function reject(id: string, reason: string | undefined) {
    const p = await requirePayout(id);
    if (p.status !== "pending") throw notPending(p);
    if (p.transferStatus === "sending") throw beingSent(p);
    return decide(p, "rejected", { reason: reason ?? null });
  }

  /** GET /v1/admin/payout-requests: every merchant's, e.g. the live ones awaiting the operator's transfer. */
  async function listForOperator(q: Static<typeof AdminListPayoutsQuery>) {
    const window = pageWindow(q);
    const { rows, total } = await repo.listPayouts(db, {
      viewer: { operator: { environment: q.environment } }, merchantId: q.merchantId, status: q.status, transferStatus: q.transferStatus, days: [], limit: window.limit, offset: window.offset,
    });
    return envelope(rows.map(operatorView), total, window);
  }

  /** GET /v1/submerchants/{id}/balance: a master's own submerchant's, else 404. */
  async function balance(ctx: RequestCtx, id: string) {
    const submerchant = await connectRepo.findSubmerchant(db, ctx, id);
    if (!submerchant) throw notFound("Submerchant", id);
    return deps.ledger.balanceOf({ merchantId: id, environment: ctx.environment });
  }

  return { create, list, get, balance, approve, reject, listForOperator, coverReversal, transfers };
}

export type PayoutService = ReturnType<typeof createPayoutService>;
