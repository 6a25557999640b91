import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { queryRows, type Db, type Queryable } from "../../db/client.js";
import { inScope, inScopeOrdered, inScopeSql, type Environment, type Scope } from "../../db/scope.js";
import type { SubscriptionStatus } from "../../db/schema/statuses.js";
import { charges, sandboxClocks, subscriptionCharges, subscriptionInvoices, subscriptions, subscriptionSettings } from "../../db/schema.js";
import type { RequestCtx } from "../../core/context.js";

export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type InvoiceRow = typeof subscriptionInvoices.$inferSelect;
export type SubChargeRow = typeof subscriptionCharges.$inferSelect;

const scope = (s: Scope) => inScope(subscriptions, s);

/** Inserts; undefined when the id exists (a retry under the same Idempotency-Key got there first). */
export async function insertSubscription(q: Queryable, row: typeof subscriptions.$inferInsert): Promise<SubscriptionRow | undefined> {
  const [inserted] = await q.insert(subscriptions).values(row).onConflictDoNothing({ target: subscriptions.id }).returning();
  return inserted;
}

export async function findSubscription(q: Queryable, ctx: Scope, id: string): Promise<SubscriptionRow | undefined> {
  const [row] = await q.select().from(subscriptions).where(and(scope(ctx), eq(subscriptions.id, id)));
  return row;
}

/** The row, locked until the transaction ends: status changes and billing serialize on it. */
export async function lockSubscription(tx: Queryable, id: string): Promise<SubscriptionRow | undefined> {
  const [row] = await tx.select().from(subscriptions).where(eq(subscriptions.id, id)).for("update");
  return row;
}

/** Applies the patch only while the status is still `from` (when given); undefined otherwise. */
export async function updateSubscription(
  q: Queryable, id: string, patch: Partial<typeof subscriptions.$inferInsert>, from?: SubscriptionStatus,
): Promise<SubscriptionRow | undefined> {
  const [row] = await q.update(subscriptions)
    .set({ ...patch, updatedAt: new Date() })
    .where(and(eq(subscriptions.id, id), from === undefined ? undefined : eq(subscriptions.status, from)))
    .returning();
  return row;
}

export async function insertInvoice(q: Queryable, row: typeof subscriptionInvoices.$inferInsert): Promise<InvoiceRow> {
  const [inserted] = await q.insert(subscriptionInvoices).values(row).onConflictDoNothing().returning();
  return inserted ?? (await findInvoice(q, row.id))!;
}

export async function findInvoice(q: Queryable, id: string): Promise<InvoiceRow | undefined> {
  const [row] = await q.select().from(subscriptionInvoices).where(eq(subscriptionInvoices.id, id));
  return row;
}

export async function updateInvoice(q: Queryable, id: string, patch: Partial<typeof subscriptionInvoices.$inferInsert>): Promise<void> {
  await q.update(subscriptionInvoices).set({ ...patch, updatedAt: new Date() }).where(eq(subscriptionInvoices.id, id));
}

/** The paid invoice of a period (the one a refund on cancel gives back). */
export async function paidInvoiceOf(q: Queryable, subscriptionId: string, periodStart: Date): Promise<InvoiceRow | undefined> {
  const [row] = await q.select().from(subscriptionInvoices).where(and(
    eq(subscriptionInvoices.subscriptionId, subscriptionId), eq(subscriptionInvoices.periodStart, periodStart), eq(subscriptionInvoices.status, "paid"),
  ));
  return row;
}

export async function insertSubCharge(q: Queryable, row: typeof subscriptionCharges.$inferInsert): Promise<void> {
  await q.insert(subscriptionCharges).values(row).onConflictDoNothing();
}

export async function findSubCharge(q: Queryable, chargeId: string): Promise<SubChargeRow | undefined> {
  const [row] = await q.select().from(subscriptionCharges).where(eq(subscriptionCharges.chargeId, chargeId));
  return row;
}

export async function setSubChargeStatus(q: Queryable, chargeId: string, status: string, reason: string | null): Promise<void> {
  await q.update(subscriptionCharges).set({ status, reason }).where(eq(subscriptionCharges.chargeId, chargeId));
}

/** The processor's reference of a period's first debit (a live Pix Automático cobr), which its retries are attempts of. */
export async function periodDebitRef(q: Queryable, invoiceId: string): Promise<string | null> {
  const [row] = await q.select({ ref: charges.pspRefId }).from(subscriptionCharges)
    .innerJoin(charges, eq(charges.id, subscriptionCharges.chargeId))
    .where(and(eq(subscriptionCharges.invoiceId, invoiceId), eq(subscriptionCharges.attempt, 1)));
  return row?.ref ?? null;
}

