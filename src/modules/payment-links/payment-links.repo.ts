import { and, eq } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { inScope, type Scope } from "../../db/scope.js";
import { paymentLinks } from "../../db/schema.js";
import type { RequestCtx } from "../../core/context.js";
import { allOf, pageFilters, toPage, type PageQuery } from "../../db/pagination.js";

export type LinkRow = typeof paymentLinks.$inferSelect;

const scope = (s: Scope) => inScope(paymentLinks, s);

export async function insertLink(q: Queryable, row: typeof paymentLinks.$inferInsert): Promise<LinkRow> {
  const [inserted] = await q.insert(paymentLinks).values(row).onConflictDoNothing({ target: paymentLinks.id }).returning();
  return inserted ?? (await q.select().from(paymentLinks).where(eq(paymentLinks.id, row.id)))[0]!;
}

export async function findLink(q: Queryable, s: Scope, id: string): Promise<LinkRow | undefined> {
  const [row] = await q.select().from(paymentLinks).where(and(scope(s), eq(paymentLinks.id, id)));
  return row;
}

/** By id alone, for the public checkout: the link id decides merchant and environment. */
export async function findLinkById(q: Queryable, id: string): Promise<LinkRow | undefined> {
  const [row] = await q.select().from(paymentLinks).where(eq(paymentLinks.id, id));
  return row;
}

export async function updateLink(q: Queryable, s: Scope, id: string, patch: Partial<typeof paymentLinks.$inferInsert>): Promise<LinkRow | undefined> {
  const [row] = await q.update(paymentLinks).set({ ...patch, updatedAt: new Date() }).where(and(scope(s), eq(paymentLinks.id, id))).returning();
  return row;
}

export async function listLinks(q: Queryable, s: Scope, query: PageQuery & { active?: boolean }) {
  const page = pageFilters(query, paymentLinks);
  const rows = await q.select().from(paymentLinks)
    .where(allOf([scope(s), query.active === undefined ? undefined : eq(paymentLinks.active, query.active), ...page.where]))
    .orderBy(page.orderBy)
    .limit(page.limit);
  return toPage(rows, query, page.reversed);
}
