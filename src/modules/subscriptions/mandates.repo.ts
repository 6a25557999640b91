import { and, asc, eq, gt, inArray, isNotNull, lte, sql } from "drizzle-orm";
import type { Queryable, Tx } from "../../db/client.js";
import { inScope, type Scope } from "../../db/scope.js";
import type { MandateStatus } from "../../db/schema/statuses.js";
import { mandates } from "../../db/schema.js";
import { derivedSeed, seededId } from "../../lib/ids.js";
import { toMajor } from "../../lib/money.js";
import { recordEvent } from "../webhooks/index.js";

export type MandateRow = typeof mandates.$inferSelect;

/** A subscription's mandate id, derived from the subscription's: a retried sign-up finds it. */
export const mandateIdOf = (subscriptionId: string) => seededId("mdt", derivedSeed(subscriptionId, "mandate"));

/** Inserts; the row already there when a retry of the same sign-up got there first. */
export async function insertMandate(q: Queryable, row: typeof mandates.$inferInsert): Promise<MandateRow> {
  const [inserted] = await q.insert(mandates).values(row).onConflictDoNothing().returning();
  return inserted ?? (await mandateOf(q, row.subscriptionId))!;
}

export async function findMandate(q: Queryable, ctx: Scope, id: string): Promise<MandateRow | undefined> {
  const [row] = await q.select().from(mandates).where(and(inScope(mandates, ctx), eq(mandates.id, id)));
  return row;
}

export async function mandateOf(q: Queryable, subscriptionId: string): Promise<MandateRow | undefined> {
  const [row] = await q.select().from(mandates).where(eq(mandates.subscriptionId, subscriptionId));
  return row;
}

/** Applies the patch only while the mandate is in one of `from`: a racing change loses. */
export async function moveMandate(
  q: Queryable, id: string, from: readonly MandateStatus[], patch: Partial<typeof mandates.$inferInsert>,
): Promise<MandateRow | undefined> {
  const [row] = await q.update(mandates).set({ ...patch, updatedAt: new Date() })
    .where(and(eq(mandates.id, id), inArray(mandates.status, [...from]))).returning();
  return row;
}

/** Takes one of the debits the sandbox was told to fail; false when none is left. */
export async function takeFailedDebit(q: Queryable, id: string): Promise<boolean> {
  const [row] = await q.update(mandates).set({ failDebits: sql`${mandates.failDebits} - 1`, updatedAt: new Date() })
    .where(and(eq(mandates.id, id), gt(mandates.failDebits, 0))).returning({ id: mandates.id });
  return row !== undefined;
}

export async function updateMandate(q: Queryable, id: string, patch: Partial<typeof mandates.$inferInsert>): Promise<void> {
  await q.update(mandates).set({ ...patch, updatedAt: new Date() }).where(eq(mandates.id, id));
}

/** The API's (and the mandate.* events') representation: amounts in currency units. */
export function toMandate(m: MandateRow) {
  return {
    id: m.id,
    livemode: m.environment === "production",
    subscriptionId: m.subscriptionId,
    status: m.status,
    journey: m.journey,
    qrCode: m.qrCode,
    qrCodeImage: m.qrCodeImage,
    expiresAt: m.expiresAt.toISOString(),
    retryPolicy: m.retryPolicy,
    maxAmount: toMajor(m.maxAmount, m.currency),
    currency: m.currency,
    cancelledBy: m.cancelledBy,
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
  };
}

export type MandateEvent = "mandate.activated" | "mandate.rejected" | "mandate.cancelled";

/** Records a mandate event in the caller's transaction: its data is the mandate as the API shows it. */
export async function recordMandateEvent(tx: Tx, type: MandateEvent, m: MandateRow): Promise<void> {
  await recordEvent(tx, { merchantId: m.merchantId, environment: m.environment, type, objectId: m.id, data: toMandate(m) });
}

/**
 * Journey 3: paying the QR's first charge is the payer's authorization (the Central Bank's
 * recorrência is approved with that payment), so the charge's paid status activates the mandate
 * in the charge's own transaction.
 */
export async function activateByFirstPayment(tx: Tx, subscriptionId: string, chargeId: string): Promise<void> {
  const m = await mandateOf(tx, subscriptionId);
  if (!m || m.firstChargeId !== chargeId) return;
  const active = await moveMandate(tx, m.id, ["pending", "expired"], { status: "active" });
  if (active) await recordMandateEvent(tx, "mandate.activated", active);
}

/** Live mandates a notice names by their processor's reference. */
export async function mandatesByProviderRef(q: Queryable, refs: readonly string[]): Promise<MandateRow[]> {
  if (refs.length === 0) return [];
  return q.select().from(mandates).where(and(eq(mandates.environment, "production"), inArray(mandates.providerRef, [...refs])));
}

/**
 * Live mandates still pending or active and not changed or read since `readBefore`, least
 * recently first: the reconciliation's batch (each read touches updatedAt).
 */
export async function openLiveMandates(q: Queryable, limit: number, readBefore: Date): Promise<MandateRow[]> {
  return q.select().from(mandates)
    .where(and(
      eq(mandates.environment, "production"), inArray(mandates.status, ["pending", "active"]), isNotNull(mandates.providerRef),
      lte(mandates.updatedAt, readBefore),
    ))
    .orderBy(asc(mandates.updatedAt)).limit(limit);
}
