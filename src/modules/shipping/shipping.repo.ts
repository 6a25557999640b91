import { and, eq, gt, lt, sql } from "drizzle-orm";
import type { Queryable, Tx } from "../../db/client.js";
import { inScope, type Scope } from "../../db/scope.js";
import { freightQuotes, shippingIntegrations, shippingOauthStates } from "../../db/schema.js";
import type { RequestCtx } from "../../core/context.js";

export type IntegrationRow = typeof shippingIntegrations.$inferSelect;

const scope = (s: Scope) => inScope(shippingIntegrations, s);

export async function findIntegration(q: Queryable, s: Scope): Promise<IntegrationRow | undefined> {
  const [row] = await q.select().from(shippingIntegrations).where(scope(s));
  return row;
}

/** The row lock that makes concurrent refreshes happen once: the second waits, then re-reads. */
export async function lockIntegration(tx: Tx, s: Scope): Promise<IntegrationRow | undefined> {
  const [row] = await tx.select().from(shippingIntegrations).where(scope(s)).for("update");
  return row;
}

export async function anyActive(q: Queryable, merchantId: string, environment?: "sandbox" | "production"): Promise<boolean> {
  const rows = await q.select({ status: shippingIntegrations.status }).from(shippingIntegrations)
    .where(and(eq(shippingIntegrations.merchantId, merchantId), eq(shippingIntegrations.status, "active"),
      environment ? eq(shippingIntegrations.environment, environment) : undefined));
  return rows.length > 0;
}

/** New credentials start a new connection: tokens of the old app are dropped. */
export async function saveCredentials(q: Queryable, s: Scope, clientId: string, clientSecretSealed: string): Promise<void> {
  const values = { clientId, clientSecretSealed, accessTokenSealed: null, refreshTokenSealed: null, tokenExpiresAt: null, status: "inactive" as const, updatedAt: new Date() };
  await q.insert(shippingIntegrations).values({ ...s, ...values })
    .onConflictDoUpdate({ target: [shippingIntegrations.merchantId, shippingIntegrations.environment], set: values });
}

export async function saveTokens(q: Queryable, s: Scope, t: { accessTokenSealed: string; refreshTokenSealed: string; tokenExpiresAt: Date }, activate: boolean): Promise<void> {
  await q.update(shippingIntegrations)
    .set({ ...t, ...(activate ? { status: "active" as const } : {}), updatedAt: new Date() })
    .where(scope(s));
}

export async function updateSettings(q: Queryable, s: Scope, originPostalCode: string, enabledServices: number[]): Promise<void> {
  await q.update(shippingIntegrations).set({ originPostalCode, enabledServices, updatedAt: new Date() }).where(scope(s));
}

/** Disconnect or a refused refresh: tokens are forgotten, settings and credentials kept. */
export async function deactivate(q: Queryable, s: Scope): Promise<boolean> {
  const rows = await q.update(shippingIntegrations)
    .set({ status: "inactive", accessTokenSealed: null, refreshTokenSealed: null, tokenExpiresAt: null, updatedAt: new Date() })
    .where(and(scope(s), eq(shippingIntegrations.status, "active")))
    .returning({ merchantId: shippingIntegrations.merchantId });
  return rows.length > 0;
}

export async function insertState(q: Queryable, row: { nonce: string; merchantId: string; environment: "sandbox" | "production"; expiresAt: Date }) {
  await q.insert(shippingOauthStates).values(row);
  // Unused states of anyone that ran out are of no further use.
  await q.delete(shippingOauthStates).where(lt(shippingOauthStates.expiresAt, sql`now() - interval '1 hour'`));
}

/** Consumes a state once: the DELETE lets exactly one of two racing callbacks have it. */
export async function consumeState(q: Queryable, nonce: string, s: Scope): Promise<boolean> {
  const rows = await q.delete(shippingOauthStates)
    .where(and(eq(shippingOauthStates.nonce, nonce), inScope(shippingOauthStates, s), gt(shippingOauthStates.expiresAt, sql`now()`)))
    .returning({ nonce: shippingOauthStates.nonce });
  return rows.length > 0;
}

export async function cachedQuote(q: Queryable, key: string): Promise<Record<string, unknown>[] | undefined> {
  const [row] = await q.select({ options: freightQuotes.options }).from(freightQuotes)
    .where(and(eq(freightQuotes.key, key), gt(freightQuotes.expiresAt, sql`now()`)));
  return row?.options;
}

export async function storeQuote(q: Queryable, key: string, paymentLinkId: string, options: Record<string, unknown>[], ttlSeconds: number): Promise<void> {
  const expiresAt = sql`now() + make_interval(secs => ${ttlSeconds})`;
  await q.insert(freightQuotes).values({ key, paymentLinkId, options, expiresAt })
    .onConflictDoUpdate({ target: freightQuotes.key, set: { options, expiresAt } });
  // Expired quotes are swept as new ones are written (the expiry index keeps this cheap).
  await q.delete(freightQuotes).where(lt(freightQuotes.expiresAt, sql`now() - interval '1 hour'`));
}
