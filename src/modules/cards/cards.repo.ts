import { and, desc, eq } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { inScope, type Scope } from "../../db/scope.js";
import { cards } from "../../db/schema.js";
import type { RequestCtx } from "../../core/context.js";

export type CardRow = typeof cards.$inferSelect;

const scope = (s: Scope) => inScope(cards, s);

export async function insertCard(q: Queryable, row: typeof cards.$inferInsert): Promise<CardRow> {
  const [inserted] = await q.insert(cards).values(row).returning();
  return inserted!;
}

/** A card of this merchant and environment; of that customer when customerId is given. */
export async function findCard(q: Queryable, ctx: Scope, id: string, customerId?: string): Promise<CardRow | undefined> {
  const [row] = await q
    .select()
    .from(cards)
    .where(and(scope(ctx), eq(cards.id, id), customerId === undefined ? undefined : eq(cards.customerId, customerId)));
  return row;
}

/** Newest first (ids are time-ordered); `limit` + 1 rows tell whether more exist. */
export async function listCards(q: Queryable, ctx: Scope, customerId: string, limit: number): Promise<CardRow[]> {
  return q
    .select()
    .from(cards)
    .where(and(scope(ctx), eq(cards.customerId, customerId)))
    .orderBy(desc(cards.id))
    .limit(limit + 1);
}

export async function deleteCard(q: Queryable, ctx: Scope, customerId: string, id: string): Promise<boolean> {
  const deleted = await q
    .delete(cards)
    .where(and(scope(ctx), eq(cards.customerId, customerId), eq(cards.id, id)))
    .returning({ id: cards.id });
  return deleted.length > 0;
}
