import { and, asc, desc, eq, gt, isNotNull, or, type SQL } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { providerReconciliations as recs, submerchantProviderAccounts as accounts, submerchants } from "../../db/schema.js";
import { inScope, type Scope } from "../../db/scope.js";
import type { TransferSchedule } from "../../processors/accounts.js";

// The daily reconciliation's SQL (reconciliations.ts runs it).

export type ReconciliationRow = typeof recs.$inferSelect;

export interface ReconcilableAccount {
  submerchantId: string;
  processor: string;
  externalId: string;
  parentId: string;
  environment: "sandbox" | "production";
  currency: string;
  /** The seller's payout schedule (null: manual), what the processor's automatic transfers follow. */
  schedule: TransferSchedule;
  /** When the schedule was set (the test clock's time in the sandbox); null: before this was kept. */
  scheduleFrom: Date | null;
}

/**
 * A page of active accounts at processors, after the cursor (submerchant, processor): all
 * masters (the worker), or one master's sandbox (its test clock's advance).
 */
export async function activeAccounts(
  q: Queryable, opts: { after?: { submerchantId: string; processor: string }; limit: number; master?: string },
): Promise<ReconcilableAccount[]> {
  const where: SQL[] = [eq(accounts.status, "active"), isNotNull(accounts.externalId)];
  if (opts.master) where.push(inScope({ merchantId: accounts.parentId, environment: accounts.environment }, { merchantId: opts.master, environment: "sandbox" }));
  if (opts.after) {
    const { submerchantId, processor } = opts.after;
    where.push(or(gt(accounts.submerchantId, submerchantId), and(eq(accounts.submerchantId, submerchantId), gt(accounts.processor, processor)))!);
  }
  const rows = await q.select({
    submerchantId: accounts.submerchantId, processor: accounts.processor, externalId: accounts.externalId,
    parentId: accounts.parentId, environment: accounts.environment, currency: submerchants.currency,
    schedule: submerchants.payoutSchedule, scheduleFrom: submerchants.payoutScheduleFrom,
  }).from(accounts).innerJoin(submerchants, eq(submerchants.id, accounts.submerchantId))
    .where(and(...where)).orderBy(asc(accounts.submerchantId), asc(accounts.processor)).limit(opts.limit);
  return rows.map((r) => ({ ...r, externalId: r.externalId ?? "" }));
}

/** Whether the account's day was reconciled already. */
export async function reconciled(q: Queryable, key: { submerchantId: string; processor: string; currency: string; day: string }): Promise<boolean> {
  const [row] = await q.select({ day: recs.day }).from(recs).where(and(
    eq(recs.submerchantId, key.submerchantId), eq(recs.processor, key.processor), eq(recs.currency, key.currency), eq(recs.day, key.day)));
  return row !== undefined;
}

/** Records the day's result; undefined when another run recorded it first (nothing written). */
export async function insertReconciliation(q: Queryable, row: typeof recs.$inferInsert): Promise<ReconciliationRow | undefined> {
  const [inserted] = await q.insert(recs).values(row).onConflictDoNothing().returning();
  return inserted;
}

/** A submerchant's last reconciliation per processor and currency, in its master's scope. */
export async function lastReconciliations(q: Queryable, scope: Scope, submerchantId: string): Promise<ReconciliationRow[]> {
  return q.selectDistinctOn([recs.processor, recs.currency]).from(recs)
    .where(and(inScope({ merchantId: recs.parentId, environment: recs.environment }, scope), eq(recs.submerchantId, submerchantId)))
    .orderBy(asc(recs.processor), asc(recs.currency), desc(recs.day));
}
