import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from "fastify";
import { stdSerializers, type DestinationStream } from "pino";
import fastifyJwt from "@fastify/jwt";
import fastifySwagger from "@fastify/swagger";
import fastifySwaggerUi from "@fastify/swagger-ui";
import type { Config } from "./config.js";
import type { Db, DatabaseTopology } from "./db/client.js";
import { securitySchemes } from "./http/auth.js";
import { handleClientError, handleFrameworkError, registerErrorHandling } from "./http/errors.js";
import { registerHooks } from "./http/hooks.js";
import { idempotencyHashKey } from "./http/idempotency.js";
import { compiledOnFirstUse } from "./http/lazy-compile.js";
import { databaseMetrics, registerOpsRoutes } from "./http/ops.js";
import { withDiscriminatorMappings } from "./http/openapi-mappings.js";
import { PAYMENT_METHOD_COMPONENTS } from "./modules/charges/index.js";
import { SUBSCRIPTION_METHOD_COMPONENTS } from "./modules/subscriptions/subscriptions.schemas.js";
import { RequestLog } from "./http/request-log.js";
import { createRateLimits, type RateLimitPolicies } from "./http/rate-limit.js";
import { ErrorBody } from "./http/schemas.js";
import { registerValidation } from "./http/validation.js";
import { randomToken } from "./lib/ids.js";
import { maskCardNumbers, maskUrlPath, redactDeep } from "./lib/redact.js";
import { processorAdminRoutes } from "./modules/admin/processors.routes.js";
import { chargePageRoutes } from "./web/charge-page.routes.js";
import { panelRoutes } from "./web/panel/panel.routes.js";
import { createServices } from "./services.js";

// The services live in services.ts, apart from the HTTP app: the panel and the worker type
// themselves by them without importing the app that mounts them.
export { createServices, type Services } from "./services.js";

export interface AppDeps {
  config: Config;
  db: Db;
  logger?: FastifyServerOptions["logger"];
  /** Lockout thresholds for login and failed authentication; tests make them small. */
  rateLimitPolicies?: Partial<RateLimitPolicies>;
  /** Where the default logger writes (main.ts: readable on a terminal, JSON otherwise). */
  logStream?: DestinationStream;
  /** Answer 503 (Retry-After: 1) to every request until `app.openForRequests()` (main.ts). */
  holdRequests?: boolean;
  /** PostgreSQL with a host list: the writable host and the failovers seen (Database.topology). */
  topology?: () => DatabaseTopology;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const FEIRA_LOGO = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40" viewBox="0 0 120 40"><text x="0" y="30" font-family="system-ui, sans-serif" font-size="30" font-weight="800" fill="#ffffff">feira</text></svg>');

// Whatever logger options are given, log lines carry the path without its query string (which
// can hold e-mails and documents) and nothing that looks like a card number: not in the message,
// a field or an error (the request id, bound to every line, is checked in genReqId).
const safeLogging = {
  serializers: {
    req: (req: FastifyRequest) => ({ method: req.method, url: maskUrlPath(req.url), host: req.host, remoteAddress: req.ip }),
    // The serialized error is not a plain object; a copy of it is.
    err: (err: Error) => redactDeep({ ...stdSerializers.err(err) }),
  },
  hooks: {
    logMethod(this: unknown, args: unknown[], log: (...args: unknown[]) => void) {
      log.apply(this, args.map((arg) => redactDeep(arg)));
    },
  },
};

/** The Fastify instance with every plugin and route; it never listens (main.ts does). */
export async function buildApp(deps: AppDeps, services = createServices(deps)): Promise<FastifyInstance> {
  const { config, db } = deps;
  const compilers = compiledOnFirstUse();
  const app = Fastify({
    logger: deps.logger === false ? false : {
      level: config.logLevel,
      ...(deps.logStream ? { stream: deps.logStream } : {}),
      redact: { paths: ["req.headers.authorization", "req.headers.cookie"], censor: "[redacted]" },
      ...(typeof deps.logger === "object" ? deps.logger : {}),
      ...safeLogging,
    },
    // A caller's X-Request-Id is kept when it is short and plain, and not a card number (it
    // reaches every log line of the request).
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && REQUEST_ID.test(given) && maskCardNumbers(given) === given ? given : `req_${randomToken(20)}`;
    },
    // One line per request instead of two (src/http/request-log.ts).
    logController: new RequestLog(),
    bodyLimit: 1024 * 1024,
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
    // `/v1/customers/` is the list, not a customer with an empty id.
    routerOptions: { ignoreTrailingSlash: true },
    // The client address is the socket's, or with TRUST_PROXY_HOPS=n the X-Forwarded-For entry
    // n hops back (what the farthest of the n proxies saw); the entries before it are the client's
    // own writing and never believed. A function, because Fastify reads a bare number as "trust
    // nothing".
    trustProxy: config.trustProxyHops > 0 ? (_address: string, hop: number) => hop < config.trustProxyHops : false,
    ajv: { customOptions: { coerceTypes: false } },
    // A request that reaches a stopping process (a connection the cluster primary handed over,
    // or a request begun before close()) is served, with Connection: close, not refused with
    // 503: close() waits for it, and the database closes only after (docs/deploy.md).
    return503OnClosing: false,
    // Serializers and validators are compiled on their route's first use (src/http/lazy-compile.ts).
    schemaController: { compilersFactory: compilers.serializers },
  });

