import { and, eq, is, isNull, sql } from "drizzle-orm";
import { PgTransaction } from "drizzle-orm/pg-core";
import type { Queryable } from "../../db/client.js";
import { webhookEndpoints } from "../../db/schema.js";
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

/** The merchant's enabled endpoints, read once per transaction (a charge records two events). */
type EndpointRow = { id: string; url: string; events: string[] };
const endpointsSeen = new WeakMap<Queryable, Map<string, EndpointRow[]>>();

async function enabledEndpoints(tx: Queryable, merchantId: string, environment: Environment): Promise<EndpointRow[]> {
  // Only a transaction's reads are kept (and die with it); a call on the database reads afresh.
  let seen = endpointsSeen.get(tx);
  if (!seen && is(tx, PgTransaction)) endpointsSeen.set(tx, (seen = new Map()));
  const key = `${merchantId}:${environment}`;
  const known = seen?.get(key);
  if (known) return known;
  // Inside one transaction, the list read first is as valid for the second event as a fresh
  // read would be: an endpoint added by a transaction that commits in between is not
  // guaranteed either way, and both events of a charge then go to the same endpoints.
  const rows = await tx
    .select({ id: webhookEndpoints.id, url: webhookEndpoints.url, events: webhookEndpoints.events })
    .from(webhookEndpoints)
    .where(and(
      eq(webhookEndpoints.merchantId, merchantId),
      eq(webhookEndpoints.environment, environment),
      eq(webhookEndpoints.enabled, true),
      isNull(webhookEndpoints.deletedAt),
    ));
  seen?.set(key, rows);
  return rows;
}

/**
 * Records an event and its deliveries in the caller's transaction (transactional outbox):
 * the event commits with the change it reports or not at all, and the worker delivers it
 * after commit. Where it goes is decided by the catalog entry of its type, so a new kind of
 * event is a catalog line, not new plumbing. The event and its deliveries are one statement
 * (a data-modifying CTE), one round trip.
 */
export async function recordEvent(tx: Queryable, input: EventInput): Promise<string> {
  const spec = EVENT_CATALOG[input.type];
  const id = newId("evt");
  const deliveries: { id: string; endpointId: string | null; url: string; kind: string }[] = [];
  if (spec.toEndpoints) {
    for (const e of await enabledEndpoints(tx, input.merchantId, input.environment)) {
      if (e.events.includes("*") || e.events.includes(input.type)) deliveries.push({ id: newId("whd"), endpointId: e.id, url: e.url, kind: "endpoint" });
    }
  }
  if (spec.toPostback && input.postbackUrl) {
    deliveries.push({ id: newId("whd"), endpointId: null, url: input.postbackUrl, kind: spec.envelope === "legacy" ? "legacy" : "postback" });
  }
  const event = sql`insert into events (id, merchant_id, environment, type, envelope, object_id, data)
    values (${id}, ${input.merchantId}, ${input.environment}, ${input.type}, ${spec.envelope}, ${input.objectId}, ${JSON.stringify(input.data)}::jsonb)`;
  if (deliveries.length === 0) {
    await tx.execute(event);
    return id;
  }
  const rows = sql.join(deliveries.map((d) =>
    sql`(${d.id}, ${id}, ${input.merchantId}, ${input.environment}, ${d.endpointId}, ${d.url}, ${d.kind})`), sql`, `);
  await tx.execute(sql`with event as (${event})
    insert into webhook_deliveries (id, event_id, merchant_id, environment, endpoint_id, url, kind) values ${rows}`);
  return id;
}
