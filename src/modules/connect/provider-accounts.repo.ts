import { and, asc, eq, inArray, isNotNull, lt } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { submerchantProviderAccounts as accounts } from "../../db/schema.js";
import { inScope, type Environment, type Scope } from "../../db/scope.js";

// SQL of a submerchant's accounts at processors (schema/connect.ts tells the row's life). A
// submerchant's accounts are managed in its master's scope (parent_id, environment).

export type ProviderAccountRow = typeof accounts.$inferSelect;
export type ProviderAccountStatus = ProviderAccountRow["status"];

const SCOPE = { merchantId: accounts.parentId, environment: accounts.environment };

/** A submerchant's account at a processor when it is active: what a split at that processor names. */
export async function activeProviderAccount(
  q: Queryable, key: { submerchantId: string; processor: string; environment: Environment },
): Promise<(ProviderAccountRow & { externalId: string }) | undefined> {
  const [row] = await q.select().from(accounts).where(and(
    eq(accounts.submerchantId, key.submerchantId), eq(accounts.processor, key.processor),
    eq(accounts.status, "active"), inScope({ merchantId: accounts.submerchantId, environment: accounts.environment }, { merchantId: key.submerchantId, environment: key.environment }),
  ));
  return row?.externalId ? { ...row, externalId: row.externalId } : undefined;
}

/** Every account of a submerchant (any status), by processor. */
export async function listProviderAccounts(q: Queryable, scope: Scope, submerchantId: string): Promise<ProviderAccountRow[]> {
  return q.select().from(accounts)
    .where(and(inScope(SCOPE, scope), eq(accounts.submerchantId, submerchantId)))
    .orderBy(asc(accounts.processor));
}

export async function findProviderAccount(q: Queryable, scope: Scope, submerchantId: string, processor: string): Promise<ProviderAccountRow | undefined> {
  const [row] = await q.select().from(accounts)
    .where(and(inScope(SCOPE, scope), eq(accounts.submerchantId, submerchantId), eq(accounts.processor, processor)));
  return row;
}

/** Claims the account before the processor is called; undefined when one exists already. */
export async function insertProviderAccount(q: Queryable, row: typeof accounts.$inferInsert): Promise<ProviderAccountRow | undefined> {
  const [inserted] = await q.insert(accounts).values(row).onConflictDoNothing().returning();
  return inserted;
}

type AccountChange = Partial<Pick<ProviderAccountRow,
  "status" | "reason" | "externalId" | "details" | "stateNonce" | "accessTokenSealed" | "refreshTokenSealed" | "tokenExpiresAt" | "checkedAt">>;

export async function updateProviderAccount(q: Queryable, scope: Scope, submerchantId: string, processor: string, change: AccountChange): Promise<ProviderAccountRow | undefined> {
  const [row] = await q.update(accounts).set({ ...change, updatedAt: new Date() })
    .where(and(inScope(SCOPE, scope), eq(accounts.submerchantId, submerchantId), eq(accounts.processor, processor)))
    .returning();
  return row;
}

/**
 * Consumes an OAuth state's nonce once, in the scope and for the submerchant the signed state
 * names: the account, or undefined when the nonce is unknown, already used or another's (a
 * replayed callback connects nothing and writes nothing).
 */
export async function consumeStateNonce(q: Queryable, scope: Scope, submerchantId: string, nonce: string): Promise<ProviderAccountRow | undefined> {
  const [row] = await q.update(accounts).set({ stateNonce: null, updatedAt: new Date() })
    .where(and(inScope(SCOPE, scope), eq(accounts.submerchantId, submerchantId), eq(accounts.stateNonce, nonce))).returning();
  return row;
}

/** The account locked for its token's renewal (one renewal however many ask at once). */
export async function lockProviderAccount(q: Queryable, scope: Scope, submerchantId: string, processor: string): Promise<ProviderAccountRow | undefined> {
  const [row] = await q.select().from(accounts)
    .where(and(inScope(SCOPE, scope), eq(accounts.submerchantId, submerchantId), eq(accounts.processor, processor))).for("update");
  return row;
}

/**
 * The accounts, of every merchant, a processor knows by `externalId` (a notice names the account
 * it is about: Mercado Pago's user_id), active ones first.
 */
export async function providerAccountsByExternalId(q: Queryable, processor: string, externalId: string): Promise<ProviderAccountRow[]> {
  const rows = await q.select().from(accounts).where(and(eq(accounts.processor, processor), eq(accounts.externalId, externalId)));
  return rows.sort((a, b) => Number(b.status === "active") - Number(a.status === "active"));
}

/** Active accounts, of every merchant, with a sealed token that expires before `before` (the refresh job's list). */
export async function tokensExpiringBefore(q: Queryable, before: Date): Promise<ProviderAccountRow[]> {
  return q.select().from(accounts).where(and(
    eq(accounts.status, "active"),
    isNotNull(accounts.refreshTokenSealed), lt(accounts.tokenExpiresAt, before),
  ));
}


/** The accounts of several submerchants of one master's scope, by submerchant (a list's page). */
export async function providerAccountsOf(q: Queryable, scope: Scope, submerchantIds: string[]): Promise<Map<string, ProviderAccountRow[]>> {
  const out = new Map<string, ProviderAccountRow[]>();
  if (submerchantIds.length === 0) return out;
  const rows = await q.select().from(accounts)
    .where(and(inScope(SCOPE, scope), inArray(accounts.submerchantId, submerchantIds)))
    .orderBy(asc(accounts.processor));
  for (const r of rows) out.set(r.submerchantId, [...(out.get(r.submerchantId) ?? []), r]);
  return out;
}

/** An account as answers show it: never a token, never more than four digits of a bank account. */
export function accountView(r: ProviderAccountRow) {
  // An Efí account's id is the seller's account number: shown by its last four digits (details.account).
  // A seller's public key at the processor is kept for its calls, not shown.
  const { publicKey: _kept, ...details } = r.details;
  return { processor: r.processor, id: r.details.account ?? r.externalId, status: r.status, reason: r.reason, details, updatedAt: r.updatedAt.toISOString() };
}
