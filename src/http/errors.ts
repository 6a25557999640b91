import { STATUS_CODES } from "node:http";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

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

export function errorBody(statusCode: number, message: string, code: string): ErrorBody {
  return { statusCode, message, error: STATUS_CODES[statusCode] ?? "Error", code };
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

/** 404 for unknown routes, 405 (with Allow) when the path exists under other methods. */
export function registerNotFound(app: FastifyInstance): void {
  const known: { method: string; pattern: RegExp }[] = [];
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const pattern = new RegExp(`^${route.url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+")}/?$`);
    for (const method of methods) known.push({ method, pattern });
  });
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split("?")[0] ?? "";
    const allowed = [...new Set(known.filter((r) => r.pattern.test(path)).map((r) => r.method))];
    if (allowed.length > 0) {
      return reply
        .code(405)
        .header("allow", allowed.join(", "))
        .send(errorBody(405, `Method ${req.method} not allowed on ${path}`, "method_not_allowed"));
    }
    return reply.code(404).send(errorBody(404, `Route ${req.method} ${path} not found`, "not_found"));
  });
}
