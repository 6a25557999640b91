import type { RouteOptions } from "fastify";
import type { AuthMode } from "./context.js";
import { ERROR_CODES, type ErrorCode } from "../core/errors.js";
import { PARSER_REFUSALS } from "./errors.js";
import { errorResponse, givenExample, isErrorResponse } from "./schemas.js";
import { unauthorizedMessage } from "./unauthorized.js";

// Each operation's error answers in the OpenAPI document: the statuses it can really answer,
// each with an example body as that route answers it. Routes declare the errors of their own
// rules (errors(404, 409, ...), with a message where the one made here would not be theirs);
// what the HTTP layer answers on every route of a kind is added here, from the route itself:
// - 400: a body that is not JSON (routes that read a body), a malformed or over-long path parameter;
// - 401, 403, 429: routes with credentials (unknown key, inactive merchant, rate limits);
// - 409, 422: an Idempotency-Key still in flight or reused with another body (POST);
// - 413, 415: a body over 1 MiB or not JSON (routes that read a body);
// - 422: every route (the input guard refuses NUL and lone surrogates in headers and queries);
// - 408, 431: every route (headers not received within 60 s, or a request line and headers over
//   16 KiB, refused by the HTTP parser).
// test/foundation/openapi-errors.test.ts provokes each status of a sample of routes and compares
// the answer with the example; the fuzz test fails on a 4xx that the operation does not list.

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const EXAMPLE_ID = "01jd3m7q2w4e6r8t0y2v4x6z8b";

// What a path's last parameter names, by the segment before it: "Charge ch_... not found".
const RESOURCES: Record<string, [name: string, prefix: string]> = {
  charges: ["Charge", "ch_"], customers: ["Customer", "cus_"], cards: ["Card", "card_"], events: ["Event", "evt_"],
  "webhook-endpoints": ["Webhook endpoint", "whe_"], "payment-links": ["Payment link", "pl_"], plans: ["Plan", "plan_"],
  subscriptions: ["Subscription", "sub_"], submerchants: ["Submerchant", "sm_"], "payout-requests": ["Payout request", "po_"],
  documents: ["Document", "doc_"], merchants: ["Merchant", "mer_"], "sub-accounts": ["Sub-account", "sm_"],
};
// A route without a path parameter that answers 404 does so for an object its body or query names.
const REFERENCES: Record<string, string> = { planId: "plans", customerId: "customers", customer: "customers", cardId: "cards" };

type ObjectSchema = { properties?: Record<string, { maxLength?: number; maximum?: number }>; required?: string[]; minProperties?: number };

interface Facts {
  method: string;
  url: string;
  mode: AuthMode;
  readsBody: boolean;
  idempotent: boolean;
  body?: ObjectSchema;
  query?: ObjectSchema;
  params?: ObjectSchema;
}

const factsOf = (route: RouteOptions): Facts => {
  const method = (Array.isArray(route.method) ? route.method[0] : route.method) ?? "GET";
  const schema = (route.schema ?? {}) as { body?: ObjectSchema; querystring?: ObjectSchema; params?: ObjectSchema };
  return {
    method, url: route.url, mode: route.config?.auth ?? "secretKey",
    readsBody: BODY_METHODS.has(method),
    idempotent: method === "POST" && route.config?.idempotent !== false,
    body: schema.body, query: schema.querystring, params: schema.params,
  };
};

/** The statuses every route of this kind can answer, whatever its own rules. */
function structural(f: Facts): number[] {
  const out = [408, 422, 431];
  if (f.readsBody || f.url.includes(":")) out.push(400);
  if (f.readsBody) out.push(413, 415);
  if (f.mode !== "public") out.push(401, 429);
  if (f.mode !== "public" && f.mode !== "admin") out.push(403);
  if (f.idempotent) out.push(409);
  return out;
}

function resourceOf(f: Facts): [string, string] | undefined {
  const segments = f.url.split("/");
  for (let i = segments.length - 1; i > 0; i--) {
    if (segments[i]!.startsWith(":")) {
      const found = RESOURCES[segments[i - 1]!];
      if (found) return found;
    }
  }
  for (const field of [...Object.keys(f.body?.properties ?? {}), ...Object.keys(f.query?.properties ?? {})]) {
    const collection = REFERENCES[field];
    if (collection) return RESOURCES[collection];
  }
  return undefined;
}

