import { and, asc, eq, inArray, isNotNull, lt, sql } from "drizzle-orm";
import { queryRows, type Queryable } from "../../db/client.js";
import { events, webhookAttempts, webhookDeliveries, webhookEndpoints } from "../../db/schema.js";
import type { Environment } from "../../http/context.js";
import { allOf, pageFilters, toPage, type PageQuery } from "../../http/pagination.js";
import { newId } from "../../lib/ids.js";
import type { Scope } from "./endpoints.repo.js";
import type { SealedSecrets } from "./secrets.js";

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

/** A claimed delivery with what sending it needs: the event, and the endpoint as it is now. */
export interface ClaimedDelivery {
  id: string;
  kind: "endpoint" | "postback" | "legacy";
  url: string;
  merchantId: string;
  environment: Environment;
  /** Attempts made before this one. */
  attempts: number;
  /** The lease token: the outcome is written only while the lease is still ours. */
  leaseUntil: Date;
  event: { id: string; type: string; envelope: string; data: Record<string, unknown> };
  endpoint: (SealedSecrets & { id: string; url: string; enabled: boolean; deleted: boolean }) | null;
}

const secs = (ms: number) => sql`make_interval(secs => ${ms / 1000}::float8)`;

/**
 * Claims up to `limit` due deliveries: pending ones whose time has come, and deliveries whose
 * worker died (lease expired). FOR UPDATE SKIP LOCKED lets concurrent workers claim disjoint
 * sets; the claim commits at once, so no row lock is held during the HTTP call, and the lease
 * keeps other workers away until it expires. lease_until is truncated to milliseconds so that
 * the JavaScript Date read back compares equal when it is used as the lease token.
 * A first attempt waits the first delay of its schedule, counted from the delivery's creation
 * (recordEvent runs in the caller's transaction and knows no WEBHOOK_RETRY_SCALE).
 */
export async function claimDue(
  q: Queryable,
  limit: number,
  leaseMs: number,
  firstDelayMs: { endpoint: number; legacy: number },
): Promise<ClaimedDelivery[]> {
  // Two index-ordered scans rather than one OR: with a backlog, the due scan stops after
  // `limit` rows of webhook_deliveries_due_idx instead of sorting every due row.
  const rows = await queryRows<Record<string, unknown>>(q, sql`
    with expired as (
      select id from webhook_deliveries
      where status = 'delivering' and lease_until < now()
      limit ${limit}
      for update skip locked
    ), due as (
      select id from webhook_deliveries
      where status = 'pending' and next_attempt_at <= now()
        and (attempts > 0 or created_at <= now() - case when kind = 'legacy'
               then ${secs(firstDelayMs.legacy)} else ${secs(firstDelayMs.endpoint)} end)
      order by next_attempt_at
      limit ${limit}
      for update skip locked
    ), claimed as (
      update webhook_deliveries d
      set status = 'delivering', lease_until = date_trunc('milliseconds', now() + ${secs(leaseMs)}), updated_at = now()
      where d.id in (select id from (select id from expired union all select id from due) picked limit ${limit})
      returning d.id, d.event_id, d.merchant_id, d.environment, d.endpoint_id, d.url, d.kind, d.attempts, d.lease_until
    )
    select c.*, e.type as event_type, e.envelope as event_envelope, e.data as event_data,
           w.url as endpoint_url, w.enabled as endpoint_enabled, w.deleted_at as endpoint_deleted_at,
           w.secret_sealed as endpoint_secret_sealed, w.previous_secret_sealed as endpoint_previous_secret_sealed,
           w.previous_secret_expires_at as endpoint_previous_secret_expires_at
    from claimed c
    join events e on e.id = c.event_id
    left join webhook_endpoints w on w.id = c.endpoint_id`);
  return rows.map((r) => ({
    id: String(r.id),
    kind: r.kind as ClaimedDelivery["kind"],
    url: String(r.url),
    merchantId: String(r.merchant_id),
    environment: r.environment as Environment,
    attempts: Number(r.attempts),
    leaseUntil: new Date(r.lease_until as string | Date),
    event: {
      id: String(r.event_id),
      type: String(r.event_type),
      envelope: String(r.event_envelope),
      data: (typeof r.event_data === "string" ? JSON.parse(r.event_data) : r.event_data) as Record<string, unknown>,
    },
    endpoint: r.endpoint_id == null ? null : {
      id: String(r.endpoint_id),
      url: String(r.endpoint_url ?? r.url),
      enabled: r.endpoint_enabled === true,
      deleted: r.endpoint_deleted_at != null || r.endpoint_url == null,
      secretSealed: String(r.endpoint_secret_sealed ?? ""),
      previousSecretSealed: r.endpoint_previous_secret_sealed == null ? null : String(r.endpoint_previous_secret_sealed),
      previousSecretExpiresAt: r.endpoint_previous_secret_expires_at == null ? null : new Date(r.endpoint_previous_secret_expires_at as string | Date),
    },
  }));
}

export interface Outcome {
  status: "delivered" | "pending" | "failed" | "skipped";
  /** For "pending": how long until the next attempt. */
  retryInMs?: number;
  url: string;
  lastStatus: number | null;
  lastError: string | null;
  /** The attempt to log; none when nothing was sent (skipped). */
  attempt?: Omit<typeof webhookAttempts.$inferInsert, "id" | "deliveryId" | "attempt">;
}

/**
 * Writes the outcomes of finished attempts, but each only if its lease is still this
 * worker's: a worker that stalled past its lease finds the delivery claimed again (or
 * finished) by another, and its late result is dropped rather than overwriting the newer one.
 * Set-based (one UPDATE, one INSERT for the whole batch). Returns the ids written.
 */
