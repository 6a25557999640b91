import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Authenticator } from "../core/context.js";
import type { Db } from "../db/client.js";
import { readRouterOf } from "../db/replica.js";
import { authenticateRequest, declareAuthMode } from "./auth.js";
import { documentErrors } from "./error-docs.js";
import { routeTable } from "./errors.js";
import { idempotencyHooks, type IdempotencyOptions } from "./idempotency.js";
import { guardBody, guardHeadersAndQuery } from "./input-guard.js";
import { drainSwitch, processMetrics, startHold, type OpsGauges } from "./ops.js";
import { limitPerKey, sweepExpiredCounters, type RateLimits } from "./rate-limit.js";
import { readYourWritesHooks } from "./read-your-writes.js";

// Every hook of the app, in the order a request meets them. Fastify runs hooks of one kind in
// the order they were added, so the order below is the order of the checks: what is cheap and
// refuses without touching anything comes first, what writes (the idempotency claim) last. Each
// hook's function lives with its subject; this file only says when it runs and why there.
// Plugin-scoped hooks stay in their plugin: the panel's body reader and session check
// (src/web/panel/panel.routes.ts) concern only /panel routes, and the event stream's preClose
// (src/modules/webhooks/event-stream.routes.ts) only ends its own open streams.

export interface HookDeps {
  db: Db;
  /** Answer 503 until app.openForRequests() (main.ts, first start). */
  holdRequests: boolean;
  authenticator: Authenticator;
  rateLimits: RateLimits;
  idempotency: IdempotencyOptions;
  gauges: OpsGauges;
  /** Closed with the app: the live adapters' keep-alive connections. */
  closeProcessors(): Promise<void>;
}

/** Adds the hooks; answers what the ops routes share with them (registerOpsRoutes). */
export function registerHooks(app: FastifyInstance, deps: HookDeps) {
  const routes = routeTable();
  const idempotency = idempotencyHooks(deps.db, deps.idempotency);
  const drain = drainSwitch(app);
  const metrics = processMetrics(deps.db, deps.gauges);

  // When a route is added (before any request). Added before the documentation plugins, so
  // their pages are known too (405 rather than 404) and get their mode (hidden means public).
  // 1. The route table behind the 404/405 answers.
  app.addHook("onRoute", routes.record);
  // 2. The route's auth mode, and its security and 429 in the document.
  app.addHook("onRoute", declareAuthMode);
  // 3. Every error answer in the document; after 2, whose mode it reads.
  app.addHook("onRoute", documentErrors);
  app.setNotFoundHandler(routes.answer);

  // onRequest: before the body is read.
  // 1. NUL, lone surrogates and deep nesting in headers, params and query: refused before
  //    anything (authentication included) has looked at them.
  app.addHook("onRequest", guardHeadersAndQuery);
  // 2. The first-start hold: before authentication, so a held request is not counted as a
  //    failed authentication or against a rate limit.
  app.addHook("onRequest", startHold(app, deps.holdRequests));
  // 3. Authentication sets req.ctx; failed credentials meet the address lockout.
  app.addHook("onRequest", authenticateRequest(app, deps.authenticator, deps.rateLimits.failedAuth));
  // 4. The per-key limit: after 3, as it counts per key (req.ctx).
  const perKey = limitPerKey(deps.rateLimits);
  if (perKey) app.addHook("onRequest", perKey);

  // preValidation: the body is parsed, the schema not yet checked.
  // 1. The body's own guard (and card numbers outside card fields), before any claim is stored.
  app.addHook("preValidation", guardBody);
  // 2. Unknown routes answered here (after the body is parsed, so malformed JSON stays a 400),
  //    which keeps them from the idempotency hooks, which expect an authenticated route.
  app.addHook("preValidation", routes.answerUnknown);
  // 3. The Idempotency-Key's shape: the same 400 on every POST, declared in its schema or not.
  app.addHook("preValidation", idempotency.checkKey);

  // preHandler: the request is valid. The claim is the last step before the handler, as it
  // writes: a request refused by any check above has stored nothing.
  app.addHook("preHandler", idempotency.claimKey);

  // onSend: the answer is ready.
  // 1. Every answer names its request (X-Request-Id), error or not.
  app.addHook("onSend", echoRequestId);
  // 2. The answer is stored under its claim (a 4xx drops the claim, a 5xx releases it).
  app.addHook("onSend", idempotency.store);
  // 3. A draining or closing process closes each connection it answers.
  app.addHook("onSend", drain.closeConnection);
  // 4. With DATABASE_REPLICA_URL, a request that may have written holds its caller's lists on
  //    the primary until its write is recorded, in onResponse (src/http/read-your-writes.ts).
  //    Without a standby no hook is added: a request pays nothing for it.
  const writes = readRouterOf(deps.db) ? readYourWritesHooks(deps.db) : undefined;
  if (writes) app.addHook("onSend", writes.began);

  // onResponse: the request's duration, by route and status.
  app.addHook("onResponse", metrics.observe);
  // The caller's write is recorded: its lists may read a standby that has replayed it.
  if (writes) app.addHook("onResponse", writes.ended);

  // The app's close: stop the counters' sweep, close the providers' connections.
  const stopSweep = sweepExpiredCounters(app.log, deps.rateLimits);
  if (stopSweep) app.addHook("onClose", stopSweep);
  app.addHook("onClose", deps.closeProcessors);
  // ...and, before the close waits for connections, ends those that never sent a byte (ops.ts).
  app.addHook("preClose", drain.closeUnused);
  return { draining: drain.draining, metrics: metrics.registry, primary: deps.gauges.database?.primary };
}

async function echoRequestId(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header("x-request-id", req.id);
}
