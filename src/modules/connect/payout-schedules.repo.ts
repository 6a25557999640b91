import { and, eq, sql } from "drizzle-orm";
import { queryRows, type Queryable } from "../../db/client.js";
import { submerchants } from "../../db/schema.js";
import type { SubmerchantRow } from "./connect.repo.js";
import type { PayoutSchedule } from "./payout-schedule.js";

// The payout schedules' SQL (payout-schedules.ts runs them): the schedule and its next due time
// live on the submerchant's row.

/** Sets (or clears, with null) a submerchant's schedule, when it was set (`from`) and its next due time. */
export async function setSchedule(q: Queryable, id: string, schedule: PayoutSchedule | null, from: Date, dueAt: Date | null): Promise<SubmerchantRow | undefined> {
  const [row] = await q.update(submerchants)
    .set({ payoutSchedule: schedule, payoutScheduleFrom: schedule ? from : null, payoutDueAt: dueAt, payoutClaimedUntil: null, updatedAt: new Date() })
    .where(eq(submerchants.id, id)).returning();
  return row;
}

/**
 * Claims up to `limit` submerchants whose due time has come, for `leaseMs`: by real time, or, in
 * the sandbox, by the master's test clock (its offset added to `now`); `master` keeps it to one
 * master's sandbox (the clock's advance). FOR UPDATE SKIP LOCKED and the lease let any number of
 * workers run it: each due run is claimed by one, and a dead worker's claim is taken over once
 * its lease ends (the payout's id, derived from the day, makes the rerun find the first payout).
 */
export async function claimDue(q: Queryable, opts: { now: Date; limit: number; leaseMs: number; master?: string }): Promise<SubmerchantRow[]> {
  const now = sql`${opts.now.toISOString()}::timestamptz`;
  const only = opts.master ? sql`and s.parent_id = ${opts.master} and s.environment = 'sandbox'` : sql``;
  const rows = await queryRows<{ id: string }>(q, sql`
    update submerchants set payout_claimed_until = ${now} + make_interval(secs => ${opts.leaseMs / 1000}::float8)
    where id in (
      select s.id from submerchants s
      left join sandbox_clocks c on c.merchant_id = s.parent_id and s.environment = 'sandbox'
      where s.payout_due_at is not null ${only}
        and s.payout_due_at <= ${now} + coalesce(c.offset_ms, 0) * interval '1 millisecond'
        and (s.payout_claimed_until is null or s.payout_claimed_until < ${now})
      order by s.payout_due_at limit ${opts.limit} for update of s skip locked)
    returning id`);
  if (rows.length === 0) return [];
  return q.select().from(submerchants).where(sql`${submerchants.id} in (${sql.join(rows.map((r) => sql`${r.id}`), sql`, `)})`);
}

/**
 * The run is done: the next due time, written only if the row still has the due time the run
 * was claimed with (a schedule changed meanwhile keeps its own).
 */
export async function completeRun(q: Queryable, id: string, claimedDueAt: Date, nextDueAt: Date): Promise<void> {
  await q.update(submerchants).set({ payoutDueAt: nextDueAt, payoutClaimedUntil: null })
    .where(and(eq(submerchants.id, id), eq(submerchants.payoutDueAt, claimedDueAt)));
}
