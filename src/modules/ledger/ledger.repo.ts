import { and, asc, desc, eq, isNull, lte, sql } from "drizzle-orm";
import { insertInto, write, type Sink } from "../../db/batch.js";
import type { Queryable } from "../../db/client.js";
import { ledgerEntries, ledgerTransactions, settlements } from "../../db/schema.js";
import type { Environment } from "../../http/context.js";
import { allOf, pageFilters, toPage, type PageQuery } from "../../http/pagination.js";
import { newId } from "../../lib/ids.js";

export interface EntryInput {
  owner: string;
  account: Account;
  amount: number;
}

/**
 * A merchant's balances are pending, available and payout_reserved (requested payouts awaiting
 * approval); the platform's are the processor receivable, fee revenue and paid_out (payouts sent).
 */
export type Account = "pending" | "available" | "payout_reserved" | "processor_receivable" | "fee_revenue" | "paid_out";

/**
 * Writes one balanced ledger transaction. Throws when the entries do not sum to zero: an
 * unbalanced posting is a bug, and it must roll back the whole change it belongs to.
 */
export async function postTransaction(
  sink: Sink,
  t: { environment: Environment; currency: string; type: string; sourceId: string; description?: string; entries: EntryInput[] },
  settlementRows: (typeof settlements.$inferInsert)[] = [],
): Promise<string> {
  const entries = t.entries.filter((e) => e.amount !== 0);
  const sum = entries.reduce((s, e) => s + e.amount, 0);
  if (sum !== 0) throw new Error(`unbalanced ledger transaction ${t.type} for ${t.sourceId}: sums to ${sum}`);
  const id = newId("ltx");
  // The transaction, its entries and the settlement rows it schedules: one statement.
  await write(sink, () => [
    insertInto(ledgerTransactions, [{ id, environment: t.environment, type: t.type, sourceId: t.sourceId, description: t.description ?? null }]),
    ...(entries.length > 0
      ? [insertInto(ledgerEntries, entries.map((e) => ({
          id: newId("le"), transactionId: id, owner: e.owner, environment: t.environment, currency: t.currency,
          account: e.account, amount: e.amount, type: t.type, sourceId: t.sourceId,
        })))]
      : []),
    ...(settlementRows.length > 0 ? [insertInto(settlements, settlementRows)] : []),
  ]);
  return id;
}

/** Unsettled settlement rows of a charge for an owner, latest due first (refunds eat those). */
export async function openSettlements(tx: Queryable, chargeId: string, owner: string) {
  return tx.select().from(settlements)
    .where(and(eq(settlements.chargeId, chargeId), eq(settlements.owner, owner), isNull(settlements.settledAt)))
    .orderBy(desc(settlements.dueAt), desc(settlements.installment))
    .for("update");
}

export async function setSettlementAmount(tx: Queryable, id: string, amount: number, settledAt: Date | null): Promise<void> {
  await tx.update(settlements).set({ amount, settledAt }).where(eq(settlements.id, id));
}

/** Claims due settlements; SKIP LOCKED lets several workers settle without doing one twice. */
export async function claimDueSettlements(tx: Queryable, f: { dueBy: Date; limit: number; environment?: Environment; owner?: string }) {
  return tx.select().from(settlements)
    .where(allOf([
      isNull(settlements.settledAt),
      lte(settlements.dueAt, f.dueBy),
      f.environment ? eq(settlements.environment, f.environment) : undefined,
      f.owner ? eq(settlements.owner, f.owner) : undefined,
    ]))
    .orderBy(asc(settlements.dueAt))
    .limit(f.limit)
    .for("update", { skipLocked: true });
}

export async function balances(q: Queryable, owner: string, environment: Environment) {
  return q
    .select({ currency: ledgerEntries.currency, account: ledgerEntries.account, amount: sql<string>`sum(${ledgerEntries.amount})` })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.owner, owner), eq(ledgerEntries.environment, environment)))
    .groupBy(ledgerEntries.currency, ledgerEntries.account);
}

/** The balance of one account; the caller holds the lock that serializes debits of it. */
export async function accountBalance(q: Queryable, a: { owner: string; environment: Environment; currency: string; account: Account }): Promise<number> {
  const [row] = await q
    .select({ amount: sql<string>`coalesce(sum(${ledgerEntries.amount}), 0)` })
    .from(ledgerEntries)
    .where(and(
      eq(ledgerEntries.owner, a.owner), eq(ledgerEntries.environment, a.environment),
      eq(ledgerEntries.currency, a.currency), eq(ledgerEntries.account, a.account),
    ));
  return Number(row?.amount ?? 0);
}

export async function listEntries(q: Queryable, owner: string, environment: Environment, query: PageQuery & { type?: string }) {
  const page = pageFilters(query, ledgerEntries);
  const rows = await q.select().from(ledgerEntries)
    .where(allOf([
      eq(ledgerEntries.owner, owner),
      eq(ledgerEntries.environment, environment),
      query.type ? eq(ledgerEntries.type, query.type) : undefined,
      ...page.where,
    ]))
    .orderBy(page.orderBy)
    .limit(page.limit);
  return toPage(rows, query, page.reversed);
}
