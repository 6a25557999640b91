import type { FastifyBaseLogger } from "fastify";
import type { Task } from "../../jobs/runner.js";
import type { ClaimedDelivery, Outcome } from "./deliveries.repo.js";
import type { DeliveryObserver } from "./delivery.js";

// What the worker says about webhook deliveries: one warning per failed attempt (with what
// happens next), and every minute in which anything happened a summary line of counts.
// Successful deliveries are only counted: at info level one line each would drown the log.
export const SUMMARY_EVERY_MS = 60_000;

// An endpoint URL may carry a token in its query string; the log gets the origin and path.
const safeUrl = (url: string) => {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return "(invalid url)";
  }
};

export function deliveryLogTask(
  delivery: { observe(o: DeliveryObserver): void }, log: FastifyBaseLogger, intervalMs = SUMMARY_EVERY_MS,
): Task {
  let counts = { delivered: 0, failed: 0, retried: 0, skipped: 0 };

  delivery.observe((d: ClaimedDelivery, outcome: Outcome) => {
    if (outcome.status === "delivered") counts.delivered++;
    else if (outcome.status === "skipped") counts.skipped++;
    else if (outcome.status === "failed") counts.failed++;
    else counts.retried++;
    if (outcome.status !== "pending" && outcome.status !== "failed") return;
    const fields = {
      deliveryId: d.id, eventId: d.event.id, eventType: d.event.type, endpointId: d.endpoint?.id ?? null,
      url: safeUrl(outcome.url), attempt: d.attempts + 1, responseStatus: outcome.lastStatus, error: outcome.lastError,
    };
    const why = outcome.lastError ?? `HTTP ${outcome.lastStatus}`;
    if (outcome.status === "failed") {
      log.warn(fields, `webhook ${d.event.type} to ${fields.url} failed for good after ${fields.attempt} attempt(s): ${why}`);
    } else {
      const next = Math.round((outcome.retryInMs ?? 0) / 1000);
      log.warn({ ...fields, retryInMs: outcome.retryInMs }, `webhook ${d.event.type} to ${fields.url} failed (${why}); attempt ${fields.attempt + 1} in ${next}s`);
    }
  });

  return {
    name: "webhooks.log-summary",
    intervalMs,
    run: async () => {
      const c = counts;
      counts = { delivered: 0, failed: 0, retried: 0, skipped: 0 };
      if (c.delivered + c.failed + c.retried + c.skipped > 0) {
        log.info({ webhooks: c }, `webhooks in the last ${Math.round(intervalMs / 1000)}s: ${c.delivered} delivered, ${c.retried} to retry, ${c.failed} failed, ${c.skipped} skipped`);
      }
      return 0; // never "did work": the runner would run it again at once
    },
  };
}
