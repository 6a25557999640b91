import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import type { Config } from "../../config.js";
import { withTx, type Db } from "../../db/client.js";
import type { Sealer } from "../../lib/crypto.js";
import type { Task } from "../../jobs/runner.js";
import { createDeliveryWorker, type DeliveryOptions } from "./delivery.js";
import { deliveryLogTask } from "./delivery-log.js";
import { endpointRoutes } from "./endpoints.routes.js";
import { createEndpointService } from "./endpoints.service.js";
import { createEventStreams, type EventStreamOptions } from "./event-stream.js";
import { eventStreamRoutes } from "./event-stream.routes.js";
import { eventRoutes } from "./events.routes.js";
import { createEventService } from "./events.service.js";
import { pruneEvents, PRUNE_BATCH } from "./retention.repo.js";
import { createReactions } from "./reactions.js";
import { createSecrets } from "./secrets.js";

// A receiver gets 10 s to answer (Svix allows 15 s, Standard Webhooks suggests 15-30 s; our
// events are small). The lease covers that plus the time to record the outcome; a worker that
// dies holds its deliveries for at most this long before another worker takes them over.
// The slots per worker come from WEBHOOK_CONCURRENCY (config.ts).
const DEFAULTS = { timeoutMs: 10_000, leaseMs: 15_000 };

export interface WebhookModuleDeps extends Partial<DeliveryOptions> {
  db: Db;
  config: Config;
  sealer: Sealer;
  stream?: Partial<EventStreamOptions>;
}

/** Webhook endpoints, the events API and the delivery worker. */
export function createWebhookModule(deps: WebhookModuleDeps) {
  const { db, config, sealer, lookup } = deps;
  const timeoutMs = deps.timeoutMs ?? DEFAULTS.timeoutMs;
  const options: DeliveryOptions = {
    timeoutMs,
    leaseMs: deps.leaseMs ?? Math.max(DEFAULTS.leaseMs, timeoutMs + 5_000),
    concurrency: deps.concurrency ?? config.webhookConcurrency,
    lookup,
  };
  const secrets = createSecrets(sealer);
  const endpoints = createEndpointService({ db, config, secrets, lookup });
  const events = createEventService({ db, config });
  const streams = createEventStreams({ db, options: deps.stream });
  const delivery = createDeliveryWorker({ db, config, secrets, ...options });

  // `stop` lets the deliveries in flight finish and be recorded on a graceful shutdown; a
  // runner that does not call it loses nothing either (their leases expire and they are sent
  // again), it only causes duplicates that receivers dedupe by webhook-id.
  const deliver = { name: "webhooks.deliver", intervalMs: config.workerPollMs, run: delivery.runOnce, stop: delivery.finish, wake: delivery.wake };
  // One batch per run, each its own short transaction; the runner repeats a run that did work.
  const prune = (limit = PRUNE_BATCH) => withTx(db, (tx) => pruneEvents(tx, config.eventRetentionDays, limit));
  const pruneTask = { name: "webhooks.prune", intervalMs: 60 * 60 * 1000, run: () => prune() };
  // Subscribers' reactions to events (reactions.ts): a lease long enough for a handler that
  // calls out (an SMTP exchange), after which a dead worker's claims are taken over.
  const reactions = createReactions(db, { leaseMs: 60_000, retryScale: config.webhookRetryScale });
  const tasks: Task[] = [deliver, pruneTask, reactions.task(config.workerPollMs)];

  return {
    routes: async (app: FastifyInstance) => {
      await app.register(endpointRoutes(endpoints, events));
      await app.register(eventStreamRoutes(streams));
      await app.register(eventRoutes(events));
    },
    tasks,
    /** The tasks the worker runs: these, and the delivery log's summary in the worker's log. */
    workerTasks: (log: FastifyBaseLogger): Task[] => [deliver, pruneTask, reactions.task(config.workerPollMs, log), deliveryLogTask(delivery, log)],
    endpoints,
    events,
    streams,
    delivery,
    reactions,
    prune,
    options,
  };
}

export type WebhookModule = ReturnType<typeof createWebhookModule>;
