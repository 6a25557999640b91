import { and, asc, eq, gt, like } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { inScope, type Scope } from "../../db/scope.js";
import { events } from "../../db/schema.js";
import { allOf, pageFilters, toPage, type PageQuery } from "../../db/pagination.js";

export type EventRow = typeof events.$inferSelect;

const scope = (s: Scope) => inScope(events, s);

export async function findEvent(q: Queryable, s: Scope, id: string): Promise<EventRow | undefined> {
  const [row] = await q.select().from(events).where(and(scope(s), eq(events.id, id)));
  return row;
}

export async function listEvents(q: Queryable, s: Scope, query: PageQuery & { type?: string }) {
  const page = pageFilters(query, events);
  // "charge.*" matches a family; the schema allows only [a-z_.] before it, and "_" is escaped
  // because it is a LIKE wildcard.
  const type = query.type?.endsWith(".*")
    ? like(events.type, `${query.type.slice(0, -1).replace(/_/g, "\\_")}%`)
    : query.type ? eq(events.type, query.type) : undefined;
  const rows = await q
    .select()
    .from(events)
    .where(allOf([scope(s), type, ...page.where]))
    .orderBy(page.orderBy)
    .limit(page.limit);
  return toPage(rows, query, page.reversed);
}

/** Events after `afterId` (exclusive), oldest first: the event stream's poll. */
export async function eventsAfter(q: Queryable, s: Scope, afterId: string, limit: number): Promise<EventRow[]> {
  return q.select().from(events).where(and(scope(s), gt(events.id, afterId))).orderBy(asc(events.id)).limit(limit);
}