function validationMessage(f: Facts): [ErrorCode, string] {
  const required = f.body?.required?.[0];
  if (required) return ["validation_failed", `${required} is required`];
  if (f.body?.minProperties) return ["validation_failed", `body must NOT have fewer than ${f.body.minProperties} properties`];
  if (f.body) return ["validation_failed", "colour is not a recognized field"];
  const limit = f.query?.properties?.limit?.maximum;
  if (limit !== undefined) return ["validation_failed", `querystring.limit must be <= ${limit}`];
  const param = Object.entries(f.params?.properties ?? {}).find(([, s]) => s.maxLength !== undefined);
  if (param) return ["validation_failed", `params.${param[0]} must NOT have more than ${param[1].maxLength} characters`];
  if (f.idempotent) return ["idempotency_mismatch", "Idempotency-Key was already used with a different request body; use a new key for a new request"];
  return ["validation_failed", "headers.x-request-id must not contain NUL characters"];
}

function forbiddenMessage(f: Facts): string {
  if (f.url.startsWith("/v1/sandbox/clock")) return "Forbidden: the test clock moves sandbox time only; use a sandbox (sk_test_) key";
  if (f.url.startsWith("/v1/sandbox/")) return "Forbidden: sandbox endpoints need a sandbox (sk_test_) key";
  if (/^\/v1\/(submerchants|connect|payout-requests)/.test(f.url)) return "Forbidden: Connect is not enabled for this merchant";
  return "Forbidden: the merchant account is not active";
}

/** The example answer of `status` on this route, made from the route's own facts. */
function derived(status: number, f: Facts): [ErrorCode, string] {
  const [name, prefix] = resourceOf(f) ?? ["Charge", "ch_"];
  switch (status) {
    case 400: return ["bad_request", f.readsBody ? "Malformed JSON in request body" : "A path parameter is longer than 100 characters"];
    case 401: return ["unauthorized", f.mode === "public" ? "Unauthorized" : unauthorizedMessage(f.mode, "no Authorization header")];
    case 403: return ["forbidden", forbiddenMessage(f)];
    case 404: return ["not_found", `${name} ${prefix}${EXAMPLE_ID} not found`];
    case 409: return f.idempotent
      ? ["idempotency_in_progress", "A request with this Idempotency-Key is still being processed; retry in a few seconds with the same key and body"]
      : ["invalid_state", `${name} ${prefix}${EXAMPLE_ID} was changed by another request; retry`];
    case 413: return ["payload_too_large", "Request body is too large"];
    case 408: case 431: return [...PARSER_REFUSALS[status]];
    case 415: return ["unsupported_media_type", "Unsupported Media Type: send the body as application/json (Content-Type: application/json)"];
    case 422: return validationMessage(f);
    case 429: return ["rate_limited", f.mode === "admin"
      ? "Too many failed authentications from this address; retry later"
      : f.mode === "public" ? "Too many attempts from this address; retry in a minute" : "Too many requests for this API key: the limit is 100 per second"];
    case 503: return ["unavailable", "The shipping provider is unavailable right now; retry shortly"];
    default: return ["internal", "Internal server error"];
  }
}

/**
 * onRoute (src/http/hooks.ts), after declareAuthMode, whose mode it reads: every error answer a
 * route can give, with its example, in the document.
 */
export function documentErrors(route: RouteOptions): void {
  const schema = route.schema as { hide?: boolean; response?: Record<string, unknown> } | undefined;
  if (!schema?.response || schema.hide) return;
  const f = factsOf(route);
  const response: Record<string, unknown> = { ...schema.response };
  const statuses = new Set([...Object.keys(response).map(Number).filter((s) => s >= 400), ...structural(f)]);
  for (const status of [...statuses].sort()) {
    const current = response[status];
    // A route's own example, or an answer that is not the error shape (/health's 503), stays.
    if (current !== undefined && (givenExample(current) || !isErrorResponse(current))) continue;
    const [code, message] = derived(status, f);
    response[status] = errorResponse(status, code, message);
  }
  // The document gets every error answer with its example; the route's serializers only the
  // other answers. An error body is always errorBody()'s four fields, written by the one
  // error handler (src/http/errors.ts), so a serializer per route and status (498 of them,
  // 7 MB of heap, nearly all of them the same ErrorBody) would add nothing but memory.
  const serialized: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(response)) if (!isErrorResponse(answer)) serialized[status] = answer;
  const documented = { ...route.schema, response };
  route.schema = { ...route.schema, response: serialized } as typeof route.schema;
  route.config = { ...route.config, swaggerTransform: ({ url }: { url: string }) => ({ schema: documented, url }) } as typeof route.config;
}

/** The codes a status may carry (the example's code must be one of them). */
export const codesOf = (status: number): ErrorCode[] => ERROR_CODES.filter(([, s]) => s === status).map(([c]) => c);
