import { and, count, desc, eq, gte, lt } from "drizzle-orm";
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

/** Moves a pending request on; undefined when another request decided it first. */
export async function decide(
  tx: Queryable, id: string, to: Exclude<PayoutStatus, "pending">, patch: Partial<typeof payoutRequests.$inferInsert>,
): Promise<PayoutRow | undefined> {
  const [row] = await tx.update(payoutRequests)
    .set({ ...patch, status: to, updatedAt: new Date() })
    .where(and(eq(payoutRequests.id, id), eq(payoutRequests.status, "pending")))
    .returning();
  return row;
}

/**
 * An owner's pending requests in one environment and currency, newest first: the order a
 * reversal rejects them in (payouts.service.ts coverReversal).
 */
export async function pendingPayouts(q: Queryable, owner: { owner: string; environment: Environment; currency: string }): Promise<PayoutRow[]> {
  return q.select().from(payoutRequests)
    .where(and(
      eq(payoutRequests.merchantId, owner.owner), eq(payoutRequests.environment, owner.environment),
      eq(payoutRequests.currency, owner.currency), eq(payoutRequests.status, "pending"),
    ))
    .orderBy(desc(payoutRequests.createdAt), desc(payoutRequests.id));
}

export interface PayoutFilters {
  viewer: PayoutViewer;
  merchantId?: string;
  status?: PayoutStatus;
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
    f.currency ? eq(payoutRequests.currency, f.currency) : undefined,
    ...f.days.flatMap((d) => [gte(payoutRequests[d.column], d.start), lt(payoutRequests[d.column], d.end)]),
  ]);
  const [totalRow] = await q.select({ n: count() }).from(payoutRequests).where(where);
  const rows = await q.select().from(payoutRequests).where(where).orderBy(desc(payoutRequests.createdAt), desc(payoutRequests.id))
    .limit(f.limit).offset(f.offset);
  return { rows, total: totalRow?.n ?? 0 };
}
