import { and, asc, count, desc, eq, gt, gte, inArray, isNull, lt, lte, ne, or, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { payoutRequests } from "../../db/schema.js";
import { inScope, type Environment, type Scope } from "../../db/scope.js";
import { allOf } from "../../db/pagination.js";

export type PayoutRow = typeof payoutRequests.$inferSelect;
export type PayoutStatus = PayoutRow["status"];

export async function insertPayout(tx: Queryable, row: typeof payoutRequests.$inferInsert): Promise<PayoutRow> {
  const [inserted] = await tx.insert(payoutRequests).values(row).returning();
  return inserted!;
}

/** A processor's transfer as a read-only payout record; undefined when it is recorded already (nothing written). */
export async function insertProviderPayout(tx: Queryable, row: typeof payoutRequests.$inferInsert): Promise<PayoutRow | undefined> {
  const [inserted] = await tx.insert(payoutRequests).values(row).onConflictDoNothing().returning();
  return inserted;
}

/**
 * A payout request seen by the caller: a master its submerchants', a submerchant its own, the
 * operator (admin key) every merchant's, of one environment or both.
 */
export type PayoutViewer = { master: Scope } | { own: Scope } | { operator: { environment?: Environment } };

function visibleTo(viewer: PayoutViewer) {
  if ("operator" in viewer) return viewer.operator.environment ? eq(payoutRequests.environment, viewer.operator.environment) : undefined;
  return "master" in viewer
    ? inScope({ merchantId: payoutRequests.parentId, environment: payoutRequests.environment }, viewer.master)
    : inScope(payoutRequests, viewer.own);
}

export async function findPayout(q: Queryable, viewer: PayoutViewer, id: string): Promise<PayoutRow | undefined> {
  const [row] = await q.select().from(payoutRequests).where(and(eq(payoutRequests.id, id), visibleTo(viewer)));
  return row;
}

/** By id alone: the operator's admin routes (approve, reject) and a key's own retry. */
export async function findPayoutById(q: Queryable, id: string): Promise<PayoutRow | undefined> {
  const [row] = await q.select().from(payoutRequests).where(eq(payoutRequests.id, id));
  return row;
}

/** The payout a Pix transfer paid, in that environment (one transfer pays one payout). */
export async function findByEndToEndId(q: Queryable, environment: Environment, endToEndId: string): Promise<PayoutRow | undefined> {
  const [row] = await q.select().from(payoutRequests)
    .where(and(eq(payoutRequests.environment, environment), eq(payoutRequests.endToEndId, endToEndId)));
  return row;
}

/** What a decision records besides the status. */
export interface DecisionPatch {
  reason?: string | null;
  endToEndId?: string;
  /** The transfer's end, when a processor's transfer decided it. */
  transferStatus?: "sent" | "failed";
}

/** Moves a pending request on; undefined when another request decided it first. */
export async function decide(
  tx: Queryable, id: string, to: Exclude<PayoutStatus, "pending">, patch: Partial<typeof payoutRequests.$inferInsert>,
): Promise<PayoutRow | undefined> {
  // A payout being sent is decided by its transfer's end only; any other decision (the admin's,
  // a reversal's) only while no transfer was started, so a racing one cannot release the reserve
  // of money on its way.
  const transfer = patch.transferStatus ? eq(payoutRequests.transferStatus, "sending") : isNull(payoutRequests.transferStatus);
  const [row] = await tx.update(payoutRequests)
    .set({ ...patch, status: to, updatedAt: new Date() })
    .where(and(eq(payoutRequests.id, id), eq(payoutRequests.status, "pending"), transfer))
    .returning();
  return row;
}

export type TransferFields = Pick<typeof payoutRequests.$inferInsert, "transferStatus" | "transferProcessor" | "transferId" | "transferStartedAt">;

/**
 * The decision to send a pending request through a processor, committed before the call:
 * undefined when it is no longer pending or a transfer was decided already (a racing approval).
 */
export async function markSending(tx: Queryable, id: string, transfer: TransferFields): Promise<PayoutRow | undefined> {
  const [row] = await tx.update(payoutRequests)
    .set({ ...transfer, updatedAt: new Date() })
    .where(and(eq(payoutRequests.id, id), eq(payoutRequests.status, "pending"), isNull(payoutRequests.transferStatus)))
    .returning();
  return row;
}

/** No send's call may still be making the transfer at `at`: its lease has passed, or none was taken. */
const leaseOver = (at: Date) => or(isNull(payoutRequests.transferLeaseUntil), lte(payoutRequests.transferLeaseUntil, at));

/**
 * Transfers still being sent whose last send's lease is over: those a send was made for first
 * (the one on its way must be read back even behind a long queue), then the queue, oldest first.
 */
export async function sendingTransfers(q: Queryable, at: Date, limit: number): Promise<PayoutRow[]> {
  return q.select().from(payoutRequests)
    .where(and(eq(payoutRequests.transferStatus, "sending"), leaseOver(at)))
    .orderBy(sql`${payoutRequests.transferAttempts} = 0`, asc(payoutRequests.transferStartedAt), asc(payoutRequests.id)).limit(limit);
}

/**
 * Claims the next send of a transfer being sent, committed before its call: one more attempt,
 * leased until `leaseUntil` (the call's timeout and more). Undefined when another send's lease
 * has not passed (its call may still be making the transfer) or the payout was decided.
 */
export async function claimAttempt(tx: Queryable, id: string, at: Date, leaseUntil: Date): Promise<PayoutRow | undefined> {
  const [row] = await tx.update(payoutRequests)
    .set({ transferAttempts: sql`${payoutRequests.transferAttempts} + 1`, transferLeaseUntil: leaseUntil, transferRefusal: null, updatedAt: new Date() })
    .where(and(eq(payoutRequests.id, id), eq(payoutRequests.status, "pending"), eq(payoutRequests.transferStatus, "sending"), leaseOver(at)))
    .returning();
  return row;
}

/** Records how attempt number `attempt` ended (its new lease, the processor's refusal), unless a later one was claimed. */
export async function endAttempt(tx: Queryable, id: string, attempt: number, end: { leaseUntil: Date; refusal?: string }): Promise<void> {
  await tx.update(payoutRequests)
    .set({ transferLeaseUntil: end.leaseUntil, transferRefusal: end.refusal ?? null, updatedAt: new Date() })
    .where(and(eq(payoutRequests.id, id), eq(payoutRequests.transferStatus, "sending"), eq(payoutRequests.transferAttempts, attempt)));
}

/** Serializes the claims of one processor's sends across processes, until the transaction ends. */
export async function lockSends(tx: Queryable, processor: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`feira_payout_sends:${processor}`}))`);
}

/** Another transfer of this processor that a send was made for and that has not ended: the one on its way. */
export async function otherOnItsWay(q: Queryable, processor: string, id: string): Promise<string | undefined> {
  const [row] = await q.select({ id: payoutRequests.id }).from(payoutRequests)
    .where(and(
      eq(payoutRequests.transferStatus, "sending"), eq(payoutRequests.transferProcessor, processor),
      gt(payoutRequests.transferAttempts, 0), ne(payoutRequests.id, id),
    )).limit(1);
  return row?.id;
}

/** The payout a processor's transfer paid, by the transfer's end-to-end id (a notice may name only that). */
export async function findByTransferEndToEnd(q: Queryable, processor: string, endToEndId: string): Promise<PayoutRow | undefined> {
  const [row] = await q.select().from(payoutRequests)
    .where(and(eq(payoutRequests.transferProcessor, processor), eq(payoutRequests.endToEndId, endToEndId)));
  return row;
}

/**
 * Records that the receiving bank has sent back `to` cents of an approved transfer, from `from`
 * (guarded: two readers of one return cannot both post it). The payout becomes `returned`.
 */
export async function recordReturn(tx: Queryable, id: string, from: number, to: number): Promise<PayoutRow | undefined> {
  const [row] = await tx.update(payoutRequests)
    .set({ status: "returned", returnedAmount: to, updatedAt: new Date() })
    .where(and(eq(payoutRequests.id, id), inArray(payoutRequests.status, ["approved", "returned"]), eq(payoutRequests.returnedAmount, from)))
    .returning();
  return row;
}

/** The payout a processor's transfer id belongs to (a notice names the transfer). */
export async function findByTransfer(q: Queryable, processor: string, transferId: string): Promise<PayoutRow | undefined> {
  const [row] = await q.select().from(payoutRequests)
    .where(and(eq(payoutRequests.transferProcessor, processor), eq(payoutRequests.transferId, transferId)));
  return row;
}

/**
 * An owner's pending requests in one environment and currency, newest first: the order a
 * reversal rejects them in (payouts.service.ts coverReversal). Those being sent are not among
 * them: their money is on its way.
 */
export async function pendingPayouts(q: Queryable, owner: { owner: string; environment: Environment; currency: string }): Promise<PayoutRow[]> {
  return q.select().from(payoutRequests)
    .where(and(
      eq(payoutRequests.merchantId, owner.owner), eq(payoutRequests.environment, owner.environment),
      eq(payoutRequests.currency, owner.currency), eq(payoutRequests.status, "pending"), isNull(payoutRequests.transferStatus),
    ))
    .orderBy(desc(payoutRequests.createdAt), desc(payoutRequests.id));
}

export interface PayoutFilters {
  viewer: PayoutViewer;
  merchantId?: string;
  status?: PayoutStatus;
  transferStatus?: "sending" | "sent" | "failed";
  currency?: string;
  days: { column: "createdAt" | "processedAt"; start: Date; end: Date }[];
  limit: number;
  offset: number;
}

export async function listPayouts(q: Queryable, f: PayoutFilters): Promise<{ rows: PayoutRow[]; total: number }> {
  const where = allOf([
    visibleTo(f.viewer),
    f.merchantId ? eq(payoutRequests.merchantId, f.merchantId) : undefined,
    f.status ? eq(payoutRequests.status, f.status) : undefined,
    f.transferStatus ? eq(payoutRequests.transferStatus, f.transferStatus) : undefined,
    f.currency ? eq(payoutRequests.currency, f.currency) : undefined,
    ...f.days.flatMap((d) => [gte(payoutRequests[d.column], d.start), lt(payoutRequests[d.column], d.end)]),
  ]);
  const [totalRow] = await q.select({ n: count() }).from(payoutRequests).where(where);
  const rows = await q.select().from(payoutRequests).where(where).orderBy(desc(payoutRequests.createdAt), desc(payoutRequests.id))
    .limit(f.limit).offset(f.offset);
  return { rows, total: totalRow?.n ?? 0 };
}