export async function chargesOf(q: Queryable, subscriptionId: string, limit: number) {
  return q.select({
    chargeId: subscriptionCharges.chargeId, attempt: subscriptionCharges.attempt, status: subscriptionCharges.status,
    reason: subscriptionCharges.reason, createdAt: subscriptionCharges.createdAt,
    periodStart: subscriptionInvoices.periodStart, periodEnd: subscriptionInvoices.periodEnd,
  })
    .from(subscriptionCharges)
    .innerJoin(subscriptionInvoices, eq(subscriptionInvoices.id, subscriptionCharges.invoiceId))
    .where(eq(subscriptionCharges.subscriptionId, subscriptionId))
    .orderBy(desc(subscriptionCharges.createdAt), desc(subscriptionCharges.attempt))
    .limit(limit);
}

export async function getSettings(q: Queryable, ctx: Scope) {
  const [row] = await q.select().from(subscriptionSettings)
    .where(inScope(subscriptionSettings, ctx));
  return row;
}

export async function putSettings(q: Queryable, ctx: Scope, retryDays: number[], onExhausted: "expire" | "cancel") {
  await q.insert(subscriptionSettings)
    .values({ merchantId: ctx.merchantId, environment: ctx.environment, retryDays, onExhausted })
    .onConflictDoUpdate({
      target: [subscriptionSettings.merchantId, subscriptionSettings.environment],
      set: { retryDays, onExhausted, updatedAt: new Date() },
    });
}

/** How far the merchant's sandbox clock runs ahead of real time, in ms (0 without a clock). */
export async function clockOffset(q: Queryable, merchantId: string): Promise<number> {
  const [row] = await q.select({ offsetMs: sandboxClocks.offsetMs }).from(sandboxClocks).where(eq(sandboxClocks.merchantId, merchantId));
  return row?.offsetMs ?? 0;
}

/** Moves the clock forward to at least `offsetMs` (never back: time only moves forward). */
export async function raiseClockOffset(q: Queryable, merchantId: string, offsetMs: number): Promise<void> {
  await q.insert(sandboxClocks).values({ merchantId, offsetMs })
    .onConflictDoUpdate({ target: sandboxClocks.merchantId, set: { offsetMs: sql`greatest(${sandboxClocks.offsetMs}, ${offsetMs})`, updatedAt: new Date() } });
}

/**
 * Claims up to `limit` subscriptions whose next billing step is due, for `leaseMs`: FOR UPDATE
 * SKIP LOCKED lets any number of workers claim disjoint batches, and the lease keeps a claim
 * from being taken again while its worker bills it (a dead worker's claim is free once it runs
 * out; the per-period charge ids make the rerun harmless).
 * - "real": due by real time (an index range scan on next_run_at; a test clock only ever runs
 *   ahead, so this is due by any clock too);
 * - "clocks": sandbox subscriptions due only by their merchant's test clock;
 * - {merchantId, dueBy}: one merchant's sandbox subscriptions due by a given simulated time.
 */
export async function claimDue(
  q: Queryable, opts: { limit: number; leaseMs: number; mode: "real" | "clocks" | { merchantId: string; dueBy: Date } },
): Promise<SubscriptionRow[]> {
  const lease = sql`make_interval(secs => ${opts.leaseMs / 1000}::float8)`;
  const free = sql`(s.claimed_until is null or s.claimed_until < now())`;
  const m = opts.mode;
  const pick = m === "real"
    ? sql`select s.id from subscriptions s where s.next_run_at <= now() and ${free}
          order by s.next_run_at limit ${opts.limit} for update skip locked`
    : m === "clocks"
      ? sql`select s.id from sandbox_clocks c join subscriptions s on s.merchant_id = c.merchant_id and s.environment = 'sandbox'
            where c.offset_ms > 0 and s.next_run_at <= now() + make_interval(secs => c.offset_ms / 1000.0) and ${free}
            order by s.next_run_at limit ${opts.limit} for update of s skip locked`
      : sql`select s.id from subscriptions s where s.merchant_id = ${m.merchantId} and s.environment = 'sandbox'
            and s.next_run_at <= ${m.dueBy.toISOString()}::timestamptz and ${free}
            order by s.next_run_at limit ${opts.limit} for update skip locked`;
  const rows = await queryRows<{ id: string }>(q, sql`
    update subscriptions set claimed_until = now() + ${lease} where id in (${pick}) returning id`);
  if (rows.length === 0) return [];
  return q.select().from(subscriptions).where(inArray(subscriptions.id, rows.map((r) => r.id)));
}

/** The earliest next step of a merchant's sandbox subscriptions at or before `by` (test clock). */
export async function nextDueAt(q: Queryable, merchantId: string, by: Date): Promise<Date | null> {
  const [row] = await queryRows<{ at: string | Date | null }>(q, sql`
    select min(next_run_at) as at from subscriptions
    where merchant_id = ${merchantId} and environment = 'sandbox' and next_run_at <= ${by.toISOString()}::timestamptz`);
  return row?.at ? new Date(row.at) : null;
}

