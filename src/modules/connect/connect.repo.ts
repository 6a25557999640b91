import { and, asc, count, desc, eq, gte, inArray, lt, sql, type AnyColumn } from "drizzle-orm";
import { queryRows, type Queryable } from "../../db/client.js";
import { chargeSalesRollups, chargeSalesTail, connectSettings, merchants, submerchantDocuments, submerchants } from "../../db/schema.js";
import { inScope, inScopes, type Environment, type Scope } from "../../db/scope.js";
import { allOf } from "../../db/pagination.js";
import type { SubmerchantStatus } from "./submerchant-status.js";

export type SubmerchantRow = typeof submerchants.$inferSelect;
export type DocumentRow = typeof submerchantDocuments.$inferSelect;
type SplitShares = (typeof connectSettings.$inferInsert)["defaultSplit"];

/** A submerchant's registration belongs to its master and the environment that registered it. */
const REGISTRATION = { merchantId: submerchants.parentId, environment: submerchants.environment };

/** Seen by the submerchant itself: its own id, in the environment it was registered in. */
const OWN = { merchantId: submerchants.id, environment: submerchants.environment };

/** Who a merchant is for Connect: a master (Connect enabled or not) or a submerchant. */
export interface ConnectAccount {
  id: string;
  parentId: string | null;
  connectEnabled: boolean;
  /** The submerchant's accreditation status; null for masters. */
  status: SubmerchantStatus | null;
  /** The environment a submerchant was registered in (it exists in no other); null for masters. */
  environment: Environment | null;
}

const ACCOUNT = {
  id: merchants.id, parentId: merchants.parentId, connectEnabled: merchants.connectEnabled,
  status: submerchants.status, environment: submerchants.environment,
};
const account = <R extends { status: string | null; environment: Environment | null }>(r: R) =>
  ({ ...r, status: r.status ?? null, environment: r.environment ?? null });

export async function findAccounts(q: Queryable, ids: string[]): Promise<ConnectAccount[]> {
  if (ids.length === 0) return [];
  const rows = await q.select(ACCOUNT).from(merchants)
    .leftJoin(submerchants, eq(submerchants.id, merchants.id))
    .where(inArray(merchants.id, ids));
  return rows.map(account);
}

/** The account and its default split in this scope, in one query (it runs on every charge). */
export async function findAccountWithSettings(q: Queryable, scope: Scope) {
  const [row] = await q
    .select({ ...ACCOUNT, defaultSplit: connectSettings.defaultSplit })
    .from(merchants)
    .leftJoin(submerchants, eq(submerchants.id, merchants.id))
    .leftJoin(connectSettings, and(eq(connectSettings.merchantId, merchants.id), inScope(connectSettings, scope)))
    .where(eq(merchants.id, scope.merchantId));
  return row ? account(row) : undefined;
}

export async function insertSubmerchant(tx: Queryable, row: typeof submerchants.$inferInsert): Promise<SubmerchantRow | undefined> {
  const [inserted] = await tx.insert(submerchants).values(row).onConflictDoNothing().returning();
  return inserted;
}

/** A submerchant of the master's scope (undefined for another master's or environment's). */
export async function findSubmerchant(q: Queryable, master: Scope, id: string): Promise<SubmerchantRow | undefined> {
  const [row] = await q.select().from(submerchants).where(and(eq(submerchants.id, id), inScope(REGISTRATION, master)));
  return row;
}

/** The registration of the submerchant asking with its own key, in the key's environment. */
export async function findOwnRegistration(q: Queryable, own: Scope): Promise<SubmerchantRow | undefined> {
  const [row] = await q.select().from(submerchants).where(inScope(OWN, own));
  return row;
}

/** By id alone: the operator's admin routes, which are above every merchant and environment. */
export async function findSubmerchantForAdmin(q: Queryable, id: string): Promise<SubmerchantRow | undefined> {
  const [row] = await q.select().from(submerchants).where(eq(submerchants.id, id));
  return row;
}

/** Taken after the scope check: serializes one submerchant's payouts. */
/** The submerchants' holdDays (a merchant that is no submerchant holds nothing). */
export async function holdDaysOf(q: Queryable, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await q.select({ id: submerchants.id, holdDays: submerchants.holdDays }).from(submerchants).where(inArray(submerchants.id, ids));
  return new Map(rows.map((r) => [r.id, r.holdDays]));
}

