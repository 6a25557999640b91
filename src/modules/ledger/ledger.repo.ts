import { and, asc, desc, eq, isNull, lte, sql } from "drizzle-orm";
import { insertInto, write, type Sink } from "../../db/batch.js";
import { queryRows, type Queryable } from "../../db/client.js";
import { inScope, inScopeSql, type Scope } from "../../db/scope.js";
import { ledgerEntries, ledgerTransactions, settlements } from "../../db/schema.js";
import type { Environment } from "../../core/context.js";
import { allOf, pageFilters, toPage, type PageQuery } from "../../db/pagination.js";
import { newId } from "../../lib/ids.js";

/** The owner of the platform's accounts (every other owner is a merchant id). */
export const PLATFORM = "platform";

export interface EntryInput {
  owner: string;
  account: Account;
  amount: number;
}

/**
 * A merchant's balances are pending, available, held (shares of split rules with hold: true,
 * until released) and payout_reserved (requested payouts awaiting approval); the platform's are the processor receivable, fee revenue, paid_out (payouts sent)
 * and refund_payable (late payments owed back to their payers until the refund is confirmed).
 */
export type Account = "pending" | "available" | "held" | "payout_reserved" | "processor_receivable" | "fee_revenue" | "paid_out" | "refund_payable"
  | AtProviderAccount;

/**
 * A seller's money the processor holds for it in `provider` settlement (docs/guarantees.md, "Money in provider settlement"):
 * its share of charges settled at that processor, paid to it by the processor, never by a feira
 * payout. One account per processor, so the balance names where the money is.
 */
export type AtProviderAccount = `at_provider:${string}`;
export const atProviderAccount = (processor: string): AtProviderAccount => `at_provider:${processor}`;

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

/** The entries of the one transaction posted once as (type, source) (ledger_tx_once_idx). */
export async function entriesOfOnce(q: Queryable, type: string, sourceId: string): Promise<EntryInput[]> {
  const rows = await q.select({ owner: ledgerEntries.owner, account: ledgerEntries.account, amount: ledgerEntries.amount })
    .from(ledgerEntries).where(and(eq(ledgerEntries.type, type), eq(ledgerEntries.sourceId, sourceId)));
  return rows.map((r) => ({ owner: r.owner, account: r.account as Account, amount: r.amount }));
}

/** Unsettled settlement rows of a charge for an owner, held ones first, then latest due first (refunds eat those). */
export async function openSettlements(tx: Queryable, chargeId: string, owner: string) {
  return tx.select().from(settlements)
    .where(and(eq(settlements.chargeId, chargeId), eq(settlements.owner, owner), isNull(settlements.settledAt)))
    .orderBy(sql`${settlements.hold} is null`, desc(settlements.dueAt), desc(settlements.installment))
    .for("update");
}

/**
 * Ends the holds of a charge's rows (of one owner, or all): one guarded UPDATE, so a second
 * release, or two at once, finds nothing left to move. Answers the rows it released.
 */
export async function releaseHeld(tx: Queryable, chargeId: string, owner?: string) {
  return tx.update(settlements).set({ hold: null })
    .where(allOf([eq(settlements.chargeId, chargeId), eq(settlements.hold, "release"), isNull(settlements.settledAt), owner ? eq(settlements.owner, owner) : undefined]))
    .returning();
}

export async function setSettlementAmount(tx: Queryable, id: string, amount: number, settledAt: Date | null): Promise<void> {
  await tx.update(settlements).set({ amount, settledAt }).where(eq(settlements.id, id));
}

/** Claims due settlements; SKIP LOCKED lets several workers settle without doing one twice. */
export async function claimDueSettlements(tx: Queryable, f: { dueBy: Date; limit: number; environment?: Environment; owner?: string }) {
  return tx.select().from(settlements)
    .where(allOf([
      isNull(settlements.settledAt),
      // A held row settles only once released.
      isNull(settlements.hold),
      lte(settlements.dueAt, f.dueBy),
      f.environment ? eq(settlements.environment, f.environment) : undefined,
      f.owner ? eq(settlements.owner, f.owner) : undefined,
    ]))
    .orderBy(asc(settlements.dueAt))
    .limit(f.limit)
    .for("update", { skipLocked: true });
}

