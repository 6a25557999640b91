import { and, asc, eq, inArray, is, lt, sql, type SQL } from "drizzle-orm";
import { PgTransaction } from "drizzle-orm/pg-core";
import pg from "pg";
import { queryRows, statementName, type Queryable } from "../../db/client.js";
import { inScope, type Scope } from "../../db/scope.js";
import { events, webhookAttempts, webhookDeliveries, webhookEndpoints } from "../../db/schema.js";
import type { Environment } from "../../core/context.js";
import { allOf, pageFilters, toPage, type PageQuery } from "../../db/pagination.js";
import { newId } from "../../lib/ids.js";
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

// ---- The worker's two hot statements. Each is written once with $n placeholders and runs as a
// named prepared statement on a pg pool (parsed and planned once per connection, not per batch),
// and through drizzle otherwise: on PGlite, and inside a transaction, which must keep to its
// own connection. Unnamed behind a transaction-mode pooler (statementName).

interface Statement { name: string; text: string }

/** The drizzle form of a statement: its text with each $n replaced by a bound parameter. */
function asSql(st: Statement, values: unknown[]): SQL {
  const parts = st.text.split(/\$(\d+)/);
  return sql.join(parts.map((part, i) => (i % 2 === 1 ? sql.param(values[Number(part) - 1]) : sql.raw(part))));
}

async function run<T>(q: Queryable, st: Statement, values: unknown[]): Promise<T[]> {
  const client = (q as { $client?: unknown }).$client;
  if (!is(q, PgTransaction) && client instanceof pg.Pool) {
    return (await client.query<T & pg.QueryResultRow>({ name: statementName(client, st.name), text: st.text, values })).rows;
  }
  return queryRows<T>(q, asSql(st, values));
}

// Two index-ordered scans rather than one OR: with a backlog, the due scan stops after `limit`
// rows of webhook_deliveries_due_idx instead of sorting every due row.
//
// The scan for expired leases finds nothing unless a worker died, and it cannot stop early: it
// reads every 'delivering' entry of webhook_deliveries_due_idx, and every delivery leaves a
// dead one there (claimed, then recorded) until vacuum removes it. Run by every claim, it read
// 4,500 buffers (17 ms) per claim once 75,000 deliveries had been made since the last vacuum,
// and one worker went from 5,100 to 2,300 deliveries/s (bench/webhooks.ts, autovacuum held
// off as on a large table, where it waits for 20% of the rows to change). So it runs only when
// $5 is true (a gating filter: false skips the scan), about once a second (delivery.ts).
// $1 limit, $2 lease seconds, $3 and $4 first delays of legacy and other deliveries, in seconds,
// $5 whether to take over expired leases.
const CLAIM: Statement = {
  name: "feira_webhooks_claim_v2",
  text: `
    with expired as (
      select id from webhook_deliveries
      where $5::boolean and status = 'delivering' and lease_until < now()
      limit $1
      for update skip locked
    ), due as (
      select id from webhook_deliveries
      where status = 'pending' and next_attempt_at <= now()
        and (attempts > 0 or created_at <= now() - case when kind = 'legacy'
               then make_interval(secs => $3::float8) else make_interval(secs => $4::float8) end)
      order by next_attempt_at
      limit $1
      for update skip locked
    ), claimed as (
      update webhook_deliveries d
      set status = 'delivering', lease_until = date_trunc('milliseconds', now() + make_interval(secs => $2::float8)), updated_at = now()
      where d.id in (select id from (select id from expired union all select id from due) picked limit $1)
      returning d.id, d.event_id, d.merchant_id, d.environment, d.endpoint_id, d.url, d.kind, d.attempts, d.lease_until
    )
    select c.*, e.type as event_type, e.envelope as event_envelope, e.data as event_data,
           w.url as endpoint_url, w.enabled as endpoint_enabled, w.deleted_at as endpoint_deleted_at,
           w.secret_sealed as endpoint_secret_sealed, w.previous_secret_sealed as endpoint_previous_secret_sealed,
           w.previous_secret_expires_at as endpoint_previous_secret_expires_at
    from claimed c
    join events e on e.id = c.event_id
    left join webhook_endpoints w on w.id = c.endpoint_id`,
};

