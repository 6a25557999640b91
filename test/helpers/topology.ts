import { appendFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { Readable } from "node:stream";
import type { InjectOptions, LightMyRequestResponse } from "fastify";
import type { Config } from "../../src/config.js";
import { settingsToEnv } from "../../src/processors/definition.js";
import { PROCESSORS } from "../../src/processors/registry.js";
import { feiraEntry } from "./feira-bundle.js";
import { startFeira, type FeiraProcess, type Store } from "./feira-process.js";
import { throughPooler } from "./pgbouncer.js";

// The topology mode of the test suite (FEIRA_TEST_TOPOLOGY=2x2, PostgreSQL only): buildTestApp
// also starts 2 API and 2 worker processes (`src/main.ts api|worker`) on the test's fresh
// database, and `app.inject` goes over real HTTP to the API processes, one request to each in
// turn. The in-process app and services stay, on the same database. A test that needs what only
// an in-process app has (test-only routes, its log stream, a module option that has no
// environment variable) falls back to the in-process app, and says so: every fallback is
// counted, printed at the end of the test file, and collected by `npm run test:topology`.

export interface Topology { api: number; workers: number }

/** The topology asked for, or undefined in the normal mode. */
export function topologyMode(): Topology | undefined {
  const raw = process.env.FEIRA_TEST_TOPOLOGY;
  if (!raw) return undefined;
  const m = /^([1-9])x([0-9])$/.exec(raw);
  if (!m) throw new Error(`FEIRA_TEST_TOPOLOGY=${raw}: use <api>x<workers>, e.g. 2x2`);
  if (!process.env.DATABASE_URL) throw new Error("FEIRA_TEST_TOPOLOGY needs DATABASE_URL: the embedded database admits one process");
  return { api: Number(m[1]), workers: Number(m[2]) };
}

// ---- the account of what ran where (one test file is one process under node --test) ----

const testFile = path.relative(process.cwd(), process.argv.find((a) => a.endsWith(".test.ts")) ?? process.argv[1] ?? "?");
const account = { apps: 0, fallbacks: [] as string[], noWorkers: [] as string[], viaHttp: 0, inProcess: new Map<string, number>() };

/**
 * One app built in topology mode; `fallback` says why it stays in-process, if it does, and
 * `noWorkers` why it runs without worker processes.
 */
export function recordApp(fallback: string | undefined, noWorkers?: string): void {
  account.apps += 1;
  if (fallback) account.fallbacks.push(fallback);
  else if (noWorkers) account.noWorkers.push(noWorkers);
}

process.once("exit", () => {
  if (!process.env.FEIRA_TEST_TOPOLOGY || account.apps === 0) return;
  const line = {
    file: testFile, apps: account.apps, fallbacks: account.fallbacks, noWorkers: account.noWorkers, requestsOverHttp: account.viaHttp,
    requestsInProcess: Object.fromEntries(account.inProcess),
  };
  const report = process.env.FEIRA_TOPOLOGY_REPORT;
  if (report) appendFileSync(report, JSON.stringify(line) + "\n");
  if (account.fallbacks.length > 0 || account.noWorkers.length > 0 || account.inProcess.size > 0) {
    process.stderr.write(`# topology ${testFile}: ${account.fallbacks.length}/${account.apps} app(s) in-process ${JSON.stringify(account.fallbacks)}; without workers ${JSON.stringify(account.noWorkers)}; in-process requests ${JSON.stringify(line.requestsInProcess)}\n`);
  }
});

// ---- the processes ----

/**
 * The test's configuration as the environment of a feira process, or the reason it cannot be
 * (a setting that only exists in-process).
 */
export function configEnv(config: Config): { env: Record<string, string> } | { reason: string } {
  if (config.faultPoint) return { reason: `fault point ${config.faultPoint} armed in-process` };
  if (config.smtpCa) return { reason: "an SMTP server's CA given in-process (a process reads it from SMTP_CA_FILE)" };
  if (!config.adminApiKey) return { reason: "no ADMIN_API_KEY: the test reads its own process's first-start bootstrap" };
  const env: Record<string, string> = {
    ADMIN_API_KEY: config.adminApiKey,
    JWT_SECRET: config.jwtSecret,
    ENCRYPTION_KEY: config.encryptionKey,
    PUBLIC_BASE_URL: config.publicBaseUrl,
    PANEL_URL: config.panelUrl,
    SHIPPING_PROVIDER_URL: config.shippingProviderUrl,
    WEBHOOK_RETRY_SCALE: String(config.webhookRetryScale),
    WEBHOOK_ALLOW_PRIVATE_URLS: String(config.webhookAllowPrivateUrls),
    RATE_LIMIT_PER_KEY: String(config.rateLimitPerKey),
    TRUST_PROXY_HOPS: String(config.trustProxyHops),
    EVENT_RETENTION_DAYS: String(config.eventRetentionDays),
    DEMO_HISTORY: String(config.demoHistory),
    IDEMPOTENCY_LEASE_MS: String(config.idempotencyLeaseMs),
    WEBHOOK_CONCURRENCY: String(config.webhookConcurrency),
    MAX_AMOUNT_MINOR: String(config.amountLimits.defaultMaxMinor),
  };
  for (const [currency, max] of Object.entries(config.amountLimits.maxMinorByCurrency)) env[`MAX_AMOUNT_MINOR_${currency}`] = String(max);
  if (config.shippingUserAgentEmail) env.SHIPPING_USER_AGENT_EMAIL = config.shippingUserAgentEmail;
  if (config.productionProcessor) env.PAYMENT_PROCESSOR = config.productionProcessor;
  Object.assign(env, liveEnv(config));
  if (config.production) env.NODE_ENV = "production";
  if (config.metricsToken) env.METRICS_TOKEN = config.metricsToken;
  if (config.smtpUrl && config.mailFrom) Object.assign(env, { SMTP_URL: config.smtpUrl, MAIL_FROM: config.mailFrom });
  return { env };
}

/** The live processors' settings as the variables loadConfig reads them. */
function liveEnv(config: Config): Record<string, string> {
  const { live } = config;
  const env: Record<string, string> = {
    PROCESSOR_TIMEOUT_MS: String(live.timeoutMs), PROCESSOR_RECONCILE_INTERVAL_MS: String(live.reconcileIntervalMs),
    PROCESSOR_WEBHOOK_LOOKUPS_PER_SECOND: String(live.webhookLookups.perSecond),
    PROCESSOR_WEBHOOK_LOOKUPS_PER_ADDRESS: String(live.webhookLookups.perAddressPerSecond),
    PROCESSOR_MAX_WAITING: String(live.maxWaiting),
  };
  const routes = Object.entries(live.routes).map(([method, names]) => `${method}=${(names ?? []).join("|")}`).join(",");
  if (routes && !config.productionProcessor) env.PAYMENT_ROUTES = routes;
  // The processor that sends production payouts (its settings come with the processors' below).
  if (live.payoutProvider) env.PAYOUT_PROVIDER = live.payoutProvider;
  if (live.payoutAutoApprove) env.PAYOUT_AUTO_APPROVE = "true";
  // Each processor's options as the variables its definition reads them from.
  for (const def of PROCESSORS) Object.assign(env, settingsToEnv(def, live.processors[def.name] ?? {}));
  return env;
}

export interface RunningTopology {
  api: FeiraProcess[];
  workers: FeiraProcess[];
  /** app.inject over HTTP, one API process after the other. */
  inject(opts: InjectOptions | string): Promise<LightMyRequestResponse>;
  /** A local port that hands each request to the next API process (for fetch, SSE, a browser). */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** Starts the API and worker processes (in parallel) on a migrated database. */
export async function startTopology(topology: Topology, databaseUrl: string, env: Record<string, string>): Promise<RunningTopology> {
  const store: Store = {
    onPostgres: true, adminKey: env.ADMIN_API_KEY!, env: { ...env, DATABASE_URL: databaseUrl },
    inspect: () => Promise.reject(new Error("not used")), release: async () => undefined, close: async () => undefined,
  };
  const entry = await feiraEntry();
  // Each role names its connections (pg_stat_activity, and checks that tell a request's writes
  // from the workers' background ones, such as the fuzz test's).
  const named = (role: string) => {
    const url = new URL(databaseUrl);
    url.searchParams.set("application_name", `feira-${role}`);
    // The test's own settings last: startFeira's defaults (private URLs allowed, no per-key
    // limit) would otherwise override a test that asks for the production rules.
    return { ...env, ...throughPooler(url) };
  };
  const started = await Promise.allSettled([
    ...Array.from({ length: topology.api }, () => startFeira(store, { role: "api", entry, env: named("api") })),
    ...Array.from({ length: topology.workers }, () => startFeira(store, { role: "worker", entry, env: named("worker") })),
  ]);
  const all = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  guardLive();
  for (const p of all) live.add(p);
  const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
  const stopAll = () => Promise.all(all.map((p) => stopWithin(p, 10_000)));
  if (failed) {
    await stopAll();
    throw failed.reason;
  }
  const api = all.slice(0, topology.api);
  const workers = all.slice(topology.api);
  let next = 0;
  const pick = () => api[next++ % api.length]!.url;
  const proxies: http.Server[] = [];
  return {
    api,
    workers,
    inject: (opts) => {
      const req = normalize(opts);
      const inProcess = unsendable(req);
      if (inProcess) throw new InProcessOnly(inProcess);
      account.viaHttp += 1;
      return send(pick(), req);
    },
    async listen() {
      const proxy = roundRobinProxy(pick);
      proxies.push(proxy);
      await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
      return `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    },
    async close() {
      // The processes first: a stopping process ends its open event streams, and the proxy
      // passes that end on to the client, as a load balancer would.
      const problems: string[] = [];
      await Promise.all(all.map(async (p) => {
        // Past the process's own bound (main.ts: 20 s, then exit 1 with the step it waited on).
        const code = await stopWithin(p, 25_000);
        live.delete(p);
        if (code !== 0) problems.push(`${p.url} ${p.child.spawnargs.at(-1)} exited ${String(code)}:\n${p.output().slice(-4_000)}`);
      }));
      for (const proxy of proxies) {
        proxy.closeAllConnections();
        proxy.close();
      }
      // A process that crashed during the test is a failure of the test, even if every
      // assertion passed: say so with its output.
      if (problems.length > 0) throw new Error(`feira processes did not stop cleanly:\n${problems.join("\n")}`);
    },
  };
}

// Processes of apps that were never closed (a test file killed by the runner, a failed
// before()) must not outlive the test file and hold their database.
// (Installed by the first topology start only: the normal mode keeps its signal handling.)
const live = new Set<FeiraProcess>();
let guarded = false;
function guardLive(): void {
  if (guarded) return;
  guarded = true;
  process.once("exit", () => { for (const p of live) p.child.kill("SIGKILL"); });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      for (const p of live) p.child.kill("SIGKILL");
      process.exit(130);
    });
  }
}

/** SIGTERM, then SIGKILL if it has not ended within `ms`. Resolves with the exit code or signal. */
async function stopWithin(p: FeiraProcess, ms: number): Promise<number | string | null> {
  if (p.child.exitCode === null && p.child.signalCode === null) {
    const timer = setTimeout(() => p.child.kill("SIGKILL"), ms);
    await p.stop();
    clearTimeout(timer);
  }
  return p.child.exitCode ?? p.child.signalCode;
}

// ---- inject over HTTP, with light-my-request's answer shape ----

/** A request that real HTTP cannot carry: the caller sends it to the in-process app instead. */
export class InProcessOnly extends Error {
  constructor(readonly reason: string) { super(reason); }
}

/** A request of a topology-mode app that the in-process app answered, and why. */
export function countInProcess(reason: string): void {
  account.inProcess.set(reason, (account.inProcess.get(reason) ?? 0) + 1);
}

interface Normalized {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body: Buffer | undefined;
  remoteAddress: string | undefined;
  asStream: boolean;
}

function normalize(input: InjectOptions | string): Normalized {
  const opts: InjectOptions = typeof input === "string" ? { url: input } : input;
  const raw = opts.url ?? opts.path ?? "/";
  const url = typeof raw === "string" ? new URL(raw, "http://localhost") : new URL(`${raw.pathname ?? "/"}${raw.query ? `?${new URLSearchParams(raw.query as Record<string, string>)}` : ""}`, "http://localhost");
  if (opts.query) {
    const extra = typeof opts.query === "string" ? new URLSearchParams(opts.query) : new URLSearchParams(opts.query as Record<string, string>);
    for (const [k, v] of extra) url.searchParams.append(k, v);
  }
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(opts.headers ?? {})) {
    if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.map(String) : String(v);
  }
  const payload = opts.payload ?? opts.body;
  let body: Buffer | undefined;
  if (payload === undefined || payload === null) body = undefined;
  else if (Buffer.isBuffer(payload)) body = payload;
  else if (typeof payload === "string") body = Buffer.from(payload);
  else if (payload instanceof Readable) throw new InProcessOnly("stream payload");
  else {
    body = Buffer.from(JSON.stringify(payload));
    headers["content-type"] ??= "application/json";
  }
  if (body !== undefined) headers["content-length"] ??= String(body.length);
  // What light-my-request puts in every request, so the server sees the same headers.
  headers["user-agent"] ??= "lightMyRequest";
  // The path as given: new URL() would normalize percent-escapes and dot segments that the
  // test may send on purpose.
  const given = typeof raw === "string" ? raw : url.pathname + url.search;
  const asGiven = opts.query ? url.pathname + url.search : given;
  return {
    method: (opts.method ?? "GET").toUpperCase(), path: asGiven, headers, body,
    remoteAddress: opts.remoteAddress, asStream: opts.payloadAsStream === true,
  };
}

/** Why this request cannot go over a real socket (Node's client refuses what no server could receive). */
function unsendable(req: Normalized): string | undefined {
  try {
    for (const [k, v] of Object.entries(req.headers)) {
      http.validateHeaderName(k);
      for (const one of Array.isArray(v) ? v : [v]) http.validateHeaderValue(k, one);
    }
  } catch {
    return "header an HTTP client cannot send";
  }
  if (!/^[\x21-\x7e]*$/.test(req.path) || !req.path.startsWith("/")) return "request target an HTTP client cannot send";
  // The API refuses it (413) before reading it all and closes the connection: a client still
  // writing it may get EPIPE or a reset instead of the answer, depending on timing.
  if (req.body && req.body.length > 1024 * 1024) return "body over the API's 1 MiB limit, which a socket may reset mid-write";
  return undefined;
}

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 64 });

/**
 * A remote address other than 127.0.0.1 (rate limits and lockouts are per address) becomes a
 * loopback address with the same last three octets: Linux routes all of 127.0.0.0/8 to lo, so
 * the server really sees the request come from there.
 */
function loopbackFor(address: string | undefined): string | undefined {
  if (!address || address === "127.0.0.1") return undefined;
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  if (!m) throw new InProcessOnly("remoteAddress that is not IPv4");
  const [b, c, d] = [Number(m[2]), Number(m[3]), Number(m[4])];
  return `127.${b}.${c}.${d === 0 || d === 255 ? 1 : d}`;
}

function send(base: string, req: Normalized): Promise<LightMyRequestResponse> {
  const target = new URL(base);
  const localAddress = loopbackFor(req.remoteAddress);
  return new Promise((resolve, reject) => {
    const out = http.request({
      host: target.hostname, port: target.port, method: req.method, path: req.path, headers: req.headers,
      // A fresh connection per foreign address; the pool otherwise.
      ...(localAddress ? { localAddress, agent: false } : { agent: keepAlive }),
    }, (res) => {
      const headers = { ...res.headers } as Record<string, string | string[] | undefined>;
      const shape = (raw: Buffer | undefined) => {
        const payload = raw?.toString() ?? "";
        return {
          statusCode: res.statusCode!, statusMessage: res.statusMessage ?? "", headers,
          rawPayload: raw ?? Buffer.alloc(0), payload, body: payload,
          json: () => {
            if (!raw) throw new Error("Response payload is not available with payloadAsStream: true");
            return JSON.parse(payload);
          },
          stream: () => res,
          cookies: [], trailers: res.trailers, raw: { req: out, res },
        } as unknown as LightMyRequestResponse;
      };
      if (req.asStream) return resolve(shape(undefined));
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve(shape(Buffer.concat(chunks))));
      res.on("error", reject);
    });
    out.on("error", reject);
    out.end(req.body);
  });
}

/** A local HTTP server that forwards each request to `pick()`'s process, streaming both ways. */
function roundRobinProxy(pick: () => string): http.Server {
  // Headers up to 64 KiB pass through, so that the API processes' own 16 KiB limit answers.
  return http.createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => {
    const target = new URL(pick());
    const upstream = http.request({
      host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent: keepAlive,
    }, (answer) => {
      res.writeHead(answer.statusCode!, answer.statusMessage, answer.rawHeaders);
      answer.pipe(res);
      res.on("close", () => answer.destroy());
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
}
