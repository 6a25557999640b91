import { Type, type TSchema } from "typebox";
import { ListOf, ListQuery } from "../../http/schemas.js";

const DateTime = Type.String({ format: "date-time" });
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const DELIVERY_STATUSES = ["pending", "delivering", "delivered", "failed", "skipped"] as const;

export const Attempt = Type.Object({
  attempt: Type.Integer({ description: "1 for the first attempt." }),
  startedAt: DateTime,
  durationMs: Type.Integer(),
  responseStatus: Nullable(Type.Integer({ description: "HTTP status of the answer; null when none came (timeout, refused, blocked)." })),
  error: Nullable(Type.String({ description: "Why the attempt failed without an answer, e.g. a timeout or a blocked address." })),
  responseExcerpt: Nullable(Type.String({ description: "The first KiB of the answer's body." })),
});

// Examples: the charge.paid of a Pix of R$ 120,00 (data in cents, snake_case), delivered to the
// endpoint example at the first attempt.
const EVENT_ID = "evt_01jd3k5x7m9q2r4t6v8w0y2z4a";
const ENDPOINT_ID = "whe_01jd3k5x7m9q2r4t6v8w0y2z4a";
const PAID_AT = "2026-11-23T12:03:10.000Z";
const DELIVERY_EXAMPLE = {
  id: "whd_01jd3k6a8c0e2g4j6m8p0r2t4w", eventId: EVENT_ID, eventType: "charge.paid", endpointId: ENDPOINT_ID, kind: "endpoint",
  url: "https://loja-exemplo.com.br/webhooks/feira", status: "delivered", attemptCount: 1, nextAttemptAt: null, lastResponseStatus: 200,
  lastError: null, deliveredAt: "2026-11-23T12:03:10.412Z", createdAt: PAID_AT,
  attempts: [{ attempt: 1, startedAt: "2026-11-23T12:03:10.180Z", durationMs: 232, responseStatus: 200, error: null, responseExcerpt: "{\"received\":true}" }],
};
const RETRYING_DELIVERY_EXAMPLE = {
  ...DELIVERY_EXAMPLE, id: "whd_01jd3k7b9d1f3h5k7n9q1s3v5x", eventId: "evt_01jd3k4w6y8a0c2e4g6j8m0p2r", eventType: "charge.pending",
  status: "pending", attemptCount: 1, nextAttemptAt: "2026-11-23T12:00:05.600Z", lastResponseStatus: 503, deliveredAt: null, createdAt: "2026-11-23T12:00:00.000Z",
  attempts: [{ attempt: 1, startedAt: "2026-11-23T12:00:00.150Z", durationMs: 1450, responseStatus: 503, error: null, responseExcerpt: "Service Unavailable" }],
};
const EVENT_EXAMPLE = {
  id: EVENT_ID, type: "charge.paid", livemode: false, objectId: "ch_01jd3m7q2w4e6r8t0y2v4x6z8b",
  data: {
    id: "ch_01jd3m7q2w4e6r8t0y2v4x6z8b", merchant_id: "mer_01jd59z0c1v2b3n4m5k6j7h8g9", status: "paid", is_test: true,
    amount: 12000, amount_refunded: 0, spread: 119, anticipation_fee_estimated: 0, net: 11881, currency: "BRL",
    customer: { id: "cus_01jd3k2m4n9z8y7x6w5v4t3s2r", name: "Maria Silva", email: "maria@example.com", phone: "+5511912345678", document: { type: "cpf", id: "52998224725" } },
    payment_method: { type: "pix" },
    payment_details: { txid: "1jd3m7q2w4e6r8t0y2v4x6z8b", expiresAt: "2026-11-23T13:00:00.000Z" },
    psp_ref_id: "sbx_XggIvLfIfqT6t0qVtS0IK3vZ", failure_reason: null, metadata: { orderId: "1002" }, postback_url: null,
    tracking_info: null, shipping_address: null, payment_link_id: null, freight_amount: null, freight_details: null,
    paid_at: PAID_AT, created_at: "2026-11-23T12:00:00.000Z", updated_at: PAID_AT, deleted_at: null,
  },
  createdAt: PAID_AT,
};

