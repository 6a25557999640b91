import { and, asc, desc, gt, gte, lt, lte, sql, type AnyColumn, type SQL } from "drizzle-orm";

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

/**
 * Cursor pagination in creation order, newest first: `created_at desc, id desc`, for a table
 * whose ids need not follow creation (a charge's id derived from a subscription made a year ago,
 * a seed kept by a retry that took over its claim). A cursor is still an id: `cursorAt(id)` is the
 * SQL of that row's created_at (a subquery, compared in PostgreSQL at its own precision), and the
 * page continues from (created_at, id) as a row comparison, which an index on
 * (scope..., created_at, id) answers as one range.
 */
export function creationPageFilters(q: PageQuery, cols: { id: AnyColumn; createdAt: AnyColumn }, cursorAt: (id: string) => SQL): {
  where: SQL[];
  orderBy: SQL[];
  limit: number;
  reversed: boolean;
} {
  const where: SQL[] = [];
  if (q.startingAfter) where.push(sql`(${cols.createdAt}, ${cols.id}) < (${cursorAt(q.startingAfter)}, ${q.startingAfter})`);
  if (q.endingBefore) where.push(sql`(${cols.createdAt}, ${cols.id}) > (${cursorAt(q.endingBefore)}, ${q.endingBefore})`);
  if (q.createdGte) where.push(gte(cols.createdAt, new Date(q.createdGte)));
  if (q.createdLte) where.push(lte(cols.createdAt, new Date(q.createdLte)));
  const reversed = Boolean(q.endingBefore && !q.startingAfter);
  const by = reversed ? asc : desc;
  return { where, orderBy: [by(cols.createdAt), by(cols.id)], limit: (q.limit ?? 10) + 1, reversed };
}

/** Trims the one extra row fetched to learn whether more follow, and restores newest-first. */
export function toPage<T>(rows: T[], q: PageQuery, reversed: boolean): { data: T[]; hasMore: boolean } {
  const limit = q.limit ?? 10;
  const hasMore = rows.length > limit;
  const data = rows.slice(0, limit);
  return { data: reversed ? data.reverse() : data, hasMore };
}

export const allOf = (parts: (SQL | undefined)[]) => and(...parts.filter((p): p is SQL => p !== undefined));
