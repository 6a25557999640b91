import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import { AppError, invalid, notFound } from "../../core/errors.js";
import type { RequestCtx } from "../../core/context.js";
import type { PageQuery } from "../../db/pagination.js";
import { newId } from "../../lib/ids.js";
import { EVENT_CATALOG, isEventType } from "./catalog.js";
import * as deliveries from "./deliveries.repo.js";
import * as endpoints from "./endpoints.repo.js";
import * as repo from "./events.repo.js";
import { nextAttemptDelayMs } from "./retry-schedule.js";
import { readForList } from "../../db/replica.js";

export interface EventServiceDeps {
  db: Db;
  config: Pick<Config, "webhookRetryScale">;
}

export function toEvent(row: repo.EventRow) {
  return {
    id: row.id,
    type: row.type,
    livemode: row.environment === "production",
    objectId: row.objectId,
    data: row.data,
    createdAt: row.createdAt.toISOString(),
  };
}

function toAttempt(a: deliveries.AttemptRow) {
  return {
    attempt: a.attempt,
    startedAt: a.startedAt.toISOString(),
    durationMs: a.durationMs,
    responseStatus: a.responseStatus,
    error: a.error,
    responseExcerpt: a.responseExcerpt,
  };
}

export function createEventService(deps: EventServiceDeps) {
  const { db, config } = deps;

  // When a pending delivery will next be tried. A first attempt waits its schedule's first
  // delay from creation (the worker's claim applies the same rule).
  function nextAttemptAt(d: deliveries.DeliveryRow): string | null {
    if (d.status !== "pending") return null;
    if (d.attempts > 0) return d.nextAttemptAt.toISOString();
    const first = nextAttemptDelayMs(d.kind === "legacy" ? "legacy" : "endpoint", 0, config.webhookRetryScale) ?? 0;
    return new Date(Math.max(d.nextAttemptAt.getTime(), d.createdAt.getTime() + first)).toISOString();
  }

  function toDelivery(d: deliveries.DeliveryRow, eventType: string, attempts: deliveries.AttemptRow[]) {
    return {
      id: d.id,
      eventId: d.eventId,
      eventType,
      endpointId: d.endpointId,
      kind: d.kind,
      url: d.url,
      status: d.status,
      attemptCount: d.attempts,
      nextAttemptAt: nextAttemptAt(d),
      lastResponseStatus: d.lastStatus,
      lastError: d.lastError,
      deliveredAt: d.deliveredAt?.toISOString() ?? null,
      createdAt: d.createdAt.toISOString(),
      attempts: attempts.filter((a) => a.deliveryId === d.id).map(toAttempt),
    };
  }

  async function withAttempts(rows: (deliveries.DeliveryRow & { eventType: string })[]) {
    const attempts = await deliveries.attemptsOf(db, rows.map((r) => r.id));
    return rows.map((r) => toDelivery(r, r.eventType, attempts));
  }

  async function find(ctx: RequestCtx, id: string): Promise<repo.EventRow> {
    const row = await repo.findEvent(db, ctx, id);
    if (!row) throw notFound("Event", id);
    return row;
  }

  async function list(ctx: RequestCtx, query: PageQuery & { type?: string }) {
    const page = await readForList(db, ctx, (q) => repo.listEvents(q, ctx, query));
    return { data: page.data.map(toEvent), hasMore: page.hasMore };
  }

  async function get(ctx: RequestCtx, id: string) {
    const event = await find(ctx, id);
    const rows = await deliveries.deliveriesOfEvent(db, ctx, id);
    return { ...toEvent(event), deliveries: await withAttempts(rows.map((r) => ({ ...r, eventType: event.type }))) };
  }

  /**
   * Queues the event again: to one endpoint, or to every enabled endpoint that receives it now
   * and to the postback URL(s) it went to. New deliveries start a fresh schedule; the body and
   * the webhook-id are the same as the first time, so receivers that already have it dedupe.
   */
  async function redeliver(ctx: RequestCtx, id: string, endpointId?: string) {
    const event = await find(ctx, id);
    const toEndpoints = isEventType(event.type) && EVENT_CATALOG[event.type].toEndpoints;
    const base = { eventId: event.id, merchantId: ctx.merchantId, environment: ctx.environment };
    const rows: (typeof base & { id: string; endpointId: string | null; url: string; kind: string })[] = [];
    if (endpointId !== undefined) {
      if (!toEndpoints) throw invalid(`endpointId: ${event.type} events go only to postback URLs, never to webhook endpoints`);
      const endpoint = await endpoints.findEndpoint(db, ctx, endpointId);
      if (!endpoint) throw notFound("Webhook endpoint", endpointId);
      if (!endpoint.enabled) throw new AppError("invalid_state", `Webhook endpoint ${endpointId} is disabled; enable it first`);
      if (!endpoint.events.includes("*") && !endpoint.events.includes(event.type)) {
        throw invalid(`endpointId: webhook endpoint ${endpointId} does not receive ${event.type} events`);
      }
      rows.push({ ...base, id: newId("whd"), endpointId: endpoint.id, url: endpoint.url, kind: "endpoint" });
    } else {
      if (toEndpoints) {
        for (const e of await endpoints.matchingEndpoints(db, ctx, event.type)) {
          rows.push({ ...base, id: newId("whd"), endpointId: e.id, url: e.url, kind: "endpoint" });
        }
      }
      const earlier = await deliveries.deliveriesOfEvent(db, ctx, id);
      const postbacks = new Map(earlier.filter((d) => d.kind !== "endpoint").map((d) => [d.url, d.kind]));
      for (const [url, kind] of postbacks) rows.push({ ...base, id: newId("whd"), endpointId: null, url, kind });
    }
    if (rows.length === 0) {
      throw new AppError("invalid_state", `Event ${id} has no destination: no enabled endpoint receives ${event.type} and it had no postback URL`);
    }
    const inserted = await deliveries.insertDeliveries(db, rows);
    return { data: inserted.map((d) => toDelivery(d, event.type, [])) };
  }

  async function endpointDeliveries(ctx: RequestCtx, endpointId: string, query: PageQuery & { status?: string; eventId?: string }) {
    if (!(await endpoints.findEndpoint(db, ctx, endpointId))) throw notFound("Webhook endpoint", endpointId);
    const page = await deliveries.listDeliveries(db, ctx, { endpointId, status: query.status, eventId: query.eventId }, query);
    return { data: await withAttempts(page.data), hasMore: page.hasMore };
  }

  return { list, get, redeliver, endpointDeliveries };
}

export type EventService = ReturnType<typeof createEventService>;
