import { and, asc, desc, gt, gte, lt, lte, type AnyColumn, type SQL } from "drizzle-orm";

// Cursor pagination over time-ordered ids (lib/ids.ts): newest first, like Stripe's lists.
export interface PageQuery {
  limit?: number;
  startingAfter?: string;
  endingBefore?: string;
  createdGte?: string;
  createdLte?: string;
}

export function pageFilters(q: PageQuery, cols: { id: AnyColumn; createdAt: AnyColumn }): {
  where: SQL[];
  orderBy: SQL;
  limit: number;
  reversed: boolean;
} {
  const where: SQL[] = [];
  if (q.startingAfter) where.push(lt(cols.id, q.startingAfter));
  if (q.endingBefore) where.push(gt(cols.id, q.endingBefore));
  if (q.createdGte) where.push(gte(cols.createdAt, new Date(q.createdGte)));
  if (q.createdLte) where.push(lte(cols.createdAt, new Date(q.createdLte)));
  const reversed = Boolean(q.endingBefore && !q.startingAfter);
  const limit = q.limit ?? 10;
  return { where, orderBy: reversed ? asc(cols.id) : desc(cols.id), limit: limit + 1, reversed };
}

/** Trims the one extra row fetched to learn whether more follow, and restores newest-first. */
export function toPage<T>(rows: T[], q: PageQuery, reversed: boolean): { data: T[]; hasMore: boolean } {
  const limit = q.limit ?? 10;
  const hasMore = rows.length > limit;
  const data = rows.slice(0, limit);
  return { data: reversed ? data.reverse() : data, hasMore };
}

export const allOf = (parts: (SQL | undefined)[]) => and(...parts.filter((p): p is SQL => p !== undefined));
