import { STATUS_CODES } from "node:http";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import { maskCardNumbers, maskUrlPath } from "../lib/redact.js";
import { AppError, statusOf, type ErrorCode } from "../core/errors.js";
import { isDatabaseUnavailable } from "../db/unavailable.js";

// The one handler: every error, from a service (AppError, src/core/errors.ts) or from Fastify, is
// answered here in the shape {statusCode, message, error, code}.

export interface ErrorBody {
  statusCode: number;
  message: string;
  error: string;
  code: string;
}

// Every error body is built here, so this is where a message stops echoing a card number
// typed where an id, a field or a path was expected ("Charge 411111******1111 not found").
export function errorBody(statusCode: number, message: string, code: string): ErrorBody {
  return { statusCode, message: maskCardNumbers(message), error: STATUS_CODES[statusCode] ?? "Error", code };
}

// Fastify's own errors keep their status when it is a client error; everything else is a 500
// that never shows its message.
const fastifyCodes: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "unsupported_media_type",
  FST_ERR_CTP_BODY_TOO_LARGE: "payload_too_large",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "bad_request",
  FST_ERR_CTP_EMPTY_JSON_BODY: "bad_request",
  FST_ERR_CTP_INVALID_JSON_BODY: "bad_request",
};

/** Seconds a request cut by a lost database is told to wait: a failover takes a few. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

function classify(err: FastifyError, body: unknown): { status: number; code: string; message: string } {
  if (err instanceof AppError) return { status: err.statusCode, code: err.code, message: err.message };
  if (isDatabaseUnavailable(err)) {
    return {
      status: 503, code: "database_unavailable",
      message: "The database is unavailable (failing over); retry in a few seconds with the same Idempotency-Key",
    };
  }
  if (err.validation) {
    return { status: 422, code: "validation_failed", message: validationMessage(err, body) };
  }
  const mapped = err.code ? fastifyCodes[err.code] : undefined;
  if (mapped) {
    const message = mapped === "bad_request" && err.code !== "FST_ERR_CTP_EMPTY_JSON_BODY"
      ? "Malformed JSON in request body"
      // No parser for the body's type: say which one is (the upload routes, which take
      // multipart/form-data, answer their own 415).
      : mapped === "unsupported_media_type" ? "Unsupported Media Type: send the body as application/json (Content-Type: application/json)" : err.message;
    return { status: statusOf(mapped), code: mapped, message };
  }
  if (err instanceof SyntaxError || err.code === "FST_ERR_CTP_INVALID_JSON_BODY") {
    return { status: 400, code: "bad_request", message: "Malformed JSON in request body" };
  }
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return { status, code: "bad_request", message: err.message };
  return { status: 500, code: "internal", message: "Internal server error" };
}

// Names the field: "amount must be >= 1", "customer.email must match format \"email\"",
// "query.limit must be <= 100".
function validationMessage(err: FastifyError, body: unknown): string {
  const first = err.validation?.[0];
  if (!first) return err.message;
  const context = err.validationContext && err.validationContext !== "body" ? `${err.validationContext}.` : "";
  const base = first.instancePath.replace(/^\//, "").replace(/\//g, ".");
  const params = first.params as Record<string, unknown>;
  // Body errors carry the value and the field's schema (the body validator is verbose).
  const { data, parentSchema } = first as { data?: unknown; parentSchema?: { required?: string[]; minProperties?: number; description?: string; "x-pattern-message"?: string } };
  if (err.validationContext === "body" && body === undefined && first.instancePath === "") return missingBody(parentSchema);
  if (first.keyword === "required") {
    return `${context}${base ? `${base}.` : ""}${String(params.missingProperty)} is required`;
  }
  if (first.keyword === "additionalProperties") {
    return `${context}${base ? `${base}.` : ""}${String(params.additionalProperty)} is not a recognized field`;
  }
  const field = `${context}${base}` || (context ? context.slice(0, -1) : "body");
  // propertyNames (metadata keys): the error is about a key of the object, not the object.
  if ((first as { propertyName?: string }).propertyName !== undefined) return `${field} keys ${first.message ?? "are invalid"}`;
  // A pattern is no message for a person: a schema may say in words what it allows.
  if (first.keyword === "pattern" && parentSchema?.["x-pattern-message"]) return `${field} ${parentSchema["x-pattern-message"]}`;
  if (first.keyword === "discriminator") {
    return `${field}.${String(params.tag)} is missing or not one of the supported values`;
  }
  if (first.keyword === "type" && (params.type === "number" || params.type === "integer") && context === "" && typeof data !== "number") {
    return `${field} must be ${numberKind(params.type, parentSchema?.description)}, not ${kindOf(data)}`;
  }
  return `${field} ${first.message ?? "is invalid"}`;
}

// A route that needs a body, called without one: say what to send rather than "body must be object".
function missingBody(schema: { required?: string[]; minProperties?: number } | undefined): string {
  const required = schema?.required ?? [];
  const what = required.length > 0
    ? `; it requires ${required.length > 1 ? `${required.slice(0, -1).join(", ")} and ${required.at(-1)}` : required[0]}`
    : schema?.minProperties ? "; it needs at least one of its fields" : "";
  return `body is missing: this route takes a JSON object, sent with Content-Type: application/json${what} (the fields are in /docs)`;
}

// "amount": "10.00" is the common mistake. The field's description says its unit (every money
// field of a request body says "currency units" or "cents"), so the answer can show the form.
function numberKind(type: unknown, description = ""): string {
  // The unit the description names first is the field's; a cents field may name currency
  // units after it, to say how it differs from a charge's amount.
  const units = description.search(/currency units/i);
  const cents = description.search(/\bcents\b/i);
  if (units >= 0 && (cents < 0 || units < cents)) return "a number in currency units (e.g. 10.5)";
  if (cents >= 0) return "an integer number of cents (e.g. 1050)";
  return type === "integer" ? "an integer" : "a number";
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** `onDatabaseUnavailable`: called on each 503 of a lost database (the metrics count them). */
export function registerErrorHandling(app: FastifyInstance, onDatabaseUnavailable?: () => void): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const { status, code, message } = classify(err, req.body);
    // A 503 that says when to come back is load shed on purpose: one line, no stack (a flood of
    // them must not cost a stack trace each).
    const later = err instanceof AppError ? err.retryAfterSeconds
      : code === "database_unavailable" ? DATABASE_RETRY_AFTER_SECONDS : undefined;
    if (code === "database_unavailable") onDatabaseUnavailable?.();
    if (later !== undefined) reply.header("retry-after", String(later));
    if (status >= 500 && later === undefined) req.log.error({ err, requestId: req.id }, "request failed");
    else if (status >= 500) req.log.warn({ code, status }, message);
    else req.log.info({ code, status }, message);
    return reply.code(status).send(errorBody(status, message, code));
  });
}