export async function releaseClaim(q: Queryable, id: string): Promise<void> {
  await q.update(subscriptions).set({ claimedUntil: null }).where(eq(subscriptions.id, id));
}


const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

export interface ListFilter {
  merchantId: string;
  environment: Environment;
  customerId?: string;
  status?: string;
  search?: string;
  page: number;
  limit: number;
}

/**
 * The list of GET /v1/subscriptions with its plan and customer, newest first, by page. The search
 * text is matched as typed: % _ and \ are escaped, so they are not LIKE wildcards.
 */
export async function listSubscriptions(q: Queryable, f: ListFilter) {
  if (f.search) return searchSubscriptions(q, f, f.search);
  const where = filtersOf(f);
  // The exact total by an index-only scan: of subscriptions_count_idx (owner, environment, status),
  // small because B-tree deduplication stores each key once, or of the customer's index.
  const [{ total }] = await queryRows<{ total: number }>(q, sql`select count(*)::int as total from subscriptions s where ${where}`) as [{ total: number }];
  // The page's ids first, from one index (the scope's, the status filter's subscriptions_status_idx,
  // or the customer's), then the joins for those rows only.
  const offset = (f.page - 1) * f.limit;
  const whole = () => {
    const ordered = inScopeOrdered(subscriptions, f, { direction: "desc" });
    return sql`select ${subscriptions.id} from ${subscriptions} where ${ordered.where}
      order by ${sql.join(ordered.orderBy, sql`, `)} limit ${f.limit} offset ${offset}`;
  };
  const ids = f.customerId || f.status
    ? sql`select s.id from subscriptions s where ${where} order by s.id desc limit ${f.limit} offset ${offset}`
    : whole();
  const rows = await queryRows<ListRow>(q, sql`${LIST_COLUMNS}
    from (${ids}) page join subscriptions s on s.id = page.id ${JOINS} order by s.id desc`);
  return { rows, total };
}

const filtersOf = (f: ListFilter) => sql`${inScopeSql(f, "merchant_id", "s")}
  ${f.customerId ? sql`and s.customer_id = ${f.customerId}` : sql``}
  ${f.status ? sql`and s.status = ${f.status}` : sql``}`;

const LIST_COLUMNS = sql`
  select s.id, s.status, s.current_period_start, s.current_period_end, s.billing_day, s.cancelled_at, s.cancellation_type,
         s.refunded, s.created_at, s.updated_at, p.name as plan_name, p.price as plan_price, p.currency as plan_currency,
         c.name as customer_name, c.email as customer_email`;
const JOINS = sql`join plans p on p.id = s.plan_id join customers c on c.id = s.customer_id`;

/**
 * A search matches the customer's name or e-mail or the plan's name. Text with a run of three
 * ASCII letters or digits has trigrams in any locale: the matching customers come from their
 * trigram indexes and the matching plans from the scope's few, then their subscriptions through
 * the customer and plan indexes (migration 0023). Shorter text has no trigram to look up: the
 * scope's subscriptions are joined and filtered, as every search was before.
 */
async function searchSubscriptions(q: Queryable, f: ListFilter, search: string) {
  const pattern = `%${escapeLike(search)}%`;
  const like = (column: string) => sql`${sql.raw(column)} ilike ${pattern} escape '\\'`;
  const matching = /[A-Za-z0-9]{3}/.test(search)
    ? sql`select s.id from subscriptions s where ${filtersOf(f)} and s.customer_id in (
          select c.id from customers c where ${inScopeSql(f, "merchant_id", "c")} and (${like("c.name")} or ${like("c.email")}))
        union
        select s.id from subscriptions s where ${filtersOf(f)} and s.plan_id in (
          select p.id from plans p where ${inScopeSql(f, "merchant_id", "p")} and ${like("p.name")})`
    : sql`select s.id from subscriptions s ${JOINS} where ${filtersOf(f)} and (${like("c.name")} or ${like("c.email")} or ${like("p.name")})`;
  const [{ total }] = await queryRows<{ total: number }>(q, sql`select count(*)::int as total from (${matching}) m`) as [{ total: number }];
  const rows = await queryRows<ListRow>(q, sql`${LIST_COLUMNS}
    from (select m.id from (${matching}) m order by m.id desc limit ${f.limit} offset ${(f.page - 1) * f.limit}) page
    join subscriptions s on s.id = page.id ${JOINS} order by s.id desc`);
  return { rows, total };
}

export interface ListRow {
  id: string; status: string; current_period_start: string | Date; current_period_end: string | Date; billing_day: number;
  cancelled_at: string | Date | null; cancellation_type: string | null; refunded: boolean; created_at: string | Date; updated_at: string | Date;
  plan_name: string; plan_price: string | number; plan_currency: string; customer_name: string; customer_email: string | null;
}