// Running balances. An entry is counted in its account's ledger_rollups row once rollUpEntries
// has marked it rolled_up, and until then it is in the tail (not rolled_up, read through the
// partial index ledger_entries_unrolled_idx). Each read below is one statement, so the rollups
// and the tail come from one snapshot: a rollup committing meanwhile is seen whole (its entries
// flagged and its sums added) or not at all, and no entry is counted twice or missed.

/** An owner's balances per currency and account: the sums of all its entries. */
export async function balances(q: Queryable, scope: Scope) {
  return queryRows<{ currency: string; account: string; amount: string }>(q, sql`
    select currency, account, sum(amount)::text as amount from (
      select currency, account, amount from ledger_rollups where ${inScopeSql(scope, "owner")}
      union all
      select currency, account, amount from ledger_entries where ${inScopeSql(scope, "owner")} and not rolled_up
    ) b
    group by currency, account
    order by currency, account`);
}

/** The balance of one account; the caller holds the lock that serializes debits of it. */
export async function accountBalance(q: Queryable, scope: Scope, a: { currency: string; account: Account }): Promise<number> {
  const [row] = await queryRows<{ amount: string }>(q, sql`
    select coalesce(sum(amount), 0)::text as amount from (
      select amount from ledger_rollups
      where ${inScopeSql(scope, "owner")} and currency = ${a.currency} and account = ${a.account}
      union all
      select amount from ledger_entries
      where ${inScopeSql(scope, "owner")} and currency = ${a.currency} and account = ${a.account} and not rolled_up
    ) b`);
  return Number(row?.amount ?? 0);
}

/** What an owner's sellers' accounts at processors hold in one currency (every atProvider account). */
export async function atProviderTotal(q: Queryable, scope: Scope, currency: string): Promise<number> {
  const like = `${atProviderAccount("")}%`;
  const [row] = await queryRows<{ amount: string }>(q, sql`
    select coalesce(sum(amount), 0)::text as amount from (
      select amount from ledger_rollups
      where ${inScopeSql(scope, "owner")} and currency = ${currency} and account like ${like}
      union all
      select amount from ledger_entries
      where ${inScopeSql(scope, "owner")} and currency = ${currency} and account like ${like} and not rolled_up
    ) b`);
  return Number(row?.amount ?? 0);
}

/**
 * Rolls up to `limit` entries into ledger_rollups; returns how many. One statement, so an entry
 * is flagged and added to its account's sum together or not at all (a crash or an error leaves
 * both as they were). Entries are claimed with FOR UPDATE SKIP LOCKED, so concurrent runs (several
 * workers) take different entries; an entry another run rolled up meanwhile fails the recheck of
 * `not rolled_up` under its lock and is left out. Entries of transactions not committed yet are
 * invisible here and stay in the tail until a later run. The sums are added in key order, so two
 * runs lock rollup rows in the same order and cannot deadlock on them.
 */
export async function rollUpEntries(q: Queryable, limit: number): Promise<number> {
  const [row] = await queryRows<{ entries: string | number }>(q, sql`
    with batch as (
      select id from ledger_entries where not rolled_up limit ${limit} for update skip locked
    ), flagged as (
      update ledger_entries e set rolled_up = true from batch
      where e.id = batch.id and not e.rolled_up
      returning e.owner, e.environment, e.currency, e.account, e.amount
    ), added as (
      insert into ledger_rollups (owner, environment, currency, account, amount)
      select owner, environment, currency, account, sum(amount) from flagged
      group by owner, environment, currency, account
      order by owner, environment, currency, account
      on conflict (owner, environment, currency, account) do update set amount = ledger_rollups.amount + excluded.amount
      returning 1
    )
    select (select count(*) from flagged) as entries, (select count(*) from added) as accounts`);
  return Number(row?.entries ?? 0);
}

/** A ledger account's owner is a merchant: its entries are scoped like any merchant's data. */
const LEDGER_OWNER = { merchantId: ledgerEntries.owner, environment: ledgerEntries.environment };

export async function listEntries(q: Queryable, scope: Scope, query: PageQuery & { type?: string }) {
  const page = pageFilters(query, ledgerEntries);
  const rows = await q.select().from(ledgerEntries)
    .where(allOf([
      inScope(LEDGER_OWNER, scope),
      query.type ? eq(ledgerEntries.type, query.type) : undefined,
      ...page.where,
    ]))
    .orderBy(page.orderBy)
    .limit(page.limit);
  return toPage(rows, query, page.reversed);
}
