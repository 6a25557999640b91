import { and, eq, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { charges, refunds } from "../../db/schema.js";
import type { RequestCtx } from "../../http/context.js";
import { allOf, pageFilters, toPage, type PageQuery } from "../../http/pagination.js";
import type { ChargeStatus } from "./charge-status.js";
import type { ChargeRow } from "./charges.mapper.js";

const scope = (ctx: Pick<RequestCtx, "merchantId" | "environment">) =>
  and(eq(charges.merchantId, ctx.merchantId), eq(charges.environment, ctx.environment));

/** Inserts the charge; undefined when a charge with this id exists (a concurrent retry's). */
export async function insertCharge(tx: Queryable, row: typeof charges.$inferInsert): Promise<ChargeRow | undefined> {
  const [inserted] = await tx.insert(charges).values(row).onConflictDoNothing({ target: charges.id }).returning();
  return inserted;
}

export async function findCharge(q: Queryable, ctx: Pick<RequestCtx, "merchantId" | "environment">, id: string): Promise<ChargeRow | undefined> {
  const [row] = await q.select().from(charges).where(and(scope(ctx), eq(charges.id, id)));
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
 * Reserves a refund: adds to amount_refunded only while the sum stays within the amount and
 * the charge is paid. One statement, so concurrent refunds can never exceed the charge.
 */
export async function reserveRefund(tx: Queryable, id: string, amount: number): Promise<ChargeRow | undefined> {
  const [row] = await tx.update(charges)
    .set({ amountRefunded: sql`${charges.amountRefunded} + ${amount}`, updatedAt: new Date() })
    .where(and(eq(charges.id, id), eq(charges.status, "paid"), sql`${charges.amountRefunded} + ${amount} <= ${charges.amount}`))
    .returning();
  return row;
}

export async function releaseRefund(tx: Queryable, id: string, amount: number): Promise<void> {
  await tx.update(charges).set({ amountRefunded: sql`${charges.amountRefunded} - ${amount}` }).where(eq(charges.id, id));
}

export type RefundRow = typeof refunds.$inferSelect;

export async function insertRefund(tx: Queryable, row: typeof refunds.$inferInsert): Promise<RefundRow> {
  const [inserted] = await tx.insert(refunds).values(row).returning();
  return inserted!;
}

export async function findRefund(q: Queryable, id: string): Promise<RefundRow | undefined> {
  const [row] = await q.select().from(refunds).where(eq(refunds.id, id));
  return row;
}

/** Settles a pending refund; undefined when it was settled already (by a retry or the janitor). */
export async function settleRefund(tx: Queryable, id: string, status: "succeeded" | "failed"): Promise<RefundRow | undefined> {
  const [row] = await tx.update(refunds).set({ status }).where(and(eq(refunds.id, id), eq(refunds.status, "pending"))).returning();
  return row;
}

/** Refunds pending for longer than `graceMs`: left by a crash between reservation and outcome. */
export async function stalePendingRefunds(q: Queryable, graceMs: number, limit: number): Promise<RefundRow[]> {
  return q.select().from(refunds)
    .where(and(eq(refunds.status, "pending"), sql`${refunds.createdAt} < now() - make_interval(secs => ${graceMs / 1000}::float8)`))
    .orderBy(refunds.createdAt)
    .limit(limit);
}

/** Unpaid charges whose payment instructions expired (Pix, boleto and the other payer-paid methods). */
export async function expiredPendingCharges(q: Queryable, limit: number): Promise<ChargeRow[]> {
  return q.select().from(charges)
    .where(and(eq(charges.status, "pending"), sql`${charges.expiresAt} < now()`))
    .orderBy(charges.expiresAt)
    .limit(limit);
}

export async function listCharges(
  q: Queryable, ctx: RequestCtx, query: PageQuery & { status?: string; paymentMethod?: string; customerId?: string; paymentLinkId?: string },
) {
  const page = pageFilters(query, charges);
  const rows = await q.select().from(charges)
    .where(allOf([
      scope(ctx),
      query.status ? eq(charges.status, query.status) : undefined,
      query.paymentMethod ? eq(charges.paymentMethodType, query.paymentMethod) : undefined,
      query.customerId ? eq(charges.customerId, query.customerId) : undefined,
      query.paymentLinkId ? eq(charges.paymentLinkId, query.paymentLinkId) : undefined,
      ...page.where,
    ]))
    .orderBy(page.orderBy)
    .limit(page.limit);
  return toPage(rows, query, page.reversed);
}

/** A sandbox charge by id alone: the sandbox bank pages are reached by the payer, keyless. */
export async function findSandboxCharge(q: Queryable, id: string): Promise<ChargeRow | undefined> {
  const [row] = await q.select().from(charges).where(and(eq(charges.id, id), eq(charges.environment, "sandbox")));
  return row;
}