export const Delivery = Type.Object({
  id: Type.String({ description: "whd_..." }),
  eventId: Type.String(),
  eventType: Type.String(),
  endpointId: Nullable(Type.String()),
  kind: Type.String({
    enum: ["endpoint", "postback", "legacy"],
    description: "endpoint: a webhook endpoint; postback: the object's postback URL; legacy: the camelCase charge.updated postback.",
  }),
  url: Type.String(),
  status: Type.String({
    enum: [...DELIVERY_STATUSES],
    description: "pending (waiting for its next attempt), delivering, delivered (a 2xx answer), failed (attempts used up, 410 Gone, or the endpoint was disabled for failing), skipped (the endpoint was disabled or deleted before sending).",
  }),
  attemptCount: Type.Integer(),
  nextAttemptAt: Nullable(DateTime),
  lastResponseStatus: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  deliveredAt: Nullable(DateTime),
  createdAt: DateTime,
  attempts: Type.Array(Attempt, { description: "Every attempt, oldest first." }),
}, { examples: [DELIVERY_EXAMPLE] });

const eventFields = {
  id: Type.String({ description: "evt_...; also the webhook-id header and the id of the standard envelope, the same on every attempt and redelivery." }),
  type: Type.String({ description: "e.g. charge.paid" }),
  livemode: Type.Boolean(),
  objectId: Nullable(Type.String({ description: "The charge, payout or submerchant the event reports." })),
  data: Type.Record(Type.String(), Type.Unknown(), { description: "The payload's data as webhook endpoints receive it (for charge events: the charge, snake_case, amounts in cents)." }),
  createdAt: DateTime,
};

export const Event = Type.Object(eventFields, { examples: [EVENT_EXAMPLE] });

export const EventDetail = Type.Object({
  ...eventFields,
  deliveries: Type.Array(Delivery, { description: "Every delivery of this event (endpoints and postback URL), with attempts." }),
}, { examples: [{ ...EVENT_EXAMPLE, deliveries: [DELIVERY_EXAMPLE] }] });

export const ListEventsQuery = Type.Object({
  ...ListQuery,
  type: Type.Optional(Type.String({
    pattern: "^[a-z_]+(\\.[a-z_]+)*(\\.\\*)?$",
    maxLength: 100,
    description: "Event type, e.g. charge.paid; a trailing .* matches a family (charge.*).",
  })),
}, { additionalProperties: false });

export const EventList = ListOf(Event, { data: [EVENT_EXAMPLE], hasMore: true });

export const RedeliverBody = Type.Object({
  endpointId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Only to this endpoint; by default to every enabled endpoint that subscribes to the event, and to the postback URL when the event had one." })),
}, { additionalProperties: false });

export const DeliveryBatch = Type.Object({ data: Type.Array(Delivery) }, {
  examples: [{ data: [{ ...DELIVERY_EXAMPLE, id: "whd_01jd3q3s5v7x9z1b3d5f7h9k1m", status: "pending", attemptCount: 0, nextAttemptAt: "2026-11-24T10:15:00.000Z", lastResponseStatus: null, deliveredAt: null, createdAt: "2026-11-24T10:15:00.000Z", attempts: [] }] }],
});

export const ListDeliveriesQuery = Type.Object({
  ...ListQuery,
  status: Type.Optional(Type.String({ enum: [...DELIVERY_STATUSES] })),
  eventId: Type.Optional(Type.String({ maxLength: 64 })),
}, { additionalProperties: false });

export const DeliveryList = ListOf(Delivery, { data: [DELIVERY_EXAMPLE, RETRYING_DELIVERY_EXAMPLE], hasMore: true });
