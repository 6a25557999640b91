import { and, eq, isNotNull, isNull } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { inScope, type Scope } from "../../db/scope.js";
import { plans } from "../../db/schema.js";
import type { RequestCtx } from "../../core/context.js";
import { allOf, pageFilters, toPage, type PageQuery } from "../../db/pagination.js";

export type PlanRow = typeof plans.$inferSelect;

const scope = (s: Scope) => inScope(plans, s);

export async function insertPlan(q: Queryable, row: typeof plans.$inferInsert): Promise<PlanRow> {
  const [inserted] = await q.insert(plans).values(row).onConflictDoNothing({ target: plans.id }).returning();
  if (inserted) return inserted;
  // A retry under the same Idempotency-Key (the id comes from its seed): the first one's plan.
  return (await findPlan(q, { merchantId: row.merchantId, environment: row.environment }, row.id))!;
}

export async function findPlan(q: Queryable, ctx: Scope, id: string): Promise<PlanRow | undefined> {
  const [row] = await q.select().from(plans).where(and(scope(ctx), eq(plans.id, id)));
  return row;
}

export async function updatePlan(q: Queryable, ctx: Scope, id: string, patch: Partial<typeof plans.$inferInsert>): Promise<PlanRow | undefined> {
  const [row] = await q.update(plans).set({ ...patch, updatedAt: new Date() }).where(and(scope(ctx), eq(plans.id, id))).returning();
  return row;
}

export async function listPlans(q: Queryable, ctx: Scope, query: PageQuery & { archived?: boolean }) {
  const page = pageFilters(query, plans);
  const rows = await q.select().from(plans)
    .where(allOf([
      scope(ctx),
      query.archived === undefined ? undefined : query.archived ? isNotNull(plans.archivedAt) : isNull(plans.archivedAt),
      ...page.where,
    ]))
    .orderBy(page.orderBy)
    .limit(page.limit);
  return toPage(rows, query, page.reversed);
}
