import { Type } from "typebox";
import { ListOf, ListQuery, MerchantUrl } from "../../http/schemas.js";
import { ENDPOINT_EVENT_TYPES } from "./catalog.js";

export const MAX_ENDPOINTS = 16;

const Url = MerchantUrl({
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

// The secret is a placeholder: a real one is whsec_ and the base64 of 32 random bytes.
export const ENDPOINT_EXAMPLE = {
  id: "whe_01jd3k5x7m9q2r4t6v8w0y2z4a", url: "https://loja-exemplo.com.br/webhooks/feira", events: ["charge.paid", "charge.refunded"],
  enabled: true, description: "Order fulfilment", disabledReason: null, failingSince: null, livemode: false,
  createdAt: "2026-11-23T12:00:00.000Z", updatedAt: "2026-11-23T12:00:00.000Z",
};
const SECRET_EXAMPLE = "whsec_EXAMPLE-shown-once-store-it";
const ROTATED_AT = "2026-11-24T09:00:00.000Z";
const OLD_SECRET_UNTIL = "2026-11-25T09:00:00.000Z";

export const WebhookEndpoint = Type.Object(endpointFields, { examples: [ENDPOINT_EXAMPLE] });

// Null only in an idempotent replay of the answer that showed it (Idempotent-Redacted-Fields).
const Secret = Type.Union([Type.String(), Type.Null()], {
  description: "Standard Webhooks signing secret (whsec_ + base64). Returned only when created or rotated; store it. Null in an idempotent replay: a secret is shown once.",
});

export const WebhookEndpointWithSecret = Type.Object({ ...endpointFields, secret: Secret }, { examples: [{ ...ENDPOINT_EXAMPLE, secret: SECRET_EXAMPLE }] });

const PreviousSecretExpiresAt = Type.String({
  format: "date-time",
  description: "Until then deliveries carry a second signature, made with the secret this rotation replaced.",
});

export const RotatedEndpointSecret = Type.Object({ ...endpointFields, secret: Secret, previousSecretExpiresAt: PreviousSecretExpiresAt }, {
  examples: [{ ...ENDPOINT_EXAMPLE, updatedAt: ROTATED_AT, secret: SECRET_EXAMPLE, previousSecretExpiresAt: OLD_SECRET_UNTIL }],
});

export const EndpointList = ListOf(WebhookEndpoint, {
  data: [
    { ...ENDPOINT_EXAMPLE, id: "whe_01jd3p2r4t6v8x0z2b4d6f8h0k", url: "https://erp.loja-exemplo.com.br/feira/events", events: ["*"], description: "ERP sync" },
    ENDPOINT_EXAMPLE,
  ],
  hasMore: false,
});

export const ListEndpointsQuery = Type.Object({ ...ListQuery }, { additionalProperties: false });

export const DeletedEndpoint = Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { examples: [{ id: ENDPOINT_EXAMPLE.id, deleted: true }] });

const postbackSecretFields = {
  secret: Secret,
  createdAt: Type.String({ format: "date-time" }),
};

export const PostbackSecret = Type.Object(postbackSecretFields, { examples: [{ secret: SECRET_EXAMPLE, createdAt: "2026-11-23T12:00:00.000Z" }] });

export const RotatedPostbackSecret = Type.Object({
  ...postbackSecretFields,
  previousSecretExpiresAt: Type.Union([PreviousSecretExpiresAt, Type.Null()], {
    description: "Until then postbacks also carry a signature made with the replaced secret; null when there was none (first use).",
  }),
}, { examples: [{ secret: SECRET_EXAMPLE, createdAt: ROTATED_AT, previousSecretExpiresAt: OLD_SECRET_UNTIL }] });
