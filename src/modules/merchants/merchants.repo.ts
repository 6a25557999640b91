import { and, count, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { inScope, type Environment, type Scope } from "../../db/scope.js";
import { adminKeys, apiKeys, fees, installmentSettings, merchants } from "../../db/schema.js";

export type MerchantRow = typeof merchants.$inferSelect;
export type FeeRow = typeof fees.$inferSelect;

export async function insertMerchant(q: Queryable, row: typeof merchants.$inferInsert): Promise<MerchantRow> {
  const [inserted] = await q.insert(merchants).values(row).onConflictDoNothing().returning();
  return inserted!;
}

export async function findMerchant(q: Queryable, id: string): Promise<MerchantRow | undefined> {
  const [row] = await q.select().from(merchants).where(eq(merchants.id, id));
  return row;
}

export interface StoredInstallmentTerms {
  environment: Environment;
  maxInstallments: number;
  interestFreeInstallments: number;
  monthlyInterestBasisPoints: number;
}

/**
 * The merchant a charge is made for, with its installment settings of both environments, in the
 * one statement that read the merchant alone before (a charge's count of statements is held by
 * test/charges/statement-count.test.ts).
 */
export async function findMerchantForCharge(q: Queryable, id: string): Promise<{ merchant: MerchantRow; installments: StoredInstallmentTerms[] } | undefined> {
  const s = installmentSettings;
  const [row] = await q.select({
    merchant: merchants,
    installments: sql<StoredInstallmentTerms[] | null>`(select json_agg(json_build_object(
      'environment', ${s.environment}, 'maxInstallments', ${s.maxInstallments},
      'interestFreeInstallments', ${s.interestFreeInstallments}, 'monthlyInterestBasisPoints', ${s.monthlyInterestBasisPoints}))
      from ${s} where ${s.merchantId} = ${merchants.id})`,
  }).from(merchants).where(eq(merchants.id, id));
  return row ? { merchant: row.merchant, installments: row.installments ?? [] } : undefined;
}

export async function upsertInstallmentSettings(q: Queryable, row: typeof installmentSettings.$inferInsert): Promise<void> {
  const { merchantId: _m, environment: _e, ...terms } = row;
  await q.insert(installmentSettings).values(row).onConflictDoUpdate({
    target: [installmentSettings.merchantId, installmentSettings.environment], set: { ...terms, updatedAt: new Date() },
  });
}

export async function findMerchantByEmail(q: Queryable, email: string): Promise<MerchantRow | undefined> {
  const [row] = await q.select().from(merchants).where(eq(merchants.email, email));
  return row;
}

export async function updateMerchant(q: Queryable, id: string, patch: Partial<typeof merchants.$inferInsert>): Promise<MerchantRow | undefined> {
  const [row] = await q.update(merchants).set({ ...patch, updatedAt: new Date() }).where(eq(merchants.id, id)).returning();
  return row;
}

export async function countMerchants(q: Queryable): Promise<number> {
  const [row] = await q.select({ n: count() }).from(merchants);
  return row?.n ?? 0;
}

export async function insertApiKey(q: Queryable, row: typeof apiKeys.$inferInsert): Promise<void> {
  await q.insert(apiKeys).values(row);
}

/** Revokes the merchant's active keys: of every environment, or of `environments` only. */
export async function revokeApiKeys(q: Queryable, merchantId: string, at: Date, environments?: readonly Environment[]): Promise<void> {
  if (environments?.length === 0) return;
  await q.update(apiKeys).set({ revokedAt: at }).where(and(
    eq(apiKeys.merchantId, merchantId), isNull(apiKeys.revokedAt),
    environments ? inArray(apiKeys.environment, [...environments]) : undefined,
  ));
}

export async function activeApiKeys(q: Queryable, scope: Scope) {
  return q.select().from(apiKeys).where(and(inScope(apiKeys, scope), isNull(apiKeys.revokedAt)));
}

/** The environments a merchant was ever given a key in, revoked keys included. */
export async function keyEnvironments(q: Queryable, merchantId: string): Promise<Environment[]> {
  const rows = await q.selectDistinct({ environment: apiKeys.environment }).from(apiKeys).where(eq(apiKeys.merchantId, merchantId));
  return rows.map((r) => r.environment).sort();
}

export async function findKeyPrincipal(q: Queryable, keyHash: string) {
  const [row] = await q
    .select({
      keyId: apiKeys.id,
      merchantId: apiKeys.merchantId,
      environment: apiKeys.environment,
      merchantStatus: merchants.status,
    })
    .from(apiKeys)
    .innerJoin(merchants, eq(merchants.id, apiKeys.merchantId))
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)));
  return row;
}

export async function replaceFees(q: Queryable, merchantId: string, rows: (typeof fees.$inferInsert)[]): Promise<void> {
  await q.delete(fees).where(eq(fees.merchantId, merchantId));
  if (rows.length > 0) await q.insert(fees).values(rows);
}

export async function listFees(q: Queryable, merchantId: string): Promise<FeeRow[]> {
  return q.select().from(fees).where(eq(fees.merchantId, merchantId)).orderBy(fees.id);
}

export async function countAdminKeys(q: Queryable): Promise<number> {
  const [row] = await q.select({ n: count() }).from(adminKeys);
  return row?.n ?? 0;
}

export async function insertAdminKey(q: Queryable, row: typeof adminKeys.$inferInsert): Promise<void> {
  await q.insert(adminKeys).values(row);
}

export async function findAdminKey(q: Queryable, keyHash: string) {
  const [row] = await q.select().from(adminKeys).where(eq(adminKeys.keyHash, keyHash));
  return row;
}
