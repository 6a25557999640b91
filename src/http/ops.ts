import net from "node:net";
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import { Type } from "typebox";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Config } from "../config.js";
import { queryRows, sql, type Db, type DatabaseTopology } from "../db/client.js";
import { safeEqual, sha256Hex } from "../lib/crypto.js";
import type { ProcessorRegistry } from "../processors/registry.js";
import { AppError } from "../core/errors.js";
import { errorBody } from "./errors.js";
import { registerReplicaMetrics, replicaHealth } from "./read-your-writes.js";
import { plannedUnavailable } from "./request-log.js";

declare module "fastify" {
  interface FastifyInstance {
    /**
     * Readiness off, for a graceful stop: /health answers 503 and every answer closes its
     * connection, so load balancers and keep-alive clients move to other processes while the
     * requests in flight finish. Called before close().
     */
    startDraining(): void;
    /**
     * The drain's wait, in a cluster (main.ts): stops taking connections, so that the primary
     * hands new ones to the other processes, without closing those open, and resolves once they
     * have all ended (each answer while draining closes its own), or after `limitMs`, with how
     * many were still open then. Called after startDraining() and before close().
     */
    connectionsEnded(limitMs: number): Promise<number>;
    /** Ends the hold of a process built with `holdRequests` (main.ts: once the first start is done). */
    openForRequests(): void;
    /** Whether the process still holds its requests (startHold). */
    startingUp(): boolean;
  }
}

/**
 * A process listens before it makes the first-start keys (a taken port must stop it before they
 * exist, or they would be printed and lost), but answers nothing until they are printed and the
 * demo history is made: a newcomer's first request, or a /health probe, never reaches the server
 * before its keys are shown, nor sees half of the demo data. An onRequest hook before
 * authentication (src/http/hooks.ts), so that a held request is not counted as a failed
 * authentication or against a rate limit.
 */
export function startHold(app: FastifyInstance, hold: boolean): onRequestAsyncHookHandler {
  let starting = hold;
  app.decorate("openForRequests", () => { starting = false; });
  app.decorate("startingUp", () => starting);
  return async (req, reply) => {
    if (!starting || req.routeOptions.url === "/health" || req.routeOptions.url === "/ready") return; // they say 503 in their own shape
    plannedUnavailable(reply);
    const err = new AppError("unavailable", "feira is starting (first start: making the keys and the demo history); retry in a moment");
    err.retryAfterSeconds = 1;
    throw err;
  };
}

/**
 * Readiness off for a graceful stop (app.startDraining): `closeConnection` is the onSend hook
 * that closes each answer's connection once draining.
 */
export function drainSwitch(app: FastifyInstance) {
  let on = false;
  app.decorate("startDraining", () => { on = true; });
  // Not server.close(): Node's http close also closes every idle connection at once, and idle
  // there means no request being read, so a connection the cluster primary has just handed over
  // (its request still on the way) and a keep-alive connection its client is reusing at that
  // moment were closed under their request: a rolling restart dropped 2 of 151 requests under
  // load. net.Server's close stops the listening only; its callback comes once every connection
  // has ended. Those still open at the limit (idle all along) are left to close().
  app.decorate("connectionsEnded", (limitMs: number) => new Promise<number>((resolve) => {
    const server = app.server;
    const limit = setTimeout(() => server.getConnections((_err, open) => resolve(open ?? 0)), limitMs);
    net.Server.prototype.close.call(server, () => {
      clearTimeout(limit);
      resolve(0);
    });
  }));
  // A connection that has not sent a byte yet (a client's spare socket: browsers preconnect,
  // and undici opened one after an event stream it aborted) is not idle to Node, so close()
  // left it open until headersTimeout (60 s). One whose request has begun is served, as above.
  const unused = new Set<net.Socket>();
  app.server.on("connection", (socket: net.Socket) => {
    unused.add(socket);
    socket.once("close", () => unused.delete(socket));
  });
  app.server.on("request", (req: { socket: net.Socket }) => unused.delete(req.socket));
  // A request in flight when close() began (Node's close ends only the connections with none) is
  // served, and its answer closes its connection too: kept alive, the connection held close() for
  // the keep-alive timeout (72 s) after its answer, as a provider's notice arriving at a test's end did.
  let closing = false;
  return {
    draining: () => on,
    /** For preClose: the connections that have not sent a byte are ended, and the next answers close theirs. */
    closeUnused: async () => {
      closing = true;
      for (const socket of unused) if (socket.bytesRead === 0) socket.destroy();
    },
    closeConnection: async (_req: FastifyRequest, reply: FastifyReply) => {
      if (on || closing) reply.header("connection", "close");
    },
  };
}

export interface OpsGauges {
  waitingCharges(): number;
  waitingNotices(): number;
  processors?: Pick<ProcessorRegistry, "breakers">;
  database?: DatabaseMetrics;
}

export type DatabaseMetrics = ReturnType<typeof databaseMetrics>;

