import { and, count, eq, isNull, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { inScope, type Scope } from "../../db/scope.js";
import { postbackSecrets, webhookEndpoints } from "../../db/schema.js";
import type { Environment } from "../../core/context.js";
import { allOf, pageFilters, toPage, type PageQuery } from "../../db/pagination.js";

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type PostbackSecretRow = typeof postbackSecrets.$inferSelect;
export type { Scope };

// A deleted endpoint is kept (its deliveries still point at it) but is invisible everywhere.
const scope = (s: Scope) =>
  and(inScope(webhookEndpoints, s), isNull(webhookEndpoints.deletedAt));

export async function insertEndpoint(q: Queryable, row: typeof webhookEndpoints.$inferInsert): Promise<EndpointRow> {
  const [inserted] = await q.insert(webhookEndpoints).values(row).returning();
  return inserted!;
}

export async function findEndpoint(q: Queryable, s: Scope, id: string): Promise<EndpointRow | undefined> {
  const [row] = await q.select().from(webhookEndpoints).where(and(scope(s), eq(webhookEndpoints.id, id)));
  return row;
}

export async function countEndpoints(q: Queryable, s: Scope): Promise<number> {
  const [row] = await q.select({ n: count() }).from(webhookEndpoints).where(scope(s));
  return Number(row?.n ?? 0);
}

export async function listEndpoints(q: Queryable, s: Scope, query: PageQuery) {
  const page = pageFilters(query, webhookEndpoints);
  const rows = await q
    .select()
    .from(webhookEndpoints)
    .where(allOf([scope(s), ...page.where]))
    .orderBy(page.orderBy)
    .limit(page.limit);
  return toPage(rows, query, page.reversed);
}

export async function updateEndpoint(
  q: Queryable,
  s: Scope,
  id: string,
  patch: Partial<Pick<EndpointRow, "url" | "events" | "enabled" | "description" | "disabledReason" | "failingSince" | "deletedAt">>,
): Promise<EndpointRow | undefined> {
  const [row] = await q
    .update(webhookEndpoints)
    .set({ ...patch, updatedAt: new Date() })
    .where(and(scope(s), eq(webhookEndpoints.id, id)))
    .returning();
  return row;
}

/**
 * Puts a new secret in place and keeps the current one as the previous one for `overlapMs`.
 * One UPDATE reads and writes the row, so two racing rotations serialize on its lock and the
 * second keeps the first one's new secret as its previous one: no secret that was returned
 * to the merchant is ever dropped without its overlap. A second rotation within the overlap
 * thus ends the oldest secret at once.
 */
export async function rotateEndpointSecret(
  q: Queryable,
  s: Scope,
  id: string,
  secretSealed: string,
  overlapMs: number,
): Promise<EndpointRow | undefined> {
  const [row] = await q
    .update(webhookEndpoints)
    .set({
      previousSecretSealed: sql`${webhookEndpoints.secretSealed}`,
      previousSecretExpiresAt: new Date(Date.now() + overlapMs),
      secretSealed,
      updatedAt: new Date(),
    })
    .where(and(scope(s), eq(webhookEndpoints.id, id)))
    .returning();
  return row;
}

/** The endpoints of a merchant and environment that receive `type` now (redelivery). */
export async function matchingEndpoints(q: Queryable, s: Scope, type: string): Promise<EndpointRow[]> {
  const rows = await q.select().from(webhookEndpoints).where(and(scope(s), eq(webhookEndpoints.enabled, true)));
  return rows.filter((e) => e.events.includes("*") || e.events.includes(type));
}

export async function findPostbackSecret(q: Queryable, s: Scope): Promise<PostbackSecretRow | undefined> {
  const [row] = await q
    .select()
    .from(postbackSecrets)
    .where(inScope(postbackSecrets, s));
  return row;
}

/** Inserts unless one exists; two racing first uses both read back the one that won. */
export async function insertPostbackSecretIfAbsent(q: Queryable, s: Scope, secretSealed: string): Promise<void> {
  await q.insert(postbackSecrets).values({ merchantId: s.merchantId, environment: s.environment, secretSealed }).onConflictDoNothing();
}

/** As rotateEndpointSecret; a rotation before first use just creates the secret. */
export async function rotatePostbackSecret(q: Queryable, s: Scope, secretSealed: string, overlapMs: number): Promise<PostbackSecretRow> {
  const [row] = await q
    .insert(postbackSecrets)
    .values({ merchantId: s.merchantId, environment: s.environment, secretSealed })
    .onConflictDoUpdate({
      target: [postbackSecrets.merchantId, postbackSecrets.environment],
      // In ON CONFLICT, the table's own columns are the existing row: its secret becomes the previous one.
      set: {
        previousSecretSealed: sql`${postbackSecrets.secretSealed}`,
        previousSecretExpiresAt: new Date(Date.now() + overlapMs),
        secretSealed,
        createdAt: new Date(),
      },
    })
    .returning();
  return row!;
}
