import { inArray, eq } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import { insertInto, type Statement } from "../../db/batch.js";
import type { Db } from "../../db/client.js";
import { claimLeased, finishLeased, finishLeasedAll, type Claimed } from "../../db/leased-queue.js";
import { eventReactions, events } from "../../db/schema.js";
import type { Environment } from "../../core/context.js";
import type { Task } from "../../jobs/runner.js";
import { newId } from "../../lib/ids.js";
import type { EventType } from "./catalog.js";
import { ENDPOINT_RETRY_DELAYS_SECONDS } from "./retry-schedule.js";

// The seam for modules that react to events (docs/architecture.md, "Reacting to events"). A
// subscriber is named here with the event types it reacts to, as the catalog names where each
// type is delivered: recording an event of such a type writes one event_reactions row per
// subscriber in the same statement as the event (the outbox), so the change's own path costs no
// statement more. The worker claims due rows under a lease, as deliveries are, and calls the
// subscriber's handler outside any transaction of the change; a failed handler is retried with
// the endpoints' backoff; a handler must be idempotent (at least once: a worker may die after
// the handler and before the row is marked done).
//
// A handler takes the claimed batch's events of its subscriber at once, so that it reads and
// writes for all of them in a few statements (a card charge's receipt cost the worker six
// statements of its own, three times the charge's: bench/RESULTS.md, issue 50). When the batch
// fails, each event is handed alone, so one event's trouble is retried on its own and never
// holds the others back. The done rows are recorded in one statement.
export const SUBSCRIBERS = {
  // E-mails to buyers (src/modules/mail/): receipts, payment instructions, refunds, failed renewals.
  mail: ["charge.pending", "charge.paid", "charge.refunded", "charge.updated", "charge.failed"],
} as const satisfies Record<string, readonly EventType[]>;

export type SubscriberName = keyof typeof SUBSCRIBERS;

const byType = new Map<string, SubscriberName[]>();
for (const [name, types] of Object.entries(SUBSCRIBERS) as [SubscriberName, readonly EventType[]][]) {
  for (const type of types) byType.set(type, [...(byType.get(type) ?? []), name]);
}

/** What a subscriber is handed: the event as recorded. */
export interface ReactedEvent {
  id: string;
  type: string;
  merchantId: string;
  environment: Environment;
  objectId: string | null;
  data: Record<string, unknown>;
}

/** Reacts to a batch of events (one or more); throws if any failed (each is then retried alone). */
export type Subscriber = (events: ReactedEvent[]) => Promise<void>;

/** The reaction rows of recorded events, a part of the outbox's statement (none: undefined). */
export function reactionRows(recorded: { id: string; type: EventType; merchantId: string; environment: Environment }[]): Statement | undefined {
  const rows = recorded.flatMap((e) => (byType.get(e.type) ?? []).map((subscriber) => ({
    id: newId("rea"), eventId: e.id, subscriber, merchantId: e.merchantId, environment: e.environment,
  })));
  return rows.length > 0 ? insertInto(eventReactions, rows) : undefined;
}

const BATCH = 50;
/** After this many attempts (the endpoints' schedule: about 27 h) a reaction is marked failed. */
const MAX_ATTEMPTS = 1 + ENDPOINT_RETRY_DELAYS_SECONDS.length;

export interface ReactionOptions { leaseMs: number; retryScale: number }

/**
 * The worker's side: subscribers register a handler once when the app is built; the task
 * claims due reactions of the subscribers registered in this process and runs each handler.
 */
export function createReactions(db: Db, options: ReactionOptions) {
  const handlers = new Map<SubscriberName, Subscriber>();

  async function runOnce(log?: FastifyBaseLogger): Promise<number> {
    // Only the reactions of subscribers this process runs: one whose module is not here (a
    // webhook module built alone, a process of another role) waits for a worker that has it.
    if (handlers.size === 0) return 0;
    const claimed = await claimLeased(db, "event_reactions", "pending", BATCH, options.leaseMs, { column: "subscriber", values: [...handlers.keys()] });
    if (claimed.length === 0) return 0;
    // The claimed reactions with their events, in one statement (an event pruned by retention
    // has nothing left to react to: its reaction is done).
    const rows = await db.select({ id: eventReactions.id, subscriber: eventReactions.subscriber, event: events })
      .from(eventReactions).leftJoin(events, eq(events.id, eventReactions.eventId))
      .where(inArray(eventReactions.id, claimed.map((c) => c.id)));
    const rowById = new Map(rows.map((r) => [r.id, r]));
    const bySubscriber = new Map<string, { claim: Claimed; event: ReactedEvent | undefined }[]>();
    for (const c of claimed) {
      const row = rowById.get(c.id);
      if (!row) continue;
      const ev = row.event;
      const item = { claim: c, event: ev ? { id: ev.id, type: ev.type, merchantId: ev.merchantId, environment: ev.environment, objectId: ev.objectId, data: ev.data } : undefined };
      bySubscriber.set(row.subscriber, [...(bySubscriber.get(row.subscriber) ?? []), item]);
    }
    const done: Claimed[] = [];
    const failed: { claim: Claimed; subscriber: string; err: unknown }[] = [];
    const handle = async (subscriber: string, items: { claim: Claimed; event: ReactedEvent | undefined }[]) => {
      const handler = handlers.get(subscriber as SubscriberName);
      const present = items.flatMap((i) => (i.event ? [i.event] : []));
      if (handler && present.length > 0) await handler(present);
      done.push(...items.map((i) => i.claim));
    };
    for (const [subscriber, items] of bySubscriber) {
      try {
        await handle(subscriber, items);
      } catch (err) {
        if (items.length === 1) { failed.push({ claim: items[0]!.claim, subscriber, err }); continue; }
        for (const item of items) {
          try {
            await handle(subscriber, [item]);
          } catch (one) {
            failed.push({ claim: item.claim, subscriber, err: one });
          }
        }
      }
    }
    await finishLeasedAll(db, "event_reactions", done, { status: "done" });
    for (const { claim: c, subscriber, err } of failed) {
      const message = err instanceof Error ? err.message : String(err);
      log?.warn({ reaction: c.id, subscriber, err: message }, "event reaction failed");
      const last = c.attempts >= MAX_ATTEMPTS;
      const delay = ENDPOINT_RETRY_DELAYS_SECONDS[Math.min(c.attempts - 1, ENDPOINT_RETRY_DELAYS_SECONDS.length - 1)]! * 1000 * options.retryScale;
      await finishLeased(db, "event_reactions", c, last ? { status: "failed", error: message } : { status: "pending", retryInMs: delay, error: message });
    }
    return claimed.length;
  }

  return {
    /** Registers the handler of a subscriber named in SUBSCRIBERS (once, when the app is built). */
    subscribe(name: SubscriberName, handler: Subscriber): void {
      handlers.set(name, handler);
    },
    runOnce,
    task(intervalMs: number, log?: FastifyBaseLogger): Task {
      return { name: "events.react", intervalMs, run: () => runOnce(log) };
    },
  };
}

export type Reactions = ReturnType<typeof createReactions>;
