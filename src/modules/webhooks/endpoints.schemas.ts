import { Type } from "typebox";
import { ListOf, ListQuery } from "../../http/schemas.js";
import { ENDPOINT_EVENT_TYPES } from "./catalog.js";

export const MAX_ENDPOINTS = 16;

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    "Where events are POSTed. Production endpoints must be https and must not resolve to loopback, private, link-local or metadata addresses; sandbox ones may be http and local.",
});

const EventFilter = Type.Array(
  Type.String({ enum: ["*", ...ENDPOINT_EVENT_TYPES] }),
  {
    minItems: 1,
    maxItems: 50,
    uniqueItems: true,
    description: `Event types this endpoint receives; ["*"] (the default) means all. charge.updated (legacy) and submerchant status notifications go only to postback URLs and cannot be subscribed to.`,
  },
);

const Description = Type.String({ maxLength: 500, description: "Free text for the merchant's own reference." });

export const CreateEndpointBody = Type.Object({
  url: Url,
  events: Type.Optional(EventFilter),
  enabled: Type.Optional(Type.Boolean({ default: true, description: "A disabled endpoint receives nothing." })),
  description: Type.Optional(Description),
}, { additionalProperties: false, examples: [{ url: "https://loja-exemplo.com.br/webhooks/feira", events: ["charge.paid", "charge.refunded"], description: "Order fulfilment" }] });

export const PatchEndpointBody = Type.Object({
  url: Type.Optional(Url),
  events: Type.Optional(EventFilter),
  enabled: Type.Optional(Type.Boolean({ description: "true re-enables an endpoint disabled by the service (410 Gone, or failing for days) and clears disabledReason." })),
  description: Type.Optional(Type.Union([Description, Type.Null()])),
}, { additionalProperties: false, minProperties: 1, examples: [{ events: ["*"], enabled: true }] });

const endpointFields = {
  id: Type.String({ description: "whe_..." }),
  url: Type.String(),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  description: Type.Union([Type.String(), Type.Null()]),
  disabledReason: Type.Union([Type.String(), Type.Null()], {
    description: "Why the service disabled the endpoint (a 410 Gone answer, or failing for days); null when enabled or disabled by the merchant.",
  }),
  failingSince: Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
    description: "Start of the current run of failed deliveries; null after a success.",
  }),
  livemode: Type.Boolean({ description: "true for production endpoints." }),
  createdAt: Type.String({ format: "date-time" }),
  updatedAt: Type.String({ format: "date-time" }),
};

export const WebhookEndpoint = Type.Object(endpointFields);

// Null only in an idempotent replay of the answer that showed it (Idempotent-Redacted-Fields).
const Secret = Type.Union([Type.String(), Type.Null()], {
  description: "Standard Webhooks signing secret (whsec_ + base64). Returned only when created or rotated; store it. Null in an idempotent replay: a secret is shown once.",
});

export const WebhookEndpointWithSecret = Type.Object({ ...endpointFields, secret: Secret });

const PreviousSecretExpiresAt = Type.String({
  format: "date-time",
  description: "Until then deliveries carry a second signature, made with the secret this rotation replaced.",
});

export const RotatedEndpointSecret = Type.Object({ ...endpointFields, secret: Secret, previousSecretExpiresAt: PreviousSecretExpiresAt });

export const EndpointList = ListOf(WebhookEndpoint);

export const ListEndpointsQuery = Type.Object({ ...ListQuery }, { additionalProperties: false });

export const DeletedEndpoint = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });

const postbackSecretFields = {
  secret: Secret,
  createdAt: Type.String({ format: "date-time" }),
};

export const PostbackSecret = Type.Object(postbackSecretFields);

export const RotatedPostbackSecret = Type.Object({
  ...postbackSecretFields,
  previousSecretExpiresAt: Type.Union([PreviousSecretExpiresAt, Type.Null()], {
    description: "Until then postbacks also carry a signature made with the replaced secret; null when there was none (first use).",
  }),
});
