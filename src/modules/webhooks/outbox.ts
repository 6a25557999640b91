import { Statement, insertInto, write, type Sink } from "../../db/batch.js";
import { events, webhookDeliveries } from "../../db/schema.js";
import type { Environment } from "../../core/context.js";
import { newId } from "../../lib/ids.js";
import { EVENT_CATALOG, type EventType } from "./catalog.js";
import { reactionRows } from "./reactions.js";

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
 * Records events and their deliveries in the caller's transaction or batch (transactional
 * outbox): the events commit with the change they report or not at all, and the worker delivers
 * them after commit. Where each goes is decided by the catalog entry of its type, so a new kind
 * of event is a catalog line, not new plumbing.
 *
 * Endpoint deliveries are queued by the database itself, INSERT ... SELECT from the merchant's
 * enabled endpoints subscribed to the type, so recording costs no read: the events, the endpoint
 * deliveries and the postback deliveries are parts of one statement. A delivery's id is the
 * event's time and a digest of (event, endpoint): time-ordered like every id, unique per pair.
 */
export async function recordEvents(sink: Sink, inputs: EventInput[]): Promise<string[]> {
  // Ids a millisecond apart in the given order: events are listed and delivered by id, and ids
  // made within one millisecond would otherwise sort by their random part.
  const now = Date.now();
  const rows = inputs.map((input, i) => ({ input, id: newId("evt", now + i), spec: EVENT_CATALOG[input.type] }));
  const postbacks = rows.flatMap(({ input, id, spec }) => spec.toPostback && input.postbackUrl
    ? [{
        id: newId("whd"), eventId: id, merchantId: input.merchantId, environment: input.environment, endpointId: null,
        url: input.postbackUrl, kind: spec.envelope === "legacy" ? "legacy" : "postback",
      }]
    : []);
  const toEndpoints = rows.filter((r) => r.spec.toEndpoints);
  // The subscribers' reactions (reactions.ts) are one more part of the same statement.
  const reactions = reactionRows(rows.map(({ input, id }) => ({ id, type: input.type, merchantId: input.merchantId, environment: input.environment })));
  await write(sink, () => {
    const parts = [insertInto(events, rows.map(({ input, id, spec }) => ({
      id, merchantId: input.merchantId, environment: input.environment, type: input.type, envelope: spec.envelope,
      objectId: input.objectId, data: input.data,
    })))];
    if (toEndpoints.length > 0) parts.push(endpointDeliveries(toEndpoints.map(({ input, id }) => [id, input.type, input.merchantId, input.environment])));
    if (postbacks.length > 0) parts.push(insertInto(webhookDeliveries, postbacks));
    if (reactions) parts.push(reactions);
    return parts;
  });
  return rows.map((r) => r.id);
}

/** The deliveries of events (id, type, merchant, environment) to the endpoints subscribed to them. */
function endpointDeliveries(wanted: [string, string, string, string][]): Statement {
  return new Statement(`endpoint deliveries ${wanted.length}`, (p) => `insert into webhook_deliveries (id, event_id, merchant_id, environment, endpoint_id, url, kind)
    select 'whd_' || substr(v.event_id, 5, 10) || substr(md5(v.event_id || ':' || e.id), 1, 16),
           v.event_id, e.merchant_id, e.environment, e.id, e.url, 'endpoint'
    from (values ${wanted.map((_, k) => `(${p(4 * k)}::text, ${p(4 * k + 1)}::text, ${p(4 * k + 2)}::text, ${p(4 * k + 3)}::text)`).join(", ")})
      as v (event_id, type, merchant_id, environment)
    join webhook_endpoints e on e.merchant_id = v.merchant_id and e.environment = v.environment
    where e.enabled and e.deleted_at is null
      and (e.events @> '["*"]'::jsonb or e.events @> jsonb_build_array(v.type))`, wanted.flat());
}

/** Records one event and its deliveries (recordEvents for one). */
export async function recordEvent(sink: Sink, input: EventInput): Promise<string> {
  const [id] = await recordEvents(sink, [input]);
  return id!;
}
