import { and, eq, isNull } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { events, webhookDeliveries, webhookEndpoints } from "../../db/schema.js";
import type { Environment } from "../../http/context.js";
import { newId } from "../../lib/ids.js";
import { EVENT_CATALOG, type EventType } from "./catalog.js";

export interface EventInput {
  merchantId: string;
  environment: Environment;
  type: EventType;
  /** The id of the object the event reports (charge, payout, submerchant). */
  objectId: string;
  data: Record<string, unknown>;
  /** The object's own postback URL (charge postbackUrl, submerchant postbackUrl), if any. */
  postbackUrl?: string | null;
}

/**
 * Records an event and its deliveries in the caller's transaction (transactional outbox):
 * the event commits with the change it reports or not at all, and the worker delivers it
 * after commit. Where it goes is decided by the catalog entry of its type, so a new kind of
 * event is a catalog line, not new plumbing.
 */
export async function recordEvent(tx: Queryable, input: EventInput): Promise<string> {
  const spec = EVENT_CATALOG[input.type];
  const id = newId("evt");
  await tx.insert(events).values({
    id,
    merchantId: input.merchantId,
    environment: input.environment,
    type: input.type,
    envelope: spec.envelope,
    objectId: input.objectId,
    data: input.data,
  });
  const deliveries: (typeof webhookDeliveries.$inferInsert)[] = [];
  if (spec.toEndpoints) {
    const endpoints = await tx
      .select({ id: webhookEndpoints.id, url: webhookEndpoints.url, events: webhookEndpoints.events })
      .from(webhookEndpoints)
      .where(and(
        eq(webhookEndpoints.merchantId, input.merchantId),
        eq(webhookEndpoints.environment, input.environment),
        eq(webhookEndpoints.enabled, true),
        isNull(webhookEndpoints.deletedAt),
      ));
    for (const e of endpoints) {
      if (e.events.includes("*") || e.events.includes(input.type)) {
        deliveries.push({ id: newId("whd"), eventId: id, merchantId: input.merchantId, environment: input.environment, endpointId: e.id, url: e.url, kind: "endpoint" });
      }
    }
  }
  if (spec.toPostback && input.postbackUrl) {
    deliveries.push({
      id: newId("whd"), eventId: id, merchantId: input.merchantId, environment: input.environment,
      endpointId: null, url: input.postbackUrl, kind: spec.envelope === "legacy" ? "legacy" : "postback",
    });
  }
  if (deliveries.length > 0) await tx.insert(webhookDeliveries).values(deliveries);
  return id;
}
