import { randomBytes } from "node:crypto";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { buildApp, createServices, type AppDeps, type Services } from "../../src/app.js";
import type { Config } from "../../src/config.js";
import type { Database } from "../../src/db/client.js";
import { freshDatabase } from "./db.js";

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    production: false,
    port: 0,
    host: "127.0.0.1",
    dataDir: "/nonexistent",
    databaseUrl: undefined,
    adminApiKey: "adm_test_" + randomBytes(16).toString("hex"),
    jwtSecret: randomBytes(32).toString("hex"),
    encryptionKey: randomBytes(32).toString("base64"),
    publicBaseUrl: "http://localhost:3000",
    panelUrl: "http://localhost:3000",
    shippingProviderUrl: "http://127.0.0.1:1",
    webhookRetryScale: 0.001,
    webhookAllowPrivateUrls: true,
    productionProcessor: undefined,
    logLevel: process.env.LOG_LEVEL ?? "silent",
    workerPollMs: 20,
    // Off by default so that suites firing bursts test what they test; the rate-limit tests
    // turn it on.
    rateLimitPerKey: 0,
    webConcurrency: 1,
    eventRetentionDays: 30,
    idempotencyLeaseMs: 30_000,
    faultPoint: undefined,
    ...overrides,
  };
}

export interface TestApp {
  app: FastifyInstance;
  database: Database;
  services: Services;
  config: Config;
  admin: string;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Fastify logger options, e.g. `{ level: "info", stream }` to read the log lines. */
  logger?: AppDeps["logger"];
  /** Runs after buildApp and before ready(): the place to add test-only routes. */
  beforeReady?: (app: FastifyInstance, database: Database) => void | Promise<void>;
}

/** The real app over a fresh real database (PGlite, or PostgreSQL with DATABASE_URL). */
export async function buildTestApp(overrides: Partial<Config> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const database = await freshDatabase();
  const config = testConfig(overrides);
  const services = createServices({ config, db: database.db });
  const app = await buildApp({ config, db: database.db, logger: options.logger }, services);
  await options.beforeReady?.(app, database);
  await app.ready();
  return {
    app,
    database,
    services,
    config,
    admin: config.adminApiKey!,
    async close() {
      await app.close();
      await database.close();
    },
  };
}

export const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString("base64")}`;

export interface SeededMerchant {
  id: string;
  email: string;
  password: string;
  sandboxKey: string;
  productionKey: string;
}

let seq = 0;
/** Creates a merchant through the admin API, as an operator would. */
export async function seedMerchant(t: TestApp, extra: Record<string, unknown> = {}): Promise<SeededMerchant> {
  const email = `m${++seq}-${randomBytes(4).toString("hex")}@example.com`;
  const password = "correct horse battery";
  const res = await t.app.inject({
    method: "POST",
    url: "/v1/admin/merchants",
    headers: { authorization: basic(t.admin) },
    payload: { name: `Merchant ${seq}`, email, password, ...extra },
  });
  if (res.statusCode !== 201) throw new Error(`seedMerchant failed: ${res.statusCode} ${res.body}`);
  const body = res.json();
  return { id: body.id, email, password, sandboxKey: body.apiKeys.sandbox, productionKey: body.apiKeys.production };
}

/** Fails with the whole response in the message, so a failing test shows why. */
export function expectStatus(res: LightMyRequestResponse, status: number): void {
  if (res.statusCode !== status) {
    throw new Error(`expected HTTP ${status}, got ${res.statusCode}: ${res.body}`);
  }
}