export async function setHoldDays(q: Queryable, id: string, holdDays: number): Promise<SubmerchantRow | undefined> {
  const [row] = await q.update(submerchants).set({ holdDays, updatedAt: new Date() }).where(eq(submerchants.id, id)).returning();
  return row;
}

export async function lockSubmerchant(tx: Queryable, id: string): Promise<void> {
  await tx.select({ id: submerchants.id }).from(submerchants).where(eq(submerchants.id, id)).for("update");
}

export async function taxIdTaken(q: Queryable, master: Scope, companyTaxId: string): Promise<boolean> {
  const [row] = await q.select({ id: submerchants.id }).from(submerchants)
    .where(and(inScope(REGISTRATION, master), eq(submerchants.companyTaxId, companyTaxId)));
  return Boolean(row);
}

/** Applies a status move only if the submerchant is still in `from`. */
export async function transition(
  tx: Queryable, id: string, from: SubmerchantStatus, to: SubmerchantStatus, patch: Partial<typeof submerchants.$inferInsert>,
): Promise<SubmerchantRow | undefined> {
  const [row] = await tx.update(submerchants)
    .set({ ...patch, status: to, updatedAt: new Date() })
    .where(and(eq(submerchants.id, id), eq(submerchants.status, from)))
    .returning();
  return row;
}

export interface SubmerchantFilters {
  master: Scope;
  statuses?: SubmerchantStatus[];
  companyTaxId?: string;
  legalName?: string;
  tradeName?: string;
  currency?: string;
  days: { column: keyof typeof DAY_COLUMNS; start: Date; end: Date }[];
  order: { field: keyof typeof ORDER_COLUMNS; descending: boolean }[];
  limit: number;
  offset: number;
}

const DAY_COLUMNS = {
  createdAt: submerchants.createdAt,
  updatedAt: submerchants.updatedAt,
  approvedAt: submerchants.approvedAt,
  rejectedAt: submerchants.rejectedAt,
  blockedAt: submerchants.blockedAt,
  inactivatedAt: submerchants.inactivatedAt,
};

const ORDER_COLUMNS = {
  createdAt: submerchants.createdAt,
  updatedAt: submerchants.updatedAt,
  tradeName: submerchants.tradeName,
  legalName: submerchants.legalName,
  companyTaxId: submerchants.companyTaxId,
  status: submerchants.status,
  approvedAt: submerchants.approvedAt,
};

// A substring match with position(), not LIKE: the caller's % and _ are plain characters.
const contains = (column: AnyColumn, text: string) => sql`position(lower(${text}) in lower(${column})) > 0`;

export async function listSubmerchants(q: Queryable, f: SubmerchantFilters): Promise<{ rows: SubmerchantRow[]; total: number }> {
  const where = allOf([
    inScope(REGISTRATION, f.master),
    f.statuses ? inArray(submerchants.status, f.statuses) : undefined,
    f.companyTaxId ? eq(submerchants.companyTaxId, f.companyTaxId) : undefined,
    f.legalName ? contains(submerchants.legalName, f.legalName) : undefined,
    f.tradeName ? contains(submerchants.tradeName, f.tradeName) : undefined,
    f.currency ? eq(submerchants.currency, f.currency) : undefined,
    ...f.days.flatMap((d) => [gte(DAY_COLUMNS[d.column], d.start), lt(DAY_COLUMNS[d.column], d.end)]),
  ]);
  const [totalRow] = await q.select({ n: count() }).from(submerchants).where(where);
  // Names sort case-insensitively and by code point, the same on every server whatever its
  // collation (PGlite sorts as C, a PostgreSQL server often as en_US).
  const key = (field: keyof typeof ORDER_COLUMNS) =>
    field === "tradeName" || field === "legalName" ? sql`lower(${ORDER_COLUMNS[field]}) collate "C"` : sql`${ORDER_COLUMNS[field]}`;
  const order = f.order.map((o) => (o.descending ? sql`${key(o.field)} desc nulls last` : sql`${key(o.field)} asc nulls last`));
  const rows = await q.select().from(submerchants).where(where)
    .orderBy(...order, desc(submerchants.id))
    .limit(f.limit).offset(f.offset);
  return { rows, total: totalRow?.n ?? 0 };
}

