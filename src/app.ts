import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from "fastify";
import { stdSerializers, type DestinationStream } from "pino";
import fastifyJwt from "@fastify/jwt";
import fastifySwagger from "@fastify/swagger";
import fastifySwaggerUi from "@fastify/swagger-ui";
import type { Config } from "./config.js";
import type { Db } from "./db/client.js";
import { registerAuth, securitySchemes } from "./http/auth.js";
import { handleFrameworkError, registerErrorHandling, registerNotFound } from "./http/errors.js";
import { registerIdempotency } from "./http/idempotency.js";
import { registerOps } from "./http/ops.js";
import { RequestLog } from "./http/request-log.js";
import { createRateLimits, registerRateLimits, type RateLimitPolicies } from "./http/rate-limit.js";
import { ErrorBody } from "./http/schemas.js";
import { registerValidation } from "./http/validation.js";
import { createSealer } from "./lib/crypto.js";
import { randomToken } from "./lib/ids.js";
import { maskCardNumbers, redactDeep } from "./lib/redact.js";
import { createCustomerService } from "./modules/customers/customers.service.js";
import { customerRoutes } from "./modules/customers/customers.routes.js";
import { createConfigChanges } from "./lib/config-changes.js";
import { createMerchantService } from "./modules/merchants/merchants.service.js";
import { merchantRoutes } from "./modules/merchants/merchants.routes.js";
import { createWebhookModule } from "./modules/webhooks/webhooks.module.js";
import { createCardModule } from "./modules/cards/cards.module.js";
import { createChargeEffects } from "./modules/charges/charge-effects.js";
import { chargeRoutes } from "./modules/charges/charges.routes.js";
import { sandboxBankRoutes } from "./modules/charges/sandbox-bank.routes.js";
import { createChargeService } from "./modules/charges/charges.service.js";
import { createRefundService } from "./modules/charges/refunds.service.js";
import { createSubscriptionModule } from "./modules/subscriptions/subscriptions.module.js";
import { ledgerRoutes } from "./modules/ledger/ledger.routes.js";
import { createLedgerService } from "./modules/ledger/ledger.service.js";
import { createConnectModule } from "./modules/connect/connect.module.js";
import { createProcessorRegistry } from "./processors/registry.js";
import { createPaymentLinksModule } from "./modules/payment-links/payment-links.module.js";
import { createProcessorRecords } from "./modules/charges/processor-records.repo.js";

export interface AppDeps {
  config: Config;
  db: Db;
  logger?: FastifyServerOptions["logger"];
  /** Lockout thresholds for login and failed authentication; tests make them small. */
  rateLimitPolicies?: Partial<RateLimitPolicies>;
  /** Where the default logger writes (main.ts: readable on a terminal, JSON otherwise). */
  logStream?: DestinationStream;
}

export type Services = ReturnType<typeof createServices>;

