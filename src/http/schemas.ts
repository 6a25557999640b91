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

/** The error responses a route may answer, by status. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const s of statuses) out[s] = Type.Ref("ErrorBody");
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

export function ListOf<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    hasMore: Type.Boolean({ description: "Whether more objects follow the last one in this order." }),
  });
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
