import { and, count, desc, eq, gte, lt } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { payoutRequests } from "../../db/schema.js";
import type { Environment } from "../../http/context.js";
import { allOf } from "../../http/pagination.js";

export type PayoutRow = typeof payoutRequests.$inferSelect;
export type PayoutStatus = PayoutRow["status"];

export async function insertPayout(tx: Queryable, row: typeof payoutRequests.$inferInsert): Promise<PayoutRow> {
  const [inserted] = await tx.insert(payoutRequests).values(row).returning();
  return inserted!;
}

export async function findPayout(q: Queryable, id: string): Promise<PayoutRow | undefined> {
  const [row] = await q.select().from(payoutRequests).where(eq(payoutRequests.id, id));
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

export interface PayoutFilters {
  /** The caller's view: a master sees its submerchants' requests, a submerchant its own. */
  scope: { parentId: string } | { merchantId: string };
  environment: Environment;
  merchantId?: string;
  status?: PayoutStatus;
  currency?: string;
  days: { column: "createdAt" | "processedAt"; start: Date; end: Date }[];
  limit: number;
  offset: number;
}

export function scopeOf(f: Pick<PayoutFilters, "scope" | "environment">) {
  return and(
    eq(payoutRequests.environment, f.environment),
    "parentId" in f.scope ? eq(payoutRequests.parentId, f.scope.parentId) : eq(payoutRequests.merchantId, f.scope.merchantId),
  );
}

export async function listPayouts(q: Queryable, f: PayoutFilters): Promise<{ rows: PayoutRow[]; total: number }> {
  const where = allOf([
    scopeOf(f),
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
