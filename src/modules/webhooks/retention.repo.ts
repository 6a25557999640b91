import { and, inArray, sql } from "drizzle-orm";
import { queryRows, type Queryable } from "../../db/client.js";
import { eventReactions, events, webhookAttempts, webhookDeliveries } from "../../db/schema.js";

// Retention (EVENT_RETENTION_DAYS): events, their deliveries, the attempts of those and their
// subscribers' reactions (done, failed, or still pending: a reaction's retries end within about
// 28 hours, so one pending after the retention waits for a subscriber no worker runs) are
// deleted together once the event is older than the retention, so the delivery log never
// shows a delivery whose event is gone (the log joins them) and the tables stop growing.

/** Events deleted per transaction: small enough that a run never holds row locks for long. */
export const PRUNE_BATCH = 2_000;

/**
 * Deletes up to `limit` events created more than `days` ago, with their deliveries and
 * attempts (children first, for the foreign keys), in the caller's transaction. Returns how
 * many events it deleted; the worker runs it again at once while that is more than 0.
 *
 * An event with a delivery still pending or delivering is kept: it is still being delivered
 * (at least once means it must not vanish under the worker), and a later run takes it.
 * The events are locked FOR UPDATE (SKIP LOCKED, so two workers take disjoint batches); a
 * redelivery inserting a delivery for one of them then waits (its foreign key needs the
 * event) and fails after the delete. One that committed after the first query's snapshot but
 * before the lock is caught by the second look, which runs with a newer snapshot while the
 * locks already keep new deliveries out.
 */
export async function pruneEvents(tx: Queryable, days: number, limit: number): Promise<number> {
  const doomed = await queryRows<{ id: string }>(tx, sql`
    select e.id from events e
    where e.created_at < now() - make_interval(days => ${days}::int)
      and not exists (
        select 1 from webhook_deliveries d
        where d.event_id = e.id and d.status in ('pending', 'delivering')
      )
    order by e.created_at
    limit ${limit}
    for update of e skip locked`);
  if (doomed.length === 0) return 0;
  const busy = await tx.selectDistinct({ id: webhookDeliveries.eventId }).from(webhookDeliveries).where(and(
    inArray(webhookDeliveries.eventId, doomed.map((r) => r.id)),
    inArray(webhookDeliveries.status, ["pending", "delivering"]),
  ));
  const kept = new Set(busy.map((r) => r.id));
  const ids = doomed.map((r) => r.id).filter((id) => !kept.has(id));
  if (ids.length === 0) return 0;
  const deliveries = tx.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(inArray(webhookDeliveries.eventId, ids));
  await tx.delete(webhookAttempts).where(inArray(webhookAttempts.deliveryId, deliveries));
  await tx.delete(webhookDeliveries).where(inArray(webhookDeliveries.eventId, ids));
  await tx.delete(eventReactions).where(inArray(eventReactions.eventId, ids));
  await tx.delete(events).where(inArray(events.id, ids));
  return ids.length;
}
