import { Type, type TSchema } from "typebox";

// Wire pieces shared by every module.
export const ErrorBody = Type.Object(
  {
    statusCode: Type.Integer(),
    message: Type.String(),
    error: Type.String({ description: "HTTP reason phrase, e.g. Unprocessable Entity" }),
    code: Type.String({ description: "Machine-readable error code, e.g. validation_failed" }),
  },
  { $id: "ErrorBody", description: "Every error has this shape." },
);

// What each status looks like in /docs: one typical answer per status (the message names the
// field, the id or what was expected, as the real ones do).
const ERROR_EXAMPLES: Record<number, { message: string; error: string; code: string }> = {
  400: { message: "Malformed JSON in request body", error: "Bad Request", code: "bad_request" },
  401: { message: "Unauthorized: no Authorization header; send your secret key (sk_test_... or sk_live_...) as the HTTP Basic username with an empty password, e.g. curl -u sk_test_...:", error: "Unauthorized", code: "unauthorized" },
  403: { message: "Forbidden: sandbox endpoints need a sandbox (sk_test_) key", error: "Forbidden", code: "forbidden" },
  404: { message: "Charge ch_01jd3m7q2w4e6r8t0y2v4x6z8b not found", error: "Not Found", code: "not_found" },
  409: { message: "Charge ch_01jd3m7q2w4e6r8t0y2v4x6z8b is paid and cannot become failed", error: "Conflict", code: "invalid_state" },
  413: { message: "Request body is too large", error: "Payload Too Large", code: "payload_too_large" },
  415: { message: "Unsupported Media Type: send the body as application/json (Content-Type: application/json)", error: "Unsupported Media Type", code: "unsupported_media_type" },
  422: { message: "amount must have at most 2 decimal places for BRL", error: "Unprocessable Entity", code: "validation_failed" },
  429: { message: "Too many requests for this API key: the limit is 100 per second", error: "Too Many Requests", code: "rate_limited" },
  500: { message: "Internal server error", error: "Internal Server Error", code: "internal" },
  503: { message: "The shipping provider is unavailable right now; retry shortly", error: "Service Unavailable", code: "unavailable" },
};

/** The error responses a route may answer, by status, each with its example. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const s of statuses) {
    const example = ERROR_EXAMPLES[s];
    // allOf keeps the shared component and lets the example sit beside it (a $ref's siblings
    // are dropped when the document is built).
    out[s] = example
      ? Type.Unsafe({ allOf: [Type.Ref("ErrorBody")], description: "Every error has this shape.", examples: [{ statusCode: s, ...example }] })
      : Type.Ref("ErrorBody");
  }
  return out;
}

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const IdempotencyHeaders = Type.Object({
  "idempotency-key": Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: "Replays the first response for 24 h when the same key and body are sent again.",
    }),
  ),
});

export const ListQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: "Page size, 1 to 100." })),
  startingAfter: Type.Optional(Type.String({ maxLength: 64, description: "Cursor: return objects older than this id." })),
  endingBefore: Type.Optional(Type.String({ maxLength: 64, description: "Cursor: return objects newer than this id." })),
  createdGte: Type.Optional(Type.String({ format: "date-time", description: "Only objects created at or after this time." })),
  createdLte: Type.Optional(Type.String({ format: "date-time", description: "Only objects created at or before this time." })),
};

/** A cursor page of `item`; `example` lists the objects of its documented example page. */
export function ListOf<T extends TSchema>(item: T, example?: { data: unknown[]; hasMore: boolean }) {
  return Type.Object({
    data: Type.Array(item),
    hasMore: Type.Boolean({ description: "Whether more objects follow the last one in this order." }),
  }, example ? { examples: [example] } : {});
}

export type MetadataValue = string | number | boolean | null;

// Stripe's limits: at most 50 keys of 1 to 40 characters, flat values (a string of at most 500
// characters, a number, a boolean or null). Metadata labels an object for lookups; a nested
// object would be a document store with no limit on what it holds.
export const Metadata = Type.Unsafe<Record<string, MetadataValue>>({
  type: "object",
  maxProperties: 50,
  propertyNames: { minLength: 1, maxLength: 40 },
  additionalProperties: { type: ["string", "number", "boolean", "null"], maxLength: 500 },
  description: "Free-form key/value data stored with the object: at most 50 keys of at most 40 characters; values are strings of at most 500 characters, numbers, booleans or null.",
});