  app.decorate("compileEveryRoute", compilers.compileEveryRoute);
  // Schemas that routes name by $ref: components of the document, known to the validators.
  const shared = [ErrorBody, ...PAYMENT_METHOD_COMPONENTS, ...SUBSCRIPTION_METHOD_COMPONENTS];
  registerValidation(app, compilers, shared);
  const database = databaseMetrics(deps.topology);
  registerErrorHandling(app, database.countUnavailable);
  for (const schema of shared) app.addSchema(schema);
  // Every request hook, in the order a request meets them (src/http/hooks.ts); before any
  // route, so every route (the documentation plugin's too) passes the onRoute hooks.
  const rateLimits = createRateLimits({ config, db, policies: deps.rateLimitPolicies, configChanges: services.configChanges });
  const ops = registerHooks(app, {
    db, holdRequests: deps.holdRequests ?? false, authenticator: services.merchants.authenticator, rateLimits,
    idempotency: { hashKey: idempotencyHashKey(config.encryptionKey), sealer: services.sealer, leaseMs: config.idempotencyLeaseMs },
    gauges: { waitingCharges: services.charges.waitingOnProcessor, waitingNotices: services.modules.charges.notices.waiting, processors: services.processors, database },
    // The live adapters' keep-alive connections to the providers close with the app.
    closeProcessors: async () => services.processors.close(),
  });

  await app.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "feira API",
        version: "1.0.0",
        // No license is granted (the client package is UNLICENSED too). Said, so that a reader
        // and a generator know it instead of guessing; an SPDX LicenseRef, as none is listed.
        license: { name: "UNLICENSED: no license is granted", identifier: "LicenseRef-UNLICENSED" },
        description:
          "Payments and marketplace API. The secret key decides the environment: sk_test_ keys act on sandbox data, sk_live_ keys on production data. Amounts in requests are in currency units, except two in cents by the specification: a payout request's amount and a fee definition's fixed; events, balances and payouts carry cents.",
      },
      // Relative: "Try it out" calls the host the page was opened on (localhost, 127.0.0.1 or a
      // proxy's name), whatever PUBLIC_BASE_URL says.
      servers: [{ url: "/" }],
      components: { securitySchemes: securitySchemes as never },
      tags: [
        { name: "customers", description: "Customers of a merchant" },
        { name: "cards", description: "Card vault: saved cards of a customer (numbers kept only encrypted)" },
        { name: "charges", description: "Charges, refunds and their webhooks" },
        { name: "disputes", description: "Chargebacks and Pix MED: the amount held, the evidence deadline and the decision" },
        { name: "subscriptions", description: "Plans, subscriptions, their billing and dunning settings, and the sandbox test clock" },
        { name: "balance", description: "Ledger balances and balance transactions" },
        { name: "sandbox", description: "Sandbox-only actions standing in for payers, issuers and settlement" },
        { name: "webhooks", description: "Webhook endpoints and their delivery logs" },
        { name: "events", description: "Events recorded for the merchant" },
        { name: "emails", description: "E-mails to buyers (receipts, payment instructions, reminders) and their settings" },
        { name: "connect", description: "Marketplace: submerchants, KYC documents, split, payouts and fees of sub-accounts" },
        { name: "merchant", description: "The merchant's own profile: name and default soft descriptor" },
        { name: "auth", description: "Merchant login" },
        { name: "admin", description: "Operator endpoints (admin key)" },
        { name: "ops", description: "Health" },
        { name: "payment-links", description: "Payment links and the calls of their hosted checkout page (/pay/{id})" },
        { name: "shipping", description: "The merchant's Melhor Envio connection (OAuth) and live freight quotes" },
        { name: "installments", description: "Card installments the buyer pays: the merchant's settings and the price table quoted to buyers" },
      ],
    },
    transformObject: (document) => ("openapiObject" in document ? withDiscriminatorMappings(document.openapiObject) : document.swaggerObject),
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  // The key entered under "Authorize" (username = key, empty password) survives a reload.
  // Branded feira (title and wordmark, not "Swagger UI" under a fastify logo). The secret-key
  // scheme (sandbox sk_test_ keys) is listed first, so the Authorize dialog opens on it.
  await app.register(fastifySwaggerUi, {
    routePrefix: "/docs",
    uiConfig: { persistAuthorization: true, docExpansion: "list", tryItOutEnabled: false },
    theme: { title: "feira API reference" },
    logo: { type: "image/svg+xml", content: FEIRA_LOGO, href: "/docs", target: "_self" },
  });
  await app.register(fastifyJwt, { secret: config.jwtSecret, verify: { algorithms: ["HS256"] }, sign: { algorithm: "HS256" } });

  registerOpsRoutes(app, db, config, ops);

  app.get("/openapi.json", { config: { auth: "public" }, schema: { hide: true } }, async () => app.swagger());
  const { modules } = services;
  await app.register(modules.merchants.routes(rateLimits.login));
  await app.register(modules.customers.routes);
  await app.register(services.cards.routes);
  await app.register(modules.charges.routes);
  await app.register(modules.disputes.routes);
  await app.register(modules.ledger.routes);
  await app.register(services.webhooks.routes);
  await app.register(services.subscriptions.routes);
  await app.register(services.connect.routes);
  await app.register(modules.shipping.routes);
  await app.register(modules.installments.routes);
  await app.register(services.paymentLinks.routes);
  await app.register(modules.mail.routes);
  await app.register(chargePageRoutes(modules.charges.page));
  await app.register(processorAdminRoutes(services.processors, config.publicBaseUrl));
  await app.register(panelRoutes({ services, config, db, loginThrottle: rateLimits.login }));
  return app;
}