/**
 * Paid charges (refunded ones included) per submerchant, in one environment: the rollup row plus
 * the tail's deltas not rolled up yet (migration 0021 keeps both from the charges' triggers). One
 * statement, so both parts come from one snapshot: a rollup committing meanwhile is seen whole
 * (its tail rows gone and its sums added) or not at all.
 */
export async function totalSales(q: Queryable, ids: string[], environment: Environment): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows<{ merchant_id: string; n: number }>(q, sql`
    select merchant_id, sum(n)::int as n from (
      select merchant_id, sales as n from ${chargeSalesRollups} where ${inScopes(chargeSalesRollups, ids, environment)}
      union all
      select merchant_id, delta from ${chargeSalesTail} where ${inScopes(chargeSalesTail, ids, environment)}
    ) s
    group by merchant_id`);
  return new Map(rows.map((r) => [r.merchant_id, Number(r.n)]));
}

/**
 * Folds up to `limit` tail rows into charge_sales_rollups; returns how many. One statement, so a
 * row leaves the tail and is added to its sum together or not at all. Rows are claimed with FOR
 * UPDATE SKIP LOCKED, so concurrent runs (several workers) take different rows; rows of charges
 * not committed yet are invisible and wait for a later run. The claimed rows are deleted by their
 * ctids as an array (a Tid Scan): a join on ctid is a hash join over the whole tail, which makes
 * working through a backlog quadratic. Sums are added in key order, so two runs lock rollup rows
 * in the same order and cannot deadlock on them.
 */
export async function rollUpSales(q: Queryable, limit: number): Promise<number> {
  const [row] = await queryRows<{ rows: string | number }>(q, sql`
    with batch as (
      select ctid from charge_sales_tail limit ${limit} for update skip locked
    ), taken as (
      delete from charge_sales_tail t where t.ctid = any (array(select ctid from batch))
      returning t.merchant_id, t.environment, t.delta
    ), added as (
      insert into charge_sales_rollups (merchant_id, environment, sales)
      select merchant_id, environment, sum(delta) from taken
      group by merchant_id, environment
      order by merchant_id, environment
      on conflict (merchant_id, environment) do update set sales = charge_sales_rollups.sales + excluded.sales
      returning 1
    )
    select (select count(*) from taken) as rows, (select count(*) from added) as sums`);
  return Number(row?.rows ?? 0);
}

export async function upsertDocuments(tx: Queryable, rows: (typeof submerchantDocuments.$inferInsert)[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.insert(submerchantDocuments).values(rows).onConflictDoUpdate({
    target: [submerchantDocuments.submerchantId, submerchantDocuments.kind],
    set: {
      id: sql`excluded.id`, contentType: sql`excluded.content_type`, size: sql`excluded.size`,
      sha256: sql`excluded.sha256`, contentSealed: sql`excluded.content_sealed`, uploadedAt: sql`excluded.uploaded_at`,
    },
  });
}

/** Metadata only: the sealed content is read by findDocumentContent alone. */
export async function listDocuments(q: Queryable, submerchantId: string) {
  return q.select({
    id: submerchantDocuments.id, kind: submerchantDocuments.kind, contentType: submerchantDocuments.contentType,
    size: submerchantDocuments.size, sha256: submerchantDocuments.sha256, uploadedAt: submerchantDocuments.uploadedAt,
  }).from(submerchantDocuments).where(eq(submerchantDocuments.submerchantId, submerchantId)).orderBy(asc(submerchantDocuments.kind));
}

export async function findDocumentContent(q: Queryable, submerchantId: string, documentId: string): Promise<DocumentRow | undefined> {
  const [row] = await q.select().from(submerchantDocuments)
    .where(and(eq(submerchantDocuments.submerchantId, submerchantId), eq(submerchantDocuments.id, documentId)));
  return row;
}

export async function upsertSettings(q: Queryable, scope: Scope, defaultSplit: SplitShares): Promise<void> {
  const row = { merchantId: scope.merchantId, environment: scope.environment, defaultSplit };
  await q.insert(connectSettings).values(row).onConflictDoUpdate({
    target: [connectSettings.merchantId, connectSettings.environment],
    set: { defaultSplit: row.defaultSplit, updatedAt: new Date() },
  });
}
