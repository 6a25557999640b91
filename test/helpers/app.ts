import { randomBytes } from "node:crypto";
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import { buildApp, createServices, type AppDeps, type Services } from "../../src/app.js";
import { NO_LIVE_PROCESSORS, type Config } from "../../src/config.js";
import type { Database } from "../../src/db/client.js";
import { idempotencyHashKey, storedIdempotencyKey } from "../../src/http/idempotency.js";
import type { ProcessorDefinition } from "../../src/processors/definition.js";
import { DEFAULT_AMOUNT_LIMITS } from "../../src/lib/money.js";
import { freshDatabase } from "./db.js";
import { configEnv, countInProcess, InProcessOnly, recordApp, startTopology, topologyMode, type RunningTopology } from "./topology.js";

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    production: false,
    port: 0,
    host: "127.0.0.1",
    dataDir: "/nonexistent",
    databaseUrl: undefined,
    databasePoolMode: "session",
    databaseDirectUrl: undefined,
    databaseReplicaUrl: undefined,
    groupCommit: 2,
    adminApiKey: "adm_test_" + randomBytes(16).toString("hex"),
    jwtSecret: randomBytes(32).toString("hex"),
    encryptionKey: randomBytes(32).toString("base64"),
    publicBaseUrl: "http://localhost:3000",
    panelUrl: "http://localhost:3000",
    shippingProviderUrl: "http://127.0.0.1:1",
    webhookRetryScale: 0.001,
    webhookAllowPrivateUrls: true,
    productionProcessor: undefined,
    live: NO_LIVE_PROCESSORS,
    logLevel: process.env.LOG_LEVEL ?? "silent",
    workerPollMs: 20,
    // Off by default so that suites firing bursts test what they test; the rate-limit tests
    // turn it on.
    rateLimitPerKey: 0,
    trustProxyHops: 0,
    webConcurrency: 1,
    eventRetentionDays: 30,
    demoHistory: false,
    idempotencyLeaseMs: 30_000,
    amountLimits: DEFAULT_AMOUNT_LIMITS,
    faultPoint: undefined,
    webhookConcurrency: 128,
    metricsToken: undefined,
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
  /** The processors the app knows, instead of src/processors/registry.ts's (a test's own definition); in-process only. */
  processors?: readonly ProcessorDefinition[];
  /** The in-process services, from the default ones (e.g. a module built with test options). */
  services?: (base: Services, config: Config, database: Database) => Services;
  /**
   * Why this app must stay in-process in topology mode (e.g. a module option that has no
   * environment variable); undefined when the processes can serve it.
   */
  inProcessOnly?: string;
  /**
   * Why this app must run without worker processes in topology mode (the test is the worker:
   * it runs the tasks by hand and asserts what each step did). The API processes still serve.
   */
  noWorkerProcesses?: string;
}

/**
 * The real app over a fresh real database (PGlite, or PostgreSQL with DATABASE_URL). With
 * FEIRA_TEST_TOPOLOGY (test/helpers/topology.ts), API and worker processes also run on that
 * database and `app.inject` is sent to them over HTTP.
 */
export async function buildTestApp(overrides: Partial<Config> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const topology = topologyMode();
  const database = await freshDatabase();
  const config = testConfig(overrides);
  const base = createServices({ config, db: database.db, processors: options.processors });
  const services = options.services ? options.services(base, config, database) : base;
  const app = await buildApp({ config, db: database.db, logger: options.logger }, services);
  // Routes a test adds stay in-process in topology mode (the processes do not have them).
  const testRoutes: string[] = [];
  let collecting = true;
  if (topology) app.addHook("onRoute", (route) => { if (collecting) testRoutes.push(route.url); });
  await options.beforeReady?.(app, database);
  collecting = false;
  await app.ready();

  let running: RunningTopology | undefined;
  if (topology) {
    const env = configEnv(config);
    const reason = options.inProcessOnly ?? (options.logger ? "reads the in-process log stream" : undefined)
      ?? (options.processors ? "a processor defined by the test, which the processes cannot load" : undefined) ?? ("reason" in env ? env.reason : undefined);
    recordApp(reason, options.noWorkerProcesses);
    if (!reason && "env" in env) {
      try {
        running = await startTopology({ ...topology, workers: options.noWorkerProcesses ? 0 : topology.workers }, database.url!, env.env);
      } catch (err) {
        await app.close();
        await database.close();
        throw err;
      }
      routeThrough(app, running, testRoutes);
    }
  }
  return {
    app,
    database,
    services,
    config,
    admin: config.adminApiKey!,
    async close() {
      try {
        await running?.close();
      } finally {
        await app.close();
        await database.close();
      }
    },
  };
}

/**
 * Apps of their own on one database, in this process, as a cluster's API processes are (with no
 * notification between them unless the test listens for one). They stay in-process in topology
 * mode: the tests that use them compare the processes.
 */
export function appsOn(database: Database & { url?: string }) {
  const apps: TestApp[] = [];
  return {
    async start(config: Config, rateLimitPolicies?: AppDeps["rateLimitPolicies"]): Promise<TestApp> {
      const services = createServices({ config, db: database.db });
      const app = await buildApp({ config, db: database.db, rateLimitPolicies }, services);
      await app.ready();
      const t: TestApp = { app, database, services, config, admin: config.adminApiKey!, close: () => app.close() };
      apps.push(t);
      return t;
    },
    async close(): Promise<void> {
      for (const t of apps) await t.close();
    },
  };
}

/** `app.inject` and `app.listen` of a topology-mode app go to the API processes. */
function routeThrough(app: FastifyInstance, running: RunningTopology, testRoutes: string[]): void {
  const inProcess = app.inject.bind(app) as (opts: InjectOptions | string) => Promise<LightMyRequestResponse>;
  const isTestRoute = (url: string) => {
    const p = url.split("?")[0];
    return testRoutes.some((r) => new RegExp(`^${r.replace(/:[^/]+/g, "[^/]+")}$`).test(p ?? ""));
  };
  app.inject = ((opts: InjectOptions | string) => {
    const url = typeof opts === "string" ? opts : String(opts.url ?? opts.path ?? "/");
    if (isTestRoute(url)) {
      countInProcess("test-only route");
      return inProcess(opts);
    }
    try {
      return running.inject(opts);
    } catch (err) {
      if (!(err instanceof InProcessOnly)) throw err;
      countInProcess(err.reason);
      return inProcess(opts);
    }
  }) as typeof app.inject;
  app.listen = (async () => running.listen()) as unknown as typeof app.listen;
}

/** An Idempotency-Key as the database holds it: its keyed hash (src/http/idempotency.ts). */
export const storedKey = (t: Pick<TestApp, "config">, key: string) => storedIdempotencyKey(idempotencyHashKey(t.config.encryptionKey), key);

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