/**
 * Fastify's own URL errors, which never reach the error handler: a path that is not valid
 * percent-encoded UTF-8 (FST_ERR_BAD_URL) or a path parameter over maxParamLength. Answered 400
 * in the error shape {statusCode, message, error, code}, without echoing the path (it may carry anything).
 */
export function handleFrameworkError(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const message = err.code === "FST_ERR_MAX_PARAM_LENGTH"
    ? "A path parameter is longer than 100 characters"
    : "Malformed URL: the path is not valid percent-encoded UTF-8";
  req.log.info({ code: err.code, status: 400 }, message);
  void reply.code(400).header("x-request-id", req.id).send(errorBody(400, message, "bad_request"));
}

/**
 * The answers of the HTTP parser's refusals that every route can meet (the OpenAPI document lists
 * them per operation with these bodies, src/http/error-docs.ts): a request line and headers over
 * 16 KiB, and headers not received within Node's headersTimeout (60 s; checked every 30 s).
 */
export const PARSER_REFUSALS = {
  431: ["headers_too_large", "The request line and headers are over 16 KiB"],
  408: ["request_timeout", "The request was not received in time"],
} as const satisfies Record<number, readonly [ErrorCode, string]>;

/**
 * What Node's HTTP parser refuses before Fastify sees a request: headers over 16 KiB (431), a
 * request that timed out (408), bytes that are not HTTP (400). Answered in the same error shape as
 * every other error, then the connection is closed (the parser cannot go on with it).
 */
export function handleClientError(err: NodeJS.ErrnoException, socket: import("node:stream").Duplex): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const [status, [code, message]]: [number, readonly [ErrorCode, string]] = err.code === "HPE_HEADER_OVERFLOW"
    ? [431, PARSER_REFUSALS[431]]
    : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? [408, PARSER_REFUSALS[408]]
      : [400, ["bad_request", "Malformed HTTP request"]];
  const body = JSON.stringify(errorBody(status, message, code));
  // As Node's own handler: not in the middle of an answer already being written on this socket
  // (a pipelined request after one still in flight).
  const answering = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && !answering?.headersSent) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n`
      + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}

/**
 * 404 for unknown routes, 405 (with Allow) when the path exists under other methods: `record`
 * (onRoute) learns every route, `answer` is the not-found handler, `answerUnknown` the
 * preValidation hook that answers unknown routes early (src/http/hooks.ts says why there).
 */
export function routeTable() {
  const known: { method: string; pattern: RegExp }[] = [];
  const record = (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const pattern = new RegExp(`^${route.url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+")}/?$`);
    for (const method of methods) known.push({ method, pattern });
  };
  const answer = (req: FastifyRequest, reply: FastifyReply) => {
    const sent = req.url.split("?")[0] ?? "";
    const allowed = [...new Set(known.filter((r) => r.pattern.test(sent)).map((r) => r.method))];
    // Echoed as the logs show it: a card number in it is masked, percent-encoded or not.
    const path = maskUrlPath(req.url);
    if (allowed.length > 0) {
      return reply
        .code(405)
        .header("allow", allowed.join(", "))
        .send(errorBody(405, `Method ${req.method} not allowed on ${path}`, "method_not_allowed"));
    }
    return reply.code(404).send(errorBody(404, `Route ${req.method} ${path} not found`, "not_found"));
  };
  const answerUnknown = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!req.routeOptions.url) return answer(req, reply);
  };
  return { record, answer, answerUnknown };
}
