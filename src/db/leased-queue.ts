import { sql } from "drizzle-orm";
import { queryRows, type Queryable } from "./client.js";

// A queue table of the worker (event_reactions, emails): rows wait in a status until their
// next_attempt_at, a claim moves next_attempt_at and lease_until a lease ahead in one statement
// (FOR UPDATE SKIP LOCKED, so workers take disjoint rows and no lock is held while the work
// runs), and an outcome is written only while the lease is still the claimer's. A worker that
// dies mid-work holds its rows until the lease ends; then they are due again. The lease is
// kept to the millisecond so that JavaScript's Date can give it back as the token.

export type LeasedTable = "event_reactions" | "emails";

export interface Claimed { id: string; attempts: number; leaseUntil: Date }

export async function claimLeased(
  q: Queryable, table: LeasedTable, waiting: string, limit: number, leaseMs: number, only?: { column: "subscriber"; values: string[] },
): Promise<Claimed[]> {
  const t = sql.raw(table);
  const narrowed = only ? sql`and ${sql.raw(only.column)} in (${sql.join(only.values.map((v) => sql`${v}`), sql`, `)})` : sql``;
  const rows = await queryRows<{ id: string; attempts: number; lease_until: string | Date }>(q, sql`
    update ${t} r set attempts = r.attempts + 1,
      lease_until = date_trunc('milliseconds', now() + make_interval(secs => ${leaseMs / 1000}::float8)),
      next_attempt_at = date_trunc('milliseconds', now() + make_interval(secs => ${leaseMs / 1000}::float8))
    from (select id from ${t} where status = ${waiting} and next_attempt_at <= now() ${narrowed}
          order by next_attempt_at limit ${limit} for update skip locked) due
    where r.id = due.id
    returning r.id, r.attempts, r.lease_until`);
  return rows.map((r) => ({ id: r.id, attempts: Number(r.attempts), leaseUntil: new Date(r.lease_until) }));
}

/**
 * Writes a claimed row's outcome if the lease is still `leaseUntil`: `status`, and for a retry
 * the delay before the next attempt. Answers whether it was written (false: the lease ran out
 * and another worker took the row, whose outcome wins).
 */
export async function finishLeased(
  q: Queryable, table: LeasedTable, row: Claimed, outcome: { status: string; retryInMs?: number; error?: string | null; sentAt?: boolean },
): Promise<boolean> {
  const t = sql.raw(table);
  const next = outcome.retryInMs === undefined ? sql`next_attempt_at` : sql`now() + make_interval(secs => ${outcome.retryInMs / 1000}::float8)`;
  const sent = outcome.sentAt ? sql`, sent_at = now()` : sql``;
  const rows = await queryRows<{ id: string }>(q, sql`
    update ${t} set status = ${outcome.status}, next_attempt_at = ${next}, lease_until = null, last_error = ${outcome.error ?? null}${sent}
    where id = ${row.id} and lease_until = ${row.leaseUntil.toISOString()}::timestamptz
    returning id`);
  return rows.length > 0;
}

/**
 * Writes one outcome without a retry (done, sent) for every claimed row whose lease is still
 * the claimer's, in one statement; answers how many were written.
 */
export async function finishLeasedAll(q: Queryable, table: LeasedTable, rows: Claimed[], outcome: { status: string; sentAt?: boolean }): Promise<number> {
  if (rows.length === 0) return 0;
  const t = sql.raw(table);
  const sent = outcome.sentAt ? sql`, sent_at = now()` : sql``;
  const leases = sql.join(rows.map((r) => sql`(${r.id}, ${r.leaseUntil.toISOString()}::timestamptz)`), sql`, `);
  const written = await queryRows<{ id: string }>(q, sql`
    update ${t} set status = ${outcome.status}, lease_until = null, last_error = null${sent}
    where (id, lease_until) in (${leases})
    returning id`);
  return written.length;
}
