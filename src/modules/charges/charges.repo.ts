import { and, eq, gte, inArray, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { inScope, type Scope } from "../../db/scope.js";
import { charges, customers, refunds } from "../../db/schema.js";
import type { RequestCtx } from "../../core/context.js";
import { allOf, creationPageFilters, toPage, type PageQuery } from "../../db/pagination.js";
import { idTime } from "../../lib/ids.js";
import type { ChargeStatus } from "./charge-status.js";
import type { ChargeRow } from "./charges.mapper.js";

const scope = (s: Scope) => inScope(charges, s);

/** Inserts the charge; undefined when a charge with this id exists (a concurrent retry's). */
export async function insertCharge(tx: Queryable, row: typeof charges.$inferInsert): Promise<ChargeRow | undefined> {
  const [inserted] = await tx.insert(charges).values(row).onConflictDoNothing({ target: charges.id }).returning();
  return inserted;
}

export async function findCharge(q: Queryable, ctx: Pick<RequestCtx, "merchantId" | "environment">, id: string): Promise<ChargeRow | undefined> {
  const [row] = await q.select().from(charges).where(and(scope(ctx), eq(charges.id, id)));
  return row;
}

/** The charge a buyer's page token names (any merchant: the token alone is the key); never a deleted one. */
export async function findByPageToken(q: Queryable, token: string): Promise<ChargeRow | undefined> {
  const [row] = await q.select().from(charges).where(and(eq(charges.pageToken, token), isNull(charges.deletedAt)));
  return row;
}

/** Whether a charge with this id exists, in any scope (ids are unique across merchants). */
export async function chargeExists(q: Queryable, id: string): Promise<boolean> {
  const [row] = await q.select({ id: charges.id }).from(charges).where(eq(charges.id, id));
  return Boolean(row);
}

/**
 * Applies a transition only if the charge is still in `from`; returns the new row, or
 * undefined when another request changed it first.
 */
export async function transition(
  tx: Queryable, id: string, from: ChargeStatus, to: ChargeStatus, patch: Partial<typeof charges.$inferInsert> = {},
): Promise<ChargeRow | undefined> {
  const [row] = await tx.update(charges)
    .set({ ...patch, status: to, updatedAt: new Date() })
    .where(and(eq(charges.id, id), eq(charges.status, from)))
    .returning();
  return row;
}

/**
 * Reserves a refund: adds to amount_refunded only while it and what disputes hold stay within
 * the amount and the charge is paid. One statement, so concurrent refunds can never exceed the
 * charge, nor refund money a dispute took.
 */
export async function reserveRefund(tx: Queryable, id: string, amount: number, gross: number): Promise<ChargeRow | undefined> {
  // gross: what the payer paid (ledger grossOf), fixed once the charge is paid; what refunds and
  // disputes took is read under the row's lock, so concurrent refunds never pass it together.
  const [row] = await tx.update(charges)
    .set({ amountRefunded: sql`${charges.amountRefunded} + ${amount}`, updatedAt: new Date() })
    .where(and(eq(charges.id, id), eq(charges.status, "paid"), sql`${charges.amountRefunded} + ${charges.amountDisputed} + ${amount} <= ${gross}`))
    .returning();
  return row;
}

/** A charge by id under its row lock (the dispute's money moves read and change it under it). */
export async function lockedCharge(tx: Queryable, id: string): Promise<ChargeRow | undefined> {
  const [row] = await tx.select().from(charges).where(eq(charges.id, id)).for("update");
  return row;
}

/**
 * Adds `delta` (negative to give back) to what the charge's disputes took and `refunded` to
 * amount_refunded (a lost Pix MED's hold becomes a refund); the caller holds the charge's lock.
 */
export async function addDisputed(tx: Queryable, id: string, delta: number, refunded = 0): Promise<ChargeRow> {
  const [row] = await tx.update(charges)
    .set({ amountDisputed: sql`${charges.amountDisputed} + ${delta}`, amountRefunded: sql`${charges.amountRefunded} + ${refunded}`, updatedAt: new Date() })
    .where(eq(charges.id, id))
    .returning();
  return row!;
}

export async function releaseRefund(tx: Queryable, id: string, amount: number): Promise<void> {
  await tx.update(charges).set({ amountRefunded: sql`${charges.amountRefunded} - ${amount}` }).where(eq(charges.id, id));
}

export type RefundRow = typeof refunds.$inferSelect;

export async function insertRefund(tx: Queryable, row: typeof refunds.$inferInsert): Promise<RefundRow> {
  const [inserted] = await tx.insert(refunds).values(row).returning();
  return inserted!;
}

/** A charge's refunds in the scope, newest first; one more than `limit` tells that more follow. */
export async function listRefunds(q: Queryable, scope: Scope, chargeId: string, limit: number): Promise<RefundRow[]> {
  return q.select().from(refunds)
    .where(and(inScope(refunds, scope), eq(refunds.chargeId, chargeId)))
    .orderBy(sql`${refunds.createdAt} desc, ${refunds.id} desc`).limit(limit + 1);
}

export async function findRefund(q: Queryable, id: string): Promise<RefundRow | undefined> {
  const [row] = await q.select().from(refunds).where(eq(refunds.id, id));
  return row;
}

type ProviderFacts = { refundRef?: string | null; providerCode?: string | null };
/** Only the facts the provider gave: a later answer without a reference keeps the known one. */
const given = (f: ProviderFacts) => ({
  ...(f.refundRef ? { refundRef: f.refundRef } : {}), ...(f.providerCode ? { providerCode: f.providerCode } : {}),
});

/** Settles a pending refund; undefined when it was settled already (by a retry or the janitor). */
export async function settleRefund(tx: Queryable, id: string, status: "succeeded" | "failed", facts: ProviderFacts = {}): Promise<RefundRow | undefined> {
  const [row] = await tx.update(refunds).set({ status, ...given(facts) }).where(and(eq(refunds.id, id), eq(refunds.status, "pending"))).returning();
  return row;
}

/** Records what the provider said of a refund that stays pending; undefined when it was settled meanwhile. */
export async function notePendingRefund(tx: Queryable, id: string, facts: ProviderFacts): Promise<RefundRow | undefined> {
  const patch = given(facts);
  const where = and(eq(refunds.id, id), eq(refunds.status, "pending"));
  if (Object.keys(patch).length === 0) return (await tx.select().from(refunds).where(where))[0];
  const [row] = await tx.update(refunds).set(patch).where(where).returning();
  return row;
}

/** Marks that feira is calling the processor about this refund now (before the call). */
export async function markRefundSent(q: Queryable, id: string): Promise<void> {
  await q.update(refunds).set({ sentAt: sql`now()` }).where(eq(refunds.id, id));
}

/** Locks the charge row until the transaction ends: refunds of one charge settle one at a time. */
export async function lockCharge(tx: Queryable, id: string): Promise<void> {
  await tx.select({ id: charges.id }).from(charges).where(eq(charges.id, id)).for("update");
}

/** What the succeeded refunds of a charge add up to (pending reservations not included). */
export async function succeededRefundTotal(q: Queryable, chargeId: string): Promise<number> {
  const [row] = await q.select({ total: sql<string>`coalesce(sum(${refunds.amount}), 0)` }).from(refunds)
    .where(and(eq(refunds.chargeId, chargeId), eq(refunds.status, "succeeded")));
  return Number(row?.total ?? 0);
}

const olderThan = (column: typeof refunds.createdAt | typeof refunds.sentAt, ms: number) =>
  sql`${column} < now() - make_interval(secs => ${ms / 1000}::float8)`;

/**
 * Refunds pending for longer than `graceMs` and not asked about for as long: left by a crash
 * between reservation and outcome (the live reconciliation reads recent live ones).
 */
export async function stalePendingRefunds(q: Queryable, graceMs: number, limit: number): Promise<RefundRow[]> {
  return q.select().from(refunds)
    .where(and(
      eq(refunds.status, "pending"), olderThan(refunds.createdAt, graceMs),
      or(isNull(refunds.sentAt), olderThan(refunds.sentAt, graceMs)),
    ))
    .orderBy(refunds.createdAt)
    .limit(limit);
}

/**
 * Live refunds the provider answered as pending (or never answered), not called about for
 * `quietMs`: no call of feira's about them can still be in flight. Least recently asked first.
 */
export async function openLiveRefunds(q: Queryable, quietMs: number, limit: number, chargeId?: string): Promise<RefundRow[]> {
  return q.select().from(refunds)
    .where(and(
      eq(refunds.status, "pending"), eq(refunds.environment, "production"), olderThan(refunds.sentAt, quietMs),
      chargeId ? eq(refunds.chargeId, chargeId) : undefined,
    ))
    .orderBy(refunds.sentAt)
    .limit(limit);
}

/** Unpaid charges of an environment whose payment instructions expired (Pix, boleto and the other payer-paid methods). */
export async function expiredPendingCharges(q: Queryable, environment: "sandbox" | "production", limit: number): Promise<ChargeRow[]> {
  return q.select().from(charges)
    .where(and(eq(charges.status, "pending"), eq(charges.environment, environment), sql`${charges.expiresAt} < now()`))
    .orderBy(charges.expiresAt)
    .limit(limit);
}

export type ChargeListQuery = PageQuery & {
  status?: ChargeStatus; paymentMethod?: string; customerId?: string; paymentLinkId?: string;
  /** The charges of every customer with this e-mail (the panel's search): two may share one. */
  customerEmail?: string;
};

export async function listCharges(q: Queryable, ctx: RequestCtx, query: ChargeListQuery) {
  const page = creationPageFilters(query, charges, (id) => cursorCreatedAt(ctx, id));
  const withEmail = query.customerEmail
    ? q.select({ id: customers.id }).from(customers).where(and(inScope(customers, ctx), eq(customers.email, query.customerEmail.trim().toLowerCase())))
    : undefined;
  const rows = await q.select().from(charges).where(allOf([
    scope(ctx),
    query.status ? eq(charges.status, query.status) : undefined,
    query.paymentMethod ? eq(charges.paymentMethodType, query.paymentMethod) : undefined,
    query.customerId ? eq(charges.customerId, query.customerId) : undefined,
    withEmail ? inArray(charges.customerId, withEmail) : undefined,
    query.paymentLinkId ? eq(charges.paymentLinkId, query.paymentLinkId) : undefined,
    ...page.where,
  ])).orderBy(...page.orderBy).limit(page.limit);
  return toPage(rows, query, page.reversed);
}

/** 9999-12-31T23:59:59.999Z: past it, toISOString writes a six-digit year that PostgreSQL refuses. */
const LAST_TIMESTAMP_MS = 253_402_300_799_999;

/**
 * Where a page continues from: the cursor charge's created_at, read in PostgreSQL. A cursor that
 * names no charge of this scope continues from the time written in it (ids begin with their
 * time), as an id cursor did before lists followed creation.
 */
function cursorCreatedAt(ctx: Scope, id: string): SQL {
  const written = idTime(id);
  // Any text may come as a cursor: its time is kept within what PostgreSQL reads (years 1970 to 9999).
  const fallback = new Date(Number.isFinite(written) ? Math.min(Math.max(written, 0), LAST_TIMESTAMP_MS) : 0).toISOString();
  return sql`coalesce((select "cursor".created_at from charges as "cursor" where "cursor".id = ${id} and "cursor".merchant_id = ${ctx.merchantId} and "cursor".environment = ${ctx.environment}), ${fallback}::timestamptz)`;
}

/**
 * How far a charge's created_at may be from the time in its id before the charge is marked
 * created_apart: the id is made when the request starts (or from an idempotency seed) and
 * created_at a moment later. Lists order by created_at and need no mark; it tells which ids do
 * not say when their charge was made (a claim taken over long after its first attempt, a
 * sandbox renewal on the test clock, a demo charge moved back, renewals made before 0031).
 */
export const CREATED_NEAR_ID_MS = 60_000;

/** Whether a charge made now with this id must be marked created_apart. */
export function createdApart(id: string, createdAt: Date): boolean {
  return Math.abs(createdAt.getTime() - idTime(id)) > CREATED_NEAR_ID_MS;
}

/** A sandbox charge by id alone: the sandbox bank pages are reached by the payer, keyless. */
export async function findSandboxCharge(q: Queryable, id: string): Promise<ChargeRow | undefined> {
  const [row] = await q.select().from(charges).where(and(eq(charges.id, id), eq(charges.environment, "sandbox")));
  return row;
}
