import { STATUS_CODES } from "node:http";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { maskCardNumbers } from "../lib/redact.js";

// One error class, one code -> status table, one handler. Services throw AppError with a code;
// TypeScript makes every code have a status.
const statusOf = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  invalid_state: 409,
  idempotency_in_progress: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  idempotency_mismatch: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof statusOf;

export class AppError extends Error {
  readonly statusCode: number;
  constructor(readonly code: ErrorCode, message: string) {
    super(message);
    this.statusCode = statusOf[code];
  }
}

export const notFound = (what: string, id: string) => new AppError("not_found", `${what} ${id} not found`);
export const invalid = (message: string) => new AppError("validation_failed", message);

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

function classify(err: FastifyError): { status: number; code: string; message: string } {
  if (err instanceof AppError) return { status: err.statusCode, code: err.code, message: err.message };
  if (err.validation) {
    return { status: 422, code: "validation_failed", message: validationMessage(err) };
  }
  const mapped = err.code ? fastifyCodes[err.code] : undefined;
  if (mapped) {
    const message = mapped === "bad_request" && err.code !== "FST_ERR_CTP_EMPTY_JSON_BODY"
      ? "Malformed JSON in request body"
      // No parser for the body's type: say which one is (the upload routes, which take
      // multipart/form-data, answer their own 415).
      : mapped === "unsupported_media_type" ? "Unsupported Media Type: send the body as application/json (Content-Type: application/json)" : err.message;
    return { status: statusOf[mapped], code: mapped, message };
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
function validationMessage(err: FastifyError): string {
  const first = err.validation?.[0];
  if (!first) return err.message;
  const context = err.validationContext && err.validationContext !== "body" ? `${err.validationContext}.` : "";
  const base = first.instancePath.replace(/^\//, "").replace(/\//g, ".");
  const params = first.params as Record<string, unknown>;
  if (first.keyword === "required") {
    return `${context}${base ? `${base}.` : ""}${String(params.missingProperty)} is required`;
  }
  if (first.keyword === "additionalProperties") {
    return `${context}${base ? `${base}.` : ""}${String(params.additionalProperty)} is not a recognized field`;
  }
  const field = `${context}${base}` || (context ? context.slice(0, -1) : "body");
  // propertyNames (metadata keys): the error is about a key of the object, not the object.
  if ((first as { propertyName?: string }).propertyName !== undefined) return `${field} keys ${first.message ?? "are invalid"}`;
  if (first.keyword === "discriminator") {
    return `${field}.${String(params.tag)} is missing or not one of the supported values`;
  }
  return `${field} ${first.message ?? "is invalid"}`;
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const { status, code, message } = classify(err);
    if (status >= 500) req.log.error({ err, requestId: req.id }, "request failed");
    else req.log.info({ code, status }, message);
    return reply.code(status).send(errorBody(status, message, code));
  });
}

/**
 * Fastify's own URL errors, which never reach the error handler: a path that is not valid
 * percent-encoded UTF-8 (FST_ERR_BAD_URL) or a path parameter over maxParamLength. Answered 400
 * in the contract's shape, without echoing the path (it may carry anything).
 */
export function handleFrameworkError(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const message = err.code === "FST_ERR_MAX_PARAM_LENGTH"
    ? "A path parameter is longer than 100 characters"
    : "Malformed URL: the path is not valid percent-encoded UTF-8";
  req.log.info({ code: err.code, status: 400 }, message);
  void reply.code(400).header("x-request-id", req.id).send(errorBody(400, message, "bad_request"));
}

/** 404 for unknown routes, 405 (with Allow) when the path exists under other methods. */
export function registerNotFound(app: FastifyInstance): void {
  const known: { method: string; pattern: RegExp }[] = [];
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const pattern = new RegExp(`^${route.url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+")}/?$`);
    for (const method of methods) known.push({ method, pattern });
  });
  const answer = (req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split("?")[0] ?? "";
    const allowed = [...new Set(known.filter((r) => r.pattern.test(path)).map((r) => r.method))];
    if (allowed.length > 0) {
      return reply
        .code(405)
        .header("allow", allowed.join(", "))
        .send(errorBody(405, `Method ${req.method} not allowed on ${path}`, "method_not_allowed"));
    }
    return reply.code(404).send(errorBody(404, `Route ${req.method} ${path} not found`, "not_found"));
  };
  // Fastify runs the app's hooks for unknown routes too. Answering in an early preValidation
  // hook (after the body is parsed, so malformed JSON stays a 400) keeps them from the
  // idempotency hooks, which expect an authenticated route.
  app.addHook("preValidation", async (req, reply) => {
    if (!req.routeOptions.url) return answer(req, reply);
  });
  app.setNotFoundHandler(answer);
}