// The outcomes of a batch as arrays, one element per delivery, in this order:
// $1 id, $2 lease token, $3 attempts made before, $4 status, $5 url, $6 last status,
// $7 last error, $8 seconds to the next attempt, then the attempt to log (null id: none):
// $9 id, $10 started at, $11 duration, $12 response status, $13 error, $14 response excerpt.
const RECORD: Statement = {
  name: "feira_webhooks_record_v1",
  text: `
    with v as (
      select * from unnest($1::text[], $2::timestamptz[], $3::int[], $4::text[], $5::text[], $6::int[],
        $7::text[], $8::float8[], $9::text[], $10::timestamptz[], $11::int[], $12::int[], $13::text[], $14::text[])
        as v(id, lease, made, status, url, last_status, last_error, retry_secs,
             attempt_id, started_at, duration_ms, response_status, error, response_excerpt)
    ), written as (
      update webhook_deliveries d
      set status = v.status, attempts = v.made + (v.attempt_id is not null)::int, lease_until = null, url = v.url,
          last_status = v.last_status, last_error = v.last_error, updated_at = now(),
          next_attempt_at = case when v.status = 'pending' then now() + make_interval(secs => v.retry_secs) else d.next_attempt_at end,
          delivered_at = case when v.status = 'delivered' then now() else d.delivered_at end
      from v
      where d.id = v.id and d.status = 'delivering' and d.lease_until = v.lease and d.attempts = v.made
      returning d.id, d.endpoint_id, v.status
    ), logged as (
      insert into webhook_attempts (id, delivery_id, attempt, started_at, duration_ms, response_status, error, response_excerpt)
      select v.attempt_id, v.id, v.made + 1, v.started_at, v.duration_ms, v.response_status, v.error, v.response_excerpt
      from written w join v on v.id = w.id
      where v.attempt_id is not null
    ), cleared as (
      update webhook_endpoints e set failing_since = null
      where e.id in (select endpoint_id from written where status = 'delivered' and endpoint_id is not null)
        and e.failing_since is not null
    )
    select id from written`,
};


/**
 * Claims up to `limit` due deliveries: pending ones whose time has come, and, with
 * `expiredToo`, deliveries whose worker died (lease expired). FOR UPDATE SKIP LOCKED lets concurrent workers claim disjoint
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
  expiredToo = true,
): Promise<ClaimedDelivery[]> {
  const rows = await run<Record<string, unknown>>(q, CLAIM, [limit, leaseMs / 1000, firstDelayMs.legacy / 1000, firstDelayMs.endpoint / 1000, expiredToo]);
  // The deliveries of one event share one event object, so its body is built once (delivery.ts).
  const eventsById = new Map<string, ClaimedDelivery["event"]>();
  const eventOf = (r: Record<string, unknown>): ClaimedDelivery["event"] => {
    const id = String(r.event_id);
    let event = eventsById.get(id);
    if (!event) {
      event = {
        id,
        type: String(r.event_type),
        envelope: String(r.event_envelope),
        data: (typeof r.event_data === "string" ? JSON.parse(r.event_data) : r.event_data) as Record<string, unknown>,
      };
      eventsById.set(id, event);
    }
    return event;
  };
  return rows.map((r) => ({
    id: String(r.id),
    kind: r.kind as ClaimedDelivery["kind"],
    url: String(r.url),
    merchantId: String(r.merchant_id),
    environment: r.environment as Environment,
    attempts: Number(r.attempts),
    leaseUntil: new Date(r.lease_until as string | Date),
    event: eventOf(r),
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
 * One statement for the whole batch, whatever its size (RECORD): the attempts are logged and
 * the failing streak of every endpoint that took a delivery is ended from what the UPDATE
 * wrote, so a lost lease logs nothing. Run alone it is its own transaction, one commit for the
 * batch. Returns the ids written.
 */
export async function recordOutcomes(q: Queryable, items: { d: ClaimedDelivery; outcome: Outcome }[]): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const col = <T>(f: (d: ClaimedDelivery, o: Outcome) => T) => items.map(({ d, outcome }) => f(d, outcome));
  const updated = await run<{ id: string }>(q, RECORD, [
    col((d) => d.id), col((d) => d.leaseUntil.toISOString()), col((d) => d.attempts),
    col((_, o) => o.status), col((_, o) => o.url), col((_, o) => o.lastStatus), col((_, o) => o.lastError),
    col((_, o) => (o.retryInMs ?? 0) / 1000),
    col((_, o) => (o.attempt ? newId("wha") : null)), col((_, o) => o.attempt?.startedAt.toISOString() ?? null),
    col((_, o) => o.attempt?.durationMs ?? null), col((_, o) => o.attempt?.responseStatus ?? null),
    col((_, o) => o.attempt?.error ?? null), col((_, o) => o.attempt?.responseExcerpt ?? null),
  ]);
  return new Set(updated.map((r) => r.id));
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

const scope = (s: Scope) => inScope(webhookDeliveries, s);

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
