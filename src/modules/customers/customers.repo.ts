import { and, eq, or, type SQL } from "drizzle-orm";
import { selectRows } from "../../db/batch.js";
import type { Queryable } from "../../db/client.js";
import { customers } from "../../db/schema.js";
import { allOf, pageFilters, toPage, type PageQuery } from "../../http/pagination.js";
import type { RequestCtx } from "../../http/context.js";

export type CustomerRow = typeof customers.$inferSelect;

const scope = (ctx: Pick<RequestCtx, "merchantId" | "environment">) =>
  and(eq(customers.merchantId, ctx.merchantId), eq(customers.environment, ctx.environment));

export async function insertCustomer(q: Queryable, row: typeof customers.$inferInsert): Promise<CustomerRow> {
  const [inserted] = await q.insert(customers).values(row).returning();
  return inserted!;
}

export async function findCustomer(q: Queryable, ctx: RequestCtx, id: string): Promise<CustomerRow | undefined> {
  const [row] = await q.select().from(customers).where(and(scope(ctx), eq(customers.id, id)));
  return row;
}

/** The oldest customer of this merchant with that e-mail or document (inline charge customers). */
export async function findCustomerByContact(q: Queryable, ctx: RequestCtx, c: { email?: string; documentId?: string }) {
  const match: SQL[] = [];
  if (c.email) match.push(eq(customers.email, c.email));
  if (c.documentId) match.push(eq(customers.documentId, c.documentId));
  if (match.length === 0) return undefined;
  const [row] = await selectRows(q, customers, q.select().from(customers).where(and(scope(ctx), or(...match))).orderBy(customers.id).limit(1));
  return row;
}

export async function listCustomers(q: Queryable, ctx: RequestCtx, query: PageQuery & { email?: string; documentId?: string }) {
  const page = pageFilters(query, customers);
  const rows = await q
    .select()
    .from(customers)
    .where(allOf([
      scope(ctx),
      query.email ? eq(customers.email, query.email.toLowerCase()) : undefined,
      query.documentId ? eq(customers.documentId, query.documentId) : undefined,
      ...page.where,
    ]))
    .orderBy(page.orderBy)
    .limit(page.limit);
  return toPage(rows, query, page.reversed);
}
