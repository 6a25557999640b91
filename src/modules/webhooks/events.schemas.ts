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
});

const eventFields = {
  id: Type.String({ description: "evt_...; also the webhook-id header and the id of the standard envelope, the same on every attempt and redelivery." }),
  type: Type.String({ description: "e.g. charge.paid" }),
  livemode: Type.Boolean(),
  objectId: Nullable(Type.String({ description: "The charge, payout or submerchant the event reports." })),
  data: Type.Record(Type.String(), Type.Unknown(), { description: "The payload's data as webhook endpoints receive it (for charge events: the charge, snake_case, amounts in cents)." }),
  createdAt: DateTime,
};

export const Event = Type.Object(eventFields);

export const EventDetail = Type.Object({
  ...eventFields,
  deliveries: Type.Array(Delivery, { description: "Every delivery of this event (endpoints and postback URL), with attempts." }),
});

export const ListEventsQuery = Type.Object({
  ...ListQuery,
  type: Type.Optional(Type.String({
    pattern: "^[a-z_]+(\\.[a-z_]+)*(\\.\\*)?$",
    maxLength: 100,
    description: "Event type, e.g. charge.paid; a trailing .* matches a family (charge.*).",
  })),
}, { additionalProperties: false });

export const EventList = ListOf(Event);

export const RedeliverBody = Type.Object({
  endpointId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Only to this endpoint; by default to every enabled endpoint that subscribes to the event, and to the postback URL when the event had one." })),
}, { additionalProperties: false });

export const DeliveryBatch = Type.Object({ data: Type.Array(Delivery) });

export const ListDeliveriesQuery = Type.Object({
  ...ListQuery,
  status: Type.Optional(Type.String({ enum: [...DELIVERY_STATUSES] })),
  eventId: Type.Optional(Type.String({ maxLength: 64 })),
}, { additionalProperties: false });

export const DeliveryList = ListOf(Delivery);
