import type { FastifyInstance, FastifyRequest } from "fastify";

// One line per request, written when the answer has gone: method, path, status, duration and
// (bound by Fastify to every line of a request) reqId. Fastify's own pair of lines per request
// is turned off in app.ts (disableRequestLogging). The API page's assets and health checks
// are noise at info level: they are logged at debug.
const QUIET = /^\/(docs(\/|$)|health$|metrics$|favicon\.ico$)/;

const pathOf = (req: FastifyRequest) => req.url.split("?")[0] ?? "";

export function registerRequestLog(app: FastifyInstance): void {
  // At debug, the request's arrival too: what a stuck or slow request was doing.
  app.addHook("onRequest", async (req) => {
    req.log.debug({ req }, "incoming request");
  });
  app.addHook("onResponse", async (req, reply) => {
    const path = pathOf(req);
    const status = reply.statusCode;
    const durationMs = Math.round(reply.elapsedTime * 10) / 10;
    const level = status >= 500 ? "error" : QUIET.test(path) ? "debug" : "info";
    req.log[level]({ method: req.method, path, status, durationMs }, `${req.method} ${path} ${status} ${durationMs}ms`);
  });
}
