import { and, asc, desc, eq, gt, inArray, isNull, ne, or, sql } from "drizzle-orm";
import type { Queryable } from "../../../db/client.js";
import { charges } from "../../../db/schema.js";
import type { LatePaymentStatus } from "../../../db/schema/statuses.js";
import type { ChargeRow } from "../charges.mapper.js";

// The reads of provider synchronisation. A provider webhook carries no merchant: a charge is
// found by its processor's reference, only among production charges that processor served
// (sandbox charges never reach a provider).

const SIMULATOR = "sandbox";
const live = () => and(eq(charges.environment, "production"), ne(charges.processor, SIMULATOR));

/** The production charge `processor` served under `ref`: feira's own id (the provider's reference) or the provider's id. */
export async function findLiveCharge(q: Queryable, processor: string, ref: string): Promise<ChargeRow | undefined> {
  // `environment = 'production'` as a literal, not a parameter: it is the predicate of the
  // partial index charges_live_psp_ref_idx, which a planner can use only when it sees the value
  // (a generic plan of `environment = $1` could not). The id side uses the primary key.
  const [row] = await q.select().from(charges).where(and(
    sql`${charges.environment} = 'production'`, eq(charges.processor, processor),
    or(eq(charges.id, ref), eq(charges.pspRefId, ref)),
    // The latest first: a Pix Automático period's retries are attempts of one cobr (one reference
    // for several charges), and the notice is about the attempt still open, never a refused one.
  )).orderBy(desc(charges.createdAt)).limit(1);
  return row;
}

/**
 * Where a reconciliation round stopped: the id of the last charge it read. Ids begin with their
 * time, so id order is creation order but for the rare retry that took a claim over late, and
 * the rotation only needs an order that every charge has one place in. (A cursor on created_at
 * read back as a JavaScript Date would lose its microseconds: a round would read again the
 * charges of its last millisecond, and stall if a whole batch shared one.)
 */
export interface OpenChargeCursor { id: string }

/** Live charges still waiting for the provider's word, oldest first; after `after` when given. */
export async function openLiveCharges(q: Queryable, limit: number, after?: OpenChargeCursor): Promise<ChargeRow[]> {
  // The environment, the statuses and the simulator as literals: they are the predicate of the
  // partial index charges_live_open_idx, which a generic plan of parameters could not use.
  return q.select().from(charges).where(and(
    sql`${charges.environment} = 'production' and ${charges.status} in ('pending', 'in_analysis', 'authentication_required') and ${charges.processor} <> ${sql.raw(`'${SIMULATOR}'`)}`,
    after ? gt(charges.id, after.id) : undefined,
  )).orderBy(asc(charges.id)).limit(limit);
}

/**
 * Settled live charges read at their provider least recently: paid ones since `paidSince` (a
 * chargeback may come months later) and expired or cancelled ones since `expiredSince` (a boleto
 * paid late, a debit cancelled too late to stop it).
 */
export async function settledLiveCharges(q: Queryable, w: { paidSince: Date; expiredSince: Date }, limit: number): Promise<ChargeRow[]> {
  const lastRead = sql`coalesce(${charges.providerCheckedAt}, ${charges.updatedAt})`;
  return q.select().from(charges).where(and(
    eq(charges.environment, "production"), ne(charges.processor, SIMULATOR),
    sql`(${charges.status} = 'paid' or (${charges.status} = 'failed' and ${charges.reason} in ('expired', 'canceled')))`,
    sql`(${charges.paidAt} >= ${w.paidSince} or ${charges.expiresAt} >= ${w.expiredSince})`,
  )).orderBy(asc(lastRead)).limit(limit);
}

/** Records that reconciliation (or the expiry janitor, without deciding it) read this charge at its provider now. */
export async function markProviderChecked(q: Queryable, id: string, at: Date): Promise<void> {
  await q.update(charges).set({ providerCheckedAt: at }).where(eq(charges.id, id));
}

/** Late payments whose refund the provider has not confirmed yet, in id order; after `after` when given. */
export async function lateRefundsPending(q: Queryable, limit: number, after?: OpenChargeCursor): Promise<ChargeRow[]> {
  return q.select().from(charges)
    .where(and(sql`${charges.latePayment} = 'refund_pending'`, after ? gt(charges.id, after.id) : undefined))
    .orderBy(asc(charges.id)).limit(limit);
}

/**
 * Unpaid live charges whose payment instructions expired, least recently tried first: one the
 * janitor could not decide (its provider gave no answer it could read, or its processor is no
 * longer configured) has provider_checked_at set, and waits `retryAfterMs` before it is read
 * again, behind every charge tried less recently. However many such charges there are, they
 * cannot fill every batch: a charge that expires later is read within a few rounds.
 */
export async function expiredLiveCharges(q: Queryable, limit: number, retryAfterMs = 0): Promise<ChargeRow[]> {
  return q.select().from(charges)
    .where(and(
      eq(charges.status, "pending"), live(), sql`${charges.expiresAt} < now()`,
      retryAfterMs > 0 ? sql`(${charges.providerCheckedAt} is null or ${charges.providerCheckedAt} < now() - ${retryAfterMs} * interval '1 millisecond')` : undefined,
    ))
    .orderBy(sql`coalesce(${charges.providerCheckedAt}, ${charges.expiresAt})`)
    .limit(limit);
}

/**
 * Moves a failed (or refused) charge's late payment from `from` to `to`; the row, or undefined
 * when another reader moved it first. `refunded` also shows the whole amount as refunded.
 */
export async function moveLatePayment(
  q: Queryable, id: string, from: LatePaymentStatus | null, to: LatePaymentStatus, pspRefId?: string, of: "failed" | "paid" = "failed",
): Promise<ChargeRow | undefined> {
  // A failed charge's late payment is all it ever received back; a paid charge's second payment
  // (its boleto and the boleto's Pix both paid) leaves the first payment, and its refunds, alone.
  const statuses: ChargeRow["status"][] = of === "paid" ? ["paid"] : ["failed", "refused"];
  const [row] = await q.update(charges)
    .set({
      latePayment: to, updatedAt: new Date(),
      ...(to === "refunded" && of === "failed" ? { amountRefunded: sql`${charges.amount}` } : {}),
      ...(pspRefId ? { pspRefId: sql`coalesce(${charges.pspRefId}, ${pspRefId})` } : {}),
    })
    .where(and(
      eq(charges.id, id), inArray(charges.status, statuses),
      from === null ? isNull(charges.latePayment) : eq(charges.latePayment, from),
    ))
    .returning();
  return row;
}
