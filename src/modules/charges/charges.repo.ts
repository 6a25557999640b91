import { and, eq, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { charges, refunds } from "../../db/schema.js";
import type { RequestCtx } from "../../http/context.js";
import { allOf, pageFilters, toPage, type PageQuery } from "../../http/pagination.js";
import type { ChargeStatus } from "./charge-status.js";
import type { ChargeRow } from "./charges.mapper.js";

const scope = (ctx: Pick<RequestCtx, "merchantId" | "environment">) =>
  and(eq(charges.merchantId, ctx.merchantId), eq(charges.environment, ctx.environment));

export async function insertCharge(tx: Queryable, row: typeof charges.$inferInsert): Promise<ChargeRow> {
  const [inserted] = await tx.insert(charges).values(row).returning();
  return inserted!;
}

export async function findCharge(q: Queryable, ctx: Pick<RequestCtx, "merchantId" | "environment">, id: string): Promise<ChargeRow | undefined> {
  const [row] = await q.select().from(charges).where(and(scope(ctx), eq(charges.id, id)));
  return row;
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

export async function insertRefund(tx: Queryable, row: typeof refunds.$inferInsert) {
  const [inserted] = await tx.insert(refunds).values(row).returning();
  return inserted!;
}

export async function setRefundStatus(tx: Queryable, id: string, status: "succeeded" | "failed") {
  const [row] = await tx.update(refunds).set({ status }).where(eq(refunds.id, id)).returning();
  return row!;
}

export async function listCharges(
  q: Queryable, ctx: RequestCtx, query: PageQuery & { status?: string; paymentMethod?: string; customerId?: string },
) {
  const page = pageFilters(query, charges);
  const rows = await q.select().from(charges)
    .where(allOf([
      scope(ctx),
      query.status ? eq(charges.status, query.status) : undefined,
      query.paymentMethod ? eq(charges.paymentMethodType, query.paymentMethod) : undefined,
      query.customerId ? eq(charges.customerId, query.customerId) : undefined,
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