/** Every module's service, wired once; the worker uses the same ones. */
export function createServices(deps: { config: Config; db: Db }) {
  const { config, db } = deps;
  const sealer = createSealer(config.encryptionKey);
  // Keys, merchant profiles and Connect accounts are cached per process; changes forget them.
  const configChanges = createConfigChanges();
  const merchants = createMerchantService({ db, sealer, adminApiKey: config.adminApiKey, configChanges });
  const customers = createCustomerService({ db });
  const webhooks = createWebhookModule({ db, config, sealer });
  const cards = createCardModule({ db, sealer, customers });
  const ledger = createLedgerService({ db });
  const processors = createProcessorRegistry({ productionProcessor: config.productionProcessor, sandboxRecords: createProcessorRecords(db) });
  const effects = createChargeEffects({ customers, ledger });
  const connect = createConnectModule({ db, config, sealer, merchants, ledger, processors, configChanges });
  const charges = createChargeService({ db, config, processors, merchants, customers, cards: cards.service, effects, connect: connect.service });
  const refunds = createRefundService({ db, effects, ledger, processorFor: charges.processorFor });
  const subscriptions = createSubscriptionModule({ db, charges, effects, refunds, cards: cards.service, customers, merchants, leaseMs: config.idempotencyLeaseMs });
  const paymentLinks = createPaymentLinksModule({ db, config, sealer, charges, merchants });
  return { sealer, configChanges, merchants, customers, webhooks, cards, ledger, charges, refunds, connect, subscriptions, paymentLinks };
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

// Whatever logger options are given, log lines carry the path without its query string (which
// can hold e-mails and documents) and nothing that looks like a card number: not in the message,
// a field or an error (the request id, bound to every line, is checked in genReqId).
const safeLogging = {
  serializers: {
    req: (req: FastifyRequest) => ({ method: req.method, url: maskCardNumbers(req.url.split("?")[0] ?? ""), host: req.host, remoteAddress: req.ip }),
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
    // `/v1/customers/` is the list, not a customer with an empty id.
    routerOptions: { ignoreTrailingSlash: true },
    ajv: { customOptions: { coerceTypes: false } },
  });
  app.addHook("onSend", async (req, reply) => {
    reply.header("x-request-id", req.id);
  });

  registerValidation(app);
  registerErrorHandling(app);
  registerNotFound(app);
  app.addSchema(ErrorBody);

  await app.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "feira API",
        version: "1.0.0",
        description:
          "Payments and marketplace API. The secret key decides the environment: sk_test_ keys act on sandbox data, sk_live_ keys on production data. Amounts in requests are in currency units; events carry cents.",
      },
      // Relative: "Try it out" calls the host the page was opened on (localhost, 127.0.0.1 or a
      // proxy's name), whatever PUBLIC_BASE_URL says.
      servers: [{ url: "/" }],
      components: { securitySchemes: securitySchemes as never },
      tags: [
        { name: "customers", description: "Customers of a merchant" },
        { name: "cards", description: "Card vault: saved cards of a customer (numbers kept only encrypted)" },
        { name: "charges", description: "Charges, refunds and their webhooks" },
        { name: "subscriptions", description: "Plans, subscriptions, their billing and dunning settings, and the sandbox test clock" },
        { name: "balance", description: "Ledger balances and balance transactions" },
        { name: "sandbox", description: "Sandbox-only actions standing in for payers, issuers and settlement" },
        { name: "webhooks", description: "Webhook endpoints and their delivery logs" },
        { name: "events", description: "Events recorded for the merchant" },
        { name: "connect", description: "Marketplace: submerchants, KYC documents, split, payouts and fees of sub-accounts" },
        { name: "auth", description: "Merchant login" },
        { name: "admin", description: "Operator endpoints (admin key)" },
        { name: "ops", description: "Health" },
        { name: "payment-links", description: "Payment links and the calls of their hosted checkout page (/pay/{id})" },
        { name: "shipping", description: "The merchant's Melhor Envio connection (OAuth) and live freight quotes" },
      ],
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  // The key entered under "Authorize" (username = key, empty password) survives a reload.
  await app.register(fastifySwaggerUi, { routePrefix: "/docs", uiConfig: { persistAuthorization: true } });
  await app.register(fastifyJwt, { secret: config.jwtSecret, verify: { algorithms: ["HS256"] }, sign: { algorithm: "HS256" } });

  const rateLimits = createRateLimits({ config, db, policies: deps.rateLimitPolicies, configChanges: services.configChanges });
  registerAuth(app, services.merchants.authenticator, rateLimits.failedAuth);
  registerRateLimits(app, rateLimits); // after registerAuth: its hook needs req.ctx
  registerIdempotency(app, db, { hashKey: `idempotency:${config.encryptionKey}`, sealer: services.sealer, leaseMs: config.idempotencyLeaseMs });
  registerOps(app, db);

  app.get("/openapi.json", { config: { auth: "public" }, schema: { hide: true } }, async () => app.swagger());
  await app.register(merchantRoutes(services.merchants, rateLimits.login));
  await app.register(customerRoutes(services.customers));
  await app.register(services.cards.routes);
  await app.register(chargeRoutes(services.charges, services.refunds));
  await app.register(sandboxBankRoutes(services.charges));
  await app.register(ledgerRoutes(services.ledger));
  await app.register(services.webhooks.routes);
  await app.register(services.subscriptions.routes);
  await app.register(services.connect.routes);
  await app.register(services.paymentLinks.routes);
  return app;
}