/**
 * What a failover shows (docs/deploy.md, "High availability"): the requests answered 503 because
 * the database was lost (`countUnavailable`, called by the error handler), and, with a host list,
 * how many times the writable host changed and a lost LISTEN was made again. An alert on the first
 * two rising says a failover happened; the 503s should stop within seconds of it.
 */
export function databaseMetrics(topology?: () => DatabaseTopology) {
  const unavailable = new Counter({
    name: "feira_database_unavailable_responses_total",
    help: "Requests answered 503 because the database was lost under them (a failover)",
    registers: [],
  });
  // Counters of the database client, read when scraped: each adds what is new since the last.
  const fromTopology = (name: string, help: string, pick: (t: DatabaseTopology) => number) => {
    let seen = 0;
    return new Counter({
      name, help, registers: [],
      collect() {
        const now = topology ? pick(topology()) : 0;
        if (now > seen) this.inc(now - seen);
        seen = now;
      },
    });
  };
  const counters = [
    unavailable,
    fromTopology("feira_database_primary_switches_total", "Times the writable host of DATABASE_URL's host list changed", (t) => t.switches),
    fromTopology("feira_database_listen_reconnections_total", "Times a lost LISTEN connection was made again", (t) => t.relistens),
  ];
  return {
    countUnavailable: () => unavailable.inc(),
    /** The writable host connections go to now, with a host list ("host:port"). */
    primary: () => topology?.().primary,
    register: (registry: Registry) => { for (const c of counters) registry.registerMetric(c); },
  };
}