export async function recordOutcomes(tx: Queryable, items: { d: ClaimedDelivery; outcome: Outcome }[]): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const values = items.map(({ d, outcome: o }) => sql`(${d.id}::text, ${d.leaseUntil.toISOString()}::timestamptz,
    ${d.attempts}::int, ${o.attempt ? d.attempts + 1 : d.attempts}::int, ${o.status}::text, ${o.url}::text,
    ${o.lastStatus}::int, ${o.lastError}::text, ${(o.retryInMs ?? 0) / 1000}::float8)`);
  const updated = await queryRows<{ id: string }>(tx, sql`
    update webhook_deliveries d
    set status = v.status, attempts = v.attempts, lease_until = null, url = v.url,
        last_status = v.last_status, last_error = v.last_error, updated_at = now(),
        next_attempt_at = case when v.status = 'pending' then now() + make_interval(secs => v.retry_secs) else d.next_attempt_at end,
        delivered_at = case when v.status = 'delivered' then now() else d.delivered_at end
    from (values ${sql.join(values, sql`, `)}) as v(id, lease, made, attempts, status, url, last_status, last_error, retry_secs)
    where d.id = v.id and d.status = 'delivering' and d.lease_until = v.lease and d.attempts = v.made
    returning d.id`);
  const written = new Set(updated.map((r) => r.id));
  const attempts = items
    .filter(({ d, outcome }) => written.has(d.id) && outcome.attempt)
    .map(({ d, outcome }) => ({ id: newId("wha"), deliveryId: d.id, attempt: d.attempts + 1, ...outcome.attempt! }));
  if (attempts.length > 0) await tx.insert(webhookAttempts).values(attempts);
  return written;
}

/** A success ends an endpoint's failing streak. */
export async function clearFailing(tx: Queryable, endpointIds: string[]): Promise<void> {
  if (endpointIds.length === 0) return;
  await tx.update(webhookEndpoints).set({ failingSince: null })
    .where(and(inArray(webhookEndpoints.id, endpointIds), isNotNull(webhookEndpoints.failingSince)));
}

/**
 * Starts an endpoint's failing streak if none is running; when the streak is older than
 * `disableAfterMs`, disables the endpoint. Returns whether it was disabled now.
 */
export async function noteFailure(tx: Queryable, endpointId: string, disableAfterMs: number, reason: string): Promise<boolean> {
  await tx.update(webhookEndpoints).set({ failingSince: sql`coalesce(${webhookEndpoints.failingSince}, now())` })
    .where(eq(webhookEndpoints.id, endpointId));
  const disabled = await tx.update(webhookEndpoints)
    .set({ enabled: false, disabledReason: reason, updatedAt: sql`now()` })
    .where(and(
      eq(webhookEndpoints.id, endpointId),
      eq(webhookEndpoints.enabled, true),
      lt(webhookEndpoints.failingSince, sql`now() - ${secs(disableAfterMs)}`),
    ))
    .returning({ id: webhookEndpoints.id });
  return disabled.length > 0;
}

/** Ends a delivery whose endpoint was just disabled, instead of leaving retries to skip. */
export async function finishAfterDisable(tx: Queryable, deliveryId: string, lastError: string): Promise<void> {
  await tx.update(webhookDeliveries).set({ status: "failed", lastError, updatedAt: sql`now()` })
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.status, "pending")));
}

export async function disableEndpoint(tx: Queryable, endpointId: string, reason: string): Promise<void> {
  await tx.update(webhookEndpoints).set({ enabled: false, disabledReason: reason, updatedAt: sql`now()` })
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.enabled, true)));
}

// ---- Reading the delivery log.

export type DeliveryWithType = DeliveryRow & { eventType: string };

const scope = (s: Scope) => and(eq(webhookDeliveries.merchantId, s.merchantId), eq(webhookDeliveries.environment, s.environment));

export async function listDeliveries(
  q: Queryable,
  s: Scope,
  filter: { endpointId?: string; eventId?: string; status?: string },
  query: PageQuery,
) {
  const page = pageFilters(query, webhookDeliveries);
  const rows = await q
    .select({ delivery: webhookDeliveries, eventType: events.type })
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(allOf([
      scope(s),
      filter.endpointId ? eq(webhookDeliveries.endpointId, filter.endpointId) : undefined,
      filter.eventId ? eq(webhookDeliveries.eventId, filter.eventId) : undefined,
      filter.status ? eq(webhookDeliveries.status, filter.status) : undefined,
      ...page.where,
    ]))
    .orderBy(page.orderBy)
    .limit(page.limit);
  return toPage(rows.map((r) => ({ ...r.delivery, eventType: r.eventType })), query, page.reversed);
}

export async function deliveriesOfEvent(q: Queryable, s: Scope, eventId: string): Promise<DeliveryRow[]> {
  return q.select().from(webhookDeliveries)
    .where(and(scope(s), eq(webhookDeliveries.eventId, eventId)))
    .orderBy(asc(webhookDeliveries.id));
}

export async function attemptsOf(q: Queryable, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return q.select().from(webhookAttempts)
    .where(inArray(webhookAttempts.deliveryId, deliveryIds))
    .orderBy(asc(webhookAttempts.deliveryId), asc(webhookAttempts.attempt));
}

export async function insertDeliveries(q: Queryable, rows: (typeof webhookDeliveries.$inferInsert)[]): Promise<DeliveryRow[]> {
  if (rows.length === 0) return [];
  return q.insert(webhookDeliveries).values(rows).returning();
}
