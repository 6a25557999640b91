import { LogController, type FastifyReply, type FastifyRequest } from "fastify";
import { maskUrlPath } from "../lib/redact.js";

// One line per request, written when the answer has gone: method, path, status, duration and
// (bound by Fastify to every line of a request) reqId, in place of Fastify's pair of lines. The
// path is masked here, where it is still a URL: the logger's own mask reads no percent-encoding.
// The API page's assets and health checks are noise at info level: they are logged at debug.
const QUIET = /^\/(docs(\/|$)|health$|ready$|metrics$|favicon\.ico$)/;

// A 503 the process answers on purpose (it is starting or draining) is not an error of the
// process: its line keeps the level of any other answer, so that "level 50" stays a fault.
const planned = new WeakSet<FastifyReply>();
export function plannedUnavailable(reply: FastifyReply): void {
  planned.add(reply);
}

export class RequestLog extends LogController {
  // At debug, the request's arrival too: what a stuck or slow request was doing.
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, "incoming request");
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const path = maskUrlPath(request.url);
    const status = reply.statusCode;
    const durationMs = Math.round(reply.elapsedTime * 10) / 10;
    const level = (error || status >= 500) && !planned.has(reply) ? "error" : QUIET.test(path) ? "debug" : "info";
    const fields = { method: request.method, path, status, durationMs, ...(error ? { err: error } : {}) };
    request.log[level](fields, `${request.method} ${path} ${status} ${durationMs}ms`);
  }

  // The request line already says 404.
  override routeNotFound(): void {}
}