/** The process's metrics; `observe` is the onResponse hook that times every request. */
export function processMetrics(db: Db, gauges: OpsGauges) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "feira_" });
  const duration = new Histogram({
    name: "feira_http_request_duration_seconds",
    help: "HTTP request duration by route and status",
    labelNames: ["method", "route", "status_code"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  if (gauges.processors) registerBreakerMetrics(registry, gauges.processors);
  gauges.database?.register(registry);
  registerReplicaMetrics(registry, db);
  // The charges waiting on a processor now, against PROCESSOR_MAX_WAITING: near the bound,
  // the processor is slower than the charges arriving, and new ones are about to be refused.
  new Gauge({
    name: "feira_processor_waiting_charges",
    help: "Production charges of this process waiting on a payment processor's answer",
    registers: [registry],
    collect() { this.set(gauges.waitingCharges()); },
  });
  // Provider notices waiting for their charge's read (docs/processors.md, "Provider webhooks and
  // reconciliation"): notices for one charge share reads, so a flood shows here and not as calls
  // to the provider.
  new Gauge({
    name: "feira_provider_notices_waiting",
    help: "Provider notices of this process waiting for their charge's read at the provider",
    registers: [registry],
    collect() { this.set(gauges.waitingNotices()); },
  });
  registerLateRefundMetrics(registry, db);
  const observe = async (req: FastifyRequest, reply: FastifyReply) => {
    duration.observe(
      { method: req.method, route: req.routeOptions.url ?? "unmatched", status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  };
  return { registry, observe };
}

// /health answers 200 once the database answers (503 while the process starts or drains); /metrics
// is Prometheus text. Both are hidden from the API document, as they describe the process, not
// the API. /health is public; /metrics is public in local mode only: in production it shows
// what the process is doing (charges waiting, processors failing, late refunds) and needs
// METRICS_TOKEN (docs/deploy.md).
export function registerOpsRoutes(
  app: FastifyInstance, db: Db, config: Pick<Config, "production" | "metricsToken">,
  state: { draining(): boolean; metrics: Registry; primary?: () => string | undefined },
): void {
  const registry = state.metrics;
  // /health: the process serves and its database answers. /ready: the same, and the database it
  // writes to takes writes now (not a standby, not a primary demoted by a failover and reached
  // without target_session_attrs): a load balancer that routes writes checks /ready.
  const probe = (ready: boolean) => async (_req: FastifyRequest, reply: FastifyReply) => {
    if (state.draining() || app.startingUp()) {
      plannedUnavailable(reply);
      return reply.code(503).send({ status: "unavailable" as const });
    }
    try {
      const [row] = await queryRows<{ standby: boolean }>(db, sql`select pg_is_in_recovery() as standby`);
      if (ready && row?.standby !== false) return reply.code(503).send({ status: "unavailable" as const });
      const primary = state.primary?.();
      return { status: "ok" as const, ...(primary ? { database: { primary } } : {}), ...await replicaHealth(db) };
    } catch {
      return reply.code(503).send({ status: "unavailable" as const });
    }
  };
  const probeSchema = (operationId: string, summary: string) => ({
    operationId, tags: ["ops"], summary,
    response: {
      200: Type.Object({
        status: Type.Literal("ok"),
        // With a host list in DATABASE_URL: the host that takes the writes now.
        database: Type.Optional(Type.Object({ primary: Type.String() })),
        // With DATABASE_REPLICA_URL: how far the standby's replay is behind the primary (null
        // when it does not answer; lists then read the primary).
        replica: Type.Optional(Type.Object({
          lagBytes: Type.Union([Type.Integer(), Type.Null()]),
          lagSeconds: Type.Union([Type.Number(), Type.Null()]),
        })),
      }, { examples: [{ status: "ok" }] }),
      503: Type.Object({ status: Type.Literal("unavailable") }),
    },
  });
  app.get("/health", { config: { auth: "public" }, schema: probeSchema("health", "Health check") }, probe(false));
  app.get("/ready", {
    config: { auth: "public" },
    schema: probeSchema("ready", "Readiness: serving, and the database written to takes writes"),
  }, probe(true));

  const allowed = metricsAccess(config);
  app.get("/metrics", { config: { auth: "public" }, schema: { hide: true } }, async (req, reply) => {
    const access = allowed(req.headers.authorization);
    if (access === "off") return reply.code(404).send(errorBody(404, "Route GET /metrics not found", "not_found"));
    if (access === "refused") {
      return reply.code(401).header("www-authenticate", 'Bearer realm="metrics"')
        .send(errorBody(401, "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>", "unauthorized"));
    }
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}

/**
 * Who may read /metrics: anyone in local mode; in production only a caller with METRICS_TOKEN
 * ("off", a 404, when it is unset, so an operator who never chose a token exposes nothing).
 * The token is compared in constant time (as digests, so its length does not show either).
 */
function metricsAccess(config: Pick<Config, "production" | "metricsToken">): (authorization: string | undefined) => "open" | "refused" | "off" {
  if (!config.production) return () => "open";
  const token = config.metricsToken;
  if (!token) return () => "off";
  const digest = sha256Hex(token);
  return (authorization) => {
    const given = /^Bearer (.+)$/i.exec(authorization ?? "")?.[1]?.trim();
    return given !== undefined && safeEqual(sha256Hex(given), digest) ? "open" : "refused";
  };
}

/**
 * Late payments whose refund the provider has not confirmed (docs/processors.md, "Late
 * payments"), read from the database when scraped: a refund the provider refused keeps its
 * charge here until an operator acts, so an alert on the oldest one's age finds it. The same
 * figures from every process (they are the database's).
 */
function registerLateRefundMetrics(registry: Registry, db: Db): void {
  // A database that does not answer leaves the last values (the scrape itself still answers;
  // /health says the database is down). Both gauges of one scrape share one query.
  let inFlight: Promise<{ n: number; oldest: number | null } | undefined> | undefined;
  const read = () => (inFlight ??= query().finally(() => { inFlight = undefined; }));
  const query = async () => {
    try {
      const [row] = await queryRows<{ n: number; oldest: number | null }>(db, sql`
        select count(*)::int as n, extract(epoch from now() - min(updated_at))::float8 as oldest
        from charges where late_payment = 'refund_pending'`);
      return row;
    } catch {
      return undefined;
    }
  };
  new Gauge({
    name: "feira_late_refunds_pending", help: "Late payments (paid after their live charge failed) whose refund to the payer the provider has not confirmed",
    registers: [registry],
    async collect() {
      const row = await read();
      if (row) this.set(row.n);
    },
  });
  new Gauge({
    name: "feira_late_refunds_pending_oldest_seconds", help: "Age of the oldest late payment whose refund the provider has not confirmed (0 when none)",
    registers: [registry],
    async collect() {
      const row = await read();
      if (row) this.set(Math.max(0, Math.round(row.oldest ?? 0)));
    },
  });
}

const BREAKER_STATES = { closed: 0, open: 1, half_open: 2 } as const;

/**
 * Each live processor's circuit breaker, read when scraped. The breakers are this process's
 * (each API process counts its own calls): a scraper reaches every process, and a sum or max
 * over them is the deployment's view.
 */
function registerBreakerMetrics(registry: Registry, processors: Pick<ProcessorRegistry, "breakers">): void {
  const each = (fn: (processor: string, view: ReturnType<ProcessorRegistry["breakers"]>[string]) => void) => {
    for (const [processor, view] of Object.entries(processors.breakers())) fn(processor, view);
  };
  new Gauge({
    name: "feira_processor_breaker_state", help: "Circuit breaker of a live processor in this process: 0 closed, 1 open (skipped), 2 half open (one trial call)",
    labelNames: ["processor"], registers: [registry],
    collect() { each((processor, v) => this.set({ processor }, BREAKER_STATES[v.status])); },
  });
  new Gauge({
    name: "feira_processor_breaker_consecutive_failures", help: "Failures in a row of a live processor in this process (the breaker opens at its threshold)",
    labelNames: ["processor"], registers: [registry],
    collect() { each((processor, v) => this.set({ processor }, v.consecutiveFailures)); },
  });
  new Counter({
    name: "feira_processor_failures_total", help: "Calls to a live processor that got no usable answer (timeout, lost, 5xx, 429, refused connection) in this process",
    labelNames: ["processor"], registers: [registry],
    collect() {
      this.reset();
      each((processor, v) => this.inc({ processor }, v.failures));
    },
  });
}
