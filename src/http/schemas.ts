import { STATUS_CODES } from "node:http";
import { Type, type TSchema } from "typebox";
import { ERROR_CODES, type ErrorCode } from "../core/errors.js";

// Wire pieces shared by every module.
export const ErrorBody = Type.Object(
  {
    statusCode: Type.Integer(),
    message: Type.String(),
    error: Type.String({ description: "HTTP reason phrase, e.g. Unprocessable Entity" }),
    code: Type.String({
      description: `Machine-readable error code: ${ERROR_CODES.map(([code, status]) => `${code} (${status})`).join(", ")}. ` +
        "card_number_in_text: a card number in a field not meant for card data (the message names the field); " +
        "amount_too_large: an amount above the currency's maximum (the message names the field and the maximum).",
    }),
  },
  { $id: "ErrorBody", description: "Every error has this shape." },
);

// The code an error example carries when a route gives only its message.
const PRIMARY_CODE: Record<number, ErrorCode> = {
  400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 409: "invalid_state", 413: "payload_too_large",
  415: "unsupported_media_type", 422: "validation_failed", 429: "rate_limited", 500: "internal", 503: "unavailable",
};

const ERROR_RESPONSES = new WeakSet<object>();
const GIVEN_EXAMPLES = new WeakSet<object>();

/** An error response of the document: the shared ErrorBody with one example answer. */
export function errorResponse(status: number, code: ErrorCode, message: string): TSchema {
  // allOf keeps the shared component and lets the example sit beside it (a $ref's siblings
  // are dropped when the document is built).
  const schema = Type.Unsafe({
    allOf: [Type.Ref("ErrorBody")], description: "Every error has this shape.",
    examples: [{ statusCode: status, message, error: STATUS_CODES[status] ?? "Error", code }],
  });
  ERROR_RESPONSES.add(schema);
  return schema;
}

/** A route's own example messages, by status: a message, or a code and a message. */
export type ErrorExamples = Partial<Record<number, string | [ErrorCode, string]>>;

/**
 * The error responses a route may answer because of its own rules, by status. Each gets its
 * example from src/http/error-docs.ts, which also adds what the HTTP layer answers on every
 * route of its kind; `{404: "Customer cus_... not found"}` gives the route's own message where
 * the one made from the path would not be its answer.
 */
export function errors(...entries: (number | ErrorExamples)[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const entry of entries) {
    if (typeof entry === "number") {
      const marker = Type.Ref("ErrorBody");
      ERROR_RESPONSES.add(marker);
      out[entry] = marker;
      continue;
    }
    for (const [key, given] of Object.entries(entry)) {
      const status = Number(key);
      const [code, message] = typeof given === "string" ? [PRIMARY_CODE[status] ?? "bad_request", given] : given!;
      const schema = errorResponse(status, code, message);
      GIVEN_EXAMPLES.add(schema);
      out[status] = schema;
    }
  }
  return out;
}

/** Whether a response schema came from errors() or errorResponse() (and so is an error answer). */
export const isErrorResponse = (schema: unknown): boolean => typeof schema === "object" && schema !== null && ERROR_RESPONSES.has(schema);
/** Whether a route gave this error response's example itself. */
export const givenExample = (schema: unknown): boolean => typeof schema === "object" && schema !== null && GIVEN_EXAMPLES.has(schema);

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

// Every URL a merchant stores (a webhook endpoint, a postback, a payment link's successUrl, a
// submerchant's website, a tracking link) is shown back in the panel and in API answers, and some
// are handed to a buyer's browser: only http(s) is a URL here, so `javascript:` or `data:` can never
// be stored, whatever their case or the blanks before them. The check is on the text as given (a
// browser drops leading blanks and tabs inside the scheme before it reads it, so neither may pass
// here): the scheme, "://", a host, and no blank or control character anywhere. Where feira sends
// to the URL, src/lib/url-guard.ts also judges its host.
export const HTTP_URL_PATTERN = "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#\\u0000-\\u001f\\u007f]+[^\\s\\u0000-\\u001f\\u007f]*$";
export const HTTP_URL_MESSAGE = "must be an absolute http(s) URL";

/** A URL a merchant stores: http or https only, at most 2,048 characters (422 naming the field). */
export function MerchantUrl(options: { description?: string } = {}) {
  return Type.String({ minLength: 1, maxLength: 2048, pattern: HTTP_URL_PATTERN, "x-pattern-message": HTTP_URL_MESSAGE, ...options });
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
