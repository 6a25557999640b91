import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import { Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { queryRows, sql, type Db } from "../db/client.js";

declare module "fastify" {
  interface FastifyInstance {
    /**
     * Readiness off, for a graceful stop: /health answers 503 and every answer closes its
     * connection, so load balancers and keep-alive clients move to other processes while the
     * requests in flight finish. Called before close().
     */
    startDraining(): void;
  }
}

// /health answers 200 once the database answers (503 once the process is draining); /metrics
// is Prometheus text. Both are public and hidden from the API document, as they describe the
// process, not the API.
export function registerOps(app: FastifyInstance, db: Db): void {
  let draining = false;
  app.decorate("startDraining", () => { draining = true; });
  app.addHook("onSend", async (_req, reply) => {
    if (draining) reply.header("connection", "close");
  });

  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "feira_" });
  const duration = new Histogram({
    name: "feira_http_request_duration_seconds",
    help: "HTTP request duration by route and status",
    labelNames: ["method", "route", "status_code"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  app.addHook("onResponse", async (req, reply) => {
    duration.observe(
      { method: req.method, route: req.routeOptions.url ?? "unmatched", status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  app.get("/health", {
    config: { auth: "public" },
    schema: {
      operationId: "health", tags: ["ops"], summary: "Health check",
      response: { 200: Type.Object({ status: Type.Literal("ok") }, { examples: [{ status: "ok" }] }), 503: Type.Object({ status: Type.Literal("unavailable") }) },
    },
  }, async (_req, reply) => {
    if (draining) return reply.code(503).send({ status: "unavailable" as const });
    try {
      await queryRows(db, sql`select 1`);
      return { status: "ok" as const };
    } catch {
      return reply.code(503).send({ status: "unavailable" as const });
    }
  });

  app.get("/metrics", { config: { auth: "public" }, schema: { hide: true } }, async (_req, reply) => {
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}
