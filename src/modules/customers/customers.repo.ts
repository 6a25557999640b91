import { and, desc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import { Statement, insertInto, selectRows } from "../../db/batch.js";
import type { Queryable } from "../../db/client.js";
import { inScope, inScopeOrdered, type Scope } from "../../db/scope.js";
import { cards, charges, customers, subscriptions } from "../../db/schema.js";
import { allOf, pageFilters, toPage, type PageQuery } from "../../db/pagination.js";
import type { RequestCtx } from "../../core/context.js";

export type CustomerRow = typeof customers.$inferSelect;

const scope = (s: Scope) => inScope(customers, s);
/** A deleted customer is kept for the charges that name it, and found by nothing else. */
const live = isNull(customers.deletedAt);

export async function insertCustomer(q: Queryable, row: typeof customers.$inferInsert): Promise<CustomerRow> {
  const [inserted] = await q.insert(customers).values(row).returning();
  return inserted!;
}

/** The INSERT of a new customer, for a caller that commits it in its own statement (db/batch.ts). */
export function customerInsert(row: typeof customers.$inferInsert): Statement {
  return insertInto(customers, [row]);
}

export async function findCustomer(q: Queryable, ctx: Scope, id: string, opts: { deleted?: boolean } = {}): Promise<CustomerRow | undefined> {
  const [row] = await q.select().from(customers).where(and(scope(ctx), eq(customers.id, id), opts.deleted ? undefined : live));
  return row;
}

/** The customers of these ids in this scope (a page of charges' buyers, deleted ones too), in no order. */
export async function findCustomers(q: Queryable, ctx: Scope, ids: string[]): Promise<CustomerRow[]> {
  if (ids.length === 0) return [];
  return q.select().from(customers).where(and(scope(ctx), inArray(customers.id, ids)));
}

/**
 * How an inline customer is found again: by e-mail (stored lower case, so the match is
 * case-insensitive), or by phone when the buyer gave no e-mail. Never by document: two buyers
 * who typed one CPF are two customers unless they share an e-mail (a parent paying with a
 * child's CPF, a CPF typed wrong), and a match on it would file one under the other.
 */
export type BuyerContact = { email?: string | null; phone?: string | null };

/** The oldest customer of this merchant with that contact (inline charge customers). */
export async function findCustomerByContact(q: Queryable, ctx: Scope, c: BuyerContact) {
  const lookup = contactLookup(ctx, c);
  if (!lookup) return undefined;
  const [row] = await selectRows(q, customers, lookup, true);
  return row;
}

/**
 * The statement of findCustomerByContact, on every charge with an inline customer: written as
 * text (db/batch.ts). The oldest is the first entry of one index range (migrations 0024 and
 * 0025), whatever the statistics say.
 */
export function contactLookup(ctx: Scope, c: BuyerContact): Statement | undefined {
  const [column, value] = c.email ? ["email", c.email] : c.phone ? ["phone", c.phone] : [];
  if (!column) return undefined;
  return new Statement(
    `customer by ${column}`,
    (p) => `select * from customers where merchant_id = ${p(0)} and environment = ${p(1)} and ${column} = ${p(2)} and deleted_at is null order by id limit 1`,
    [ctx.merchantId, ctx.environment, value],
  );
}

export async function listCustomers(q: Queryable, ctx: RequestCtx, query: PageQuery & { email?: string; documentId?: string }) {
  const page = pageFilters(query, customers);
  // An e-mail or a document has its own index and few rows: the scope's equalities and a sort.
  if (query.email || query.documentId) {
    const rows = await q
      .select()
      .from(customers)
      .where(allOf([
        scope(ctx),
        live,
        query.email ? eq(customers.email, query.email.toLowerCase()) : undefined,
        query.documentId ? eq(customers.documentId, query.documentId) : undefined,
        ...page.where,
      ]))
      .orderBy(page.orderBy)
      .limit(page.limit);
    return toPage(rows, query, page.reversed);
  }
  // The whole scope, read in its index's order from the cursor the page starts at (inScopeOrdered).
  const created = pageFilters({ createdGte: query.createdGte, createdLte: query.createdLte }, customers).where;
  const ordered = inScopeOrdered(customers, ctx, {
    direction: page.reversed ? "asc" : "desc",
    from: page.reversed ? query.endingBefore : query.startingAfter,
  });
  const read = q.select().from(customers).where(allOf([ordered.where, live, ...created])).orderBy(...ordered.orderBy).limit(page.limit);
  if (!(query.startingAfter && query.endingBefore)) return toPage(await read, query, page.reversed);
  // Both cursors: the scan above stops after the page's rows older than startingAfter; those not
  // newer than endingBefore are dropped here, in SQL (its collation), rather than bounding a scan
  // that would not stop at them.
  const fetched = read.as("page");
  const rows = await q.select().from(fetched).where(gt(fetched.id, query.endingBefore))
    .orderBy(desc(fetched.environment), desc(fetched.id)); // the order read: no sort
  return toPage(rows, query, page.reversed);
}

/** A partial update of a customer that is not deleted; undefined when there is none. */
export async function updateCustomer(q: Queryable, ctx: Scope, id: string, patch: Partial<typeof customers.$inferInsert>): Promise<CustomerRow | undefined> {
  const [row] = await q.update(customers).set({ ...patch, updatedAt: sql`now()` })
    .where(and(scope(ctx), eq(customers.id, id), live)).returning();
  return row;
}

/** The customer, locked until the transaction ends (a delete and a racing update meet here). */
export async function lockCustomer(q: Queryable, ctx: Scope, id: string): Promise<CustomerRow | undefined> {
  const [row] = await q.select().from(customers).where(and(scope(ctx), eq(customers.id, id), live)).for("update");
  return row;
}

/** Charges still waiting on the payer or the processor, and subscriptions that may still bill. */
const OPEN_CHARGE = ["pending", "in_analysis", "authentication_required"] as const;
const LIVE_SUBSCRIPTION = ["pending_activation", "active", "paused"] as const;

/** What still needs a customer: its open charges and its subscriptions that may bill again (a few of each). */
export async function customerInUse(q: Queryable, ctx: Scope, id: string): Promise<{ charges: string[]; subscriptions: string[] }> {
  const [open, subs] = await Promise.all([
    q.select({ id: charges.id }).from(charges)
      .where(and(inScope(charges, ctx), eq(charges.customerId, id), inArray(charges.status, [...OPEN_CHARGE]))).limit(3),
    q.select({ id: subscriptions.id }).from(subscriptions)
      .where(and(inScope(subscriptions, ctx), eq(subscriptions.customerId, id), inArray(subscriptions.status, [...LIVE_SUBSCRIPTION]))).limit(3),
  ]);
  return { charges: open.map((r) => r.id), subscriptions: subs.map((r) => r.id) };
}

/**
 * Marks the customer deleted and removes its saved cards from the vault (their sealed numbers
 * serve no one once the customer is gone, and no later charge may use them by cardId).
 */
export async function markDeleted(q: Queryable, ctx: Scope, id: string): Promise<void> {
  await q.update(customers).set({ deletedAt: sql`now()`, updatedAt: sql`now()` }).where(and(scope(ctx), eq(customers.id, id), live));
  await q.delete(cards).where(and(inScope(cards, ctx), eq(cards.customerId, id)));
}
