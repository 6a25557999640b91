import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { isEmailAddress } from "./lib/email-address.js";
import { currencyExponent, DEFAULT_MAX_AMOUNT_MINOR, type AmountLimits } from "./lib/money.js";
import { settingsFromEnv, type ProcessorDefinition } from "./processors/definition.js";
import { PROCESSORS } from "./processors/registry.js";
import { parsePayoutProvider, parseProcessorRouting, type LiveProcessorConfig } from "./processors/routing.js";

// The whole configuration, parsed once from the environment in main.ts and passed down.
// Nothing else in feira reads process.env.
export interface Config {
  production: boolean;
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /**
   * DATABASE_POOL_MODE: `session` (default) when DATABASE_URL reaches PostgreSQL or a pooler in
   * session mode; `transaction` behind a transaction-mode pooler (PgBouncer): no named prepared
   * statements and no session state on DATABASE_URL's connections.
   */
  databasePoolMode: "session" | "transaction";
  /**
   * DATABASE_DIRECT_URL: a connection straight to PostgreSQL for what needs a session (LISTEN)
   * and for migrations, when DATABASE_URL goes through a pooler. Without it, LISTEN is skipped
   * in transaction mode (workers poll) and migrations run through the pooler.
   */
  databaseDirectUrl: string | undefined;
  /**
   * DATABASE_REPLICA_URL: standbys (one host or a host list) that lists and searches may read
   * when they have replayed the caller's writes (src/db/replica.ts); PostgreSQL only.
   */
  databaseReplicaUrl: string | undefined;
  /** GROUP_COMMIT: charges' statements in flight per process before the next go together (0: never; src/db/group-commit.ts). */
  groupCommit: number;
  adminApiKey: string | undefined;
  jwtSecret: string;
  encryptionKey: string;
  publicBaseUrl: string;
  panelUrl: string;
  shippingProviderUrl: string;
  /**
   * Contact e-mail in the User-Agent Melhor Envio requires ("feira (e-mail)"): SHIPPING_USER_AGENT_EMAIL,
   * else the merchant's account e-mail.
   */
  shippingUserAgentEmail?: string;
  webhookRetryScale: number;
  webhookAllowPrivateUrls: boolean;
  /**
   * SMTP_URL (smtp:// or smtps://, user and password in it) and MAIL_FROM: where e-mails to
   * buyers go out. Unset, no production e-mail is sent (the sandbox keeps its outbox anyway).
   */
  smtpUrl?: string;
  mailFrom?: string;
  /** SMTP_CA_FILE's PEM: a CA trusted for the SMTP server's certificate besides the system's (a private relay). */
  smtpCa?: string;
  /** PAYMENT_PROCESSOR as given (the registry's test adapters are chosen by it). */
  productionProcessor: string | undefined;
  /** The live processors: routes per method (none: live charges are refused) and their accounts. */
  live: LiveProcessorConfig;
  logLevel: string;
  /** How often an idle worker looks for due work (deliveries, settlements). */
  workerPollMs: number;
  /** Requests per second per API key (with a burst allowance); 0 turns the limit off. */
  rateLimitPerKey: number;
  /**
   * TRUST_PROXY_HOPS: how many proxies in front of feira append to X-Forwarded-For. The client
   * address (lockouts, per-address limits, logs) is the entry that many hops back; 0, the
   * default, ignores the header, since a client can write anything in it.
   */
  trustProxyHops: number;
  /** WEB_CONCURRENCY: API processes sharing the port (node:cluster); above 1 only on PostgreSQL. */
  webConcurrency: number;
  /** Events and their delivery logs older than this many days are pruned by the worker. */
  eventRetentionDays: number;
  /**
   * DEMO_HISTORY: the first local start gives the demo merchant sandbox history for the panel
   * (default true; never in production). Tests that count every row of a table turn it off.
   */
  demoHistory: boolean;
  /**
   * How long a request holds its Idempotency-Key claim before a retry may take it over (the
   * claim of a process that died is recovered after this, never spun on).
   */
  idempotencyLeaseMs: number;
  /**
   * The largest amount of a charge, refund, payout, plan price or payment link, in minor units:
   * MAX_AMOUNT_MINOR (99,999,999 by default) for every currency, MAX_AMOUNT_MINOR_<CUR> for one.
   */
  amountLimits: AmountLimits;
  /**
   * FEIRA_FAULT: a named point where the process exits at once (kill -9 style), for crash
   * tests. Never honoured with NODE_ENV=production.
   */
  faultPoint: string | undefined;
  /**
   * WEBHOOK_CONCURRENCY: deliveries in flight at once per worker process (its slots, and its
   * kept-alive connections per destination). Against receivers that take t seconds to answer a
   * worker delivers at most this / t events per second.
   */
  webhookConcurrency: number;
  /**
   * METRICS_TOKEN: with NODE_ENV=production, GET /metrics answers only with
   * `Authorization: Bearer <it>` (404 when it is unset: the scrape is off). Ignored in local mode.
   */
  metricsToken: string | undefined;
}

export type { LiveProcessorConfig };

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join("\n  - ")}`);
  }
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/**
 * Parses the environment. In local mode (NODE_ENV is not "production") missing secrets are
 * generated once into DATA_DIR/secrets.json and reused on the next start; production refuses
 * to start without them, because a generated secret would silently change between machines.
 */
export function loadConfig(env: NodeJS.ProcessEnv, processors: readonly ProcessorDefinition[] = PROCESSORS): Config {
  const problems: string[] = [];
  const production = env.NODE_ENV === "production";

  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    const n = Number(raw);
    if (Number.isInteger(n) && n >= min && n <= max) return n;
    // The fallback keeps values derived from this one (PUBLIC_BASE_URL's default) from
    // adding a second, misleading problem.
    problems.push(`${name} must be an integer between ${min} and ${max}`);
    return fallback;
  };
  const bool = (name: string): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === "") return false;
    if (raw !== "true" && raw !== "false") problems.push(`${name} must be "true" or "false"`);
    return raw === "true";
  };
  // Only a given value is checked: a default derived from another, invalid, setting
  // (PANEL_URL from PUBLIC_BASE_URL) would repeat that setting's problem under its own name.
  const url = (name: string, fallback: string): string => {
    const raw = env[name] || "";
    if (!raw) return fallback.replace(/\/+$/, "");
    try {
      const u = new URL(raw);
      if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error();
    } catch {
      problems.push(`${name} must be an http(s) URL`);
    }
    return raw.replace(/\/+$/, "");
  };

  const port = int("PORT", 3000, 0, 65535);
  const publicBaseUrl = url("PUBLIC_BASE_URL", `http://localhost:${port}`);
  const panelUrl = url("PANEL_URL", `${publicBaseUrl}/panel`);
  const shippingProviderUrl = url("SHIPPING_PROVIDER_URL", "https://sandbox.melhorenvio.com.br");
  const webhookAllowPrivateUrls = bool("WEBHOOK_ALLOW_PRIVATE_URLS");
  const scaleRaw = env.WEBHOOK_RETRY_SCALE;
  const webhookRetryScale = scaleRaw === undefined || scaleRaw === "" ? 1 : Number(scaleRaw);
  if (!Number.isFinite(webhookRetryScale) || webhookRetryScale < 0) problems.push("WEBHOOK_RETRY_SCALE must be a number >= 0");
  const mail = parseMail(env, problems);
  const logLevel = env.LOG_LEVEL || "info";
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}`);
  const databaseUrl = env.DATABASE_URL || undefined;
  const databaseUrlOk = !databaseUrl || /^postgres(ql)?:\/\//.test(databaseUrl);
  if (!databaseUrlOk) problems.push("DATABASE_URL must start with postgres://");
  const databaseDirectUrl = env.DATABASE_DIRECT_URL || undefined;
  if (databaseDirectUrl && !/^postgres(ql)?:\/\//.test(databaseDirectUrl)) problems.push("DATABASE_DIRECT_URL must start with postgres://");
  if (databaseDirectUrl && !databaseUrl) problems.push("DATABASE_DIRECT_URL needs DATABASE_URL (the pooled connection it goes with)");
  const databaseReplicaUrl = env.DATABASE_REPLICA_URL || undefined;
  if (databaseReplicaUrl && !/^postgres(ql)?:\/\//.test(databaseReplicaUrl)) problems.push("DATABASE_REPLICA_URL must start with postgres://");
  if (databaseReplicaUrl && !databaseUrl) problems.push("DATABASE_REPLICA_URL needs DATABASE_URL: the embedded database (PGlite) has no standbys; set DATABASE_URL to the primary or unset DATABASE_REPLICA_URL");
  const poolMode = env.DATABASE_POOL_MODE || "session";
  if (poolMode !== "session" && poolMode !== "transaction") problems.push('DATABASE_POOL_MODE must be "session" or "transaction"');
  if (poolMode === "transaction" && !databaseUrl) problems.push("DATABASE_POOL_MODE=transaction needs DATABASE_URL (a pooler in front of PostgreSQL)");

  if (env.SHIPPING_USER_AGENT_EMAIL && !/^[^\s()@]+@[^\s()@]+$/.test(env.SHIPPING_USER_AGENT_EMAIL)) {
    problems.push("SHIPPING_USER_AGENT_EMAIL must be an e-mail address");
  }
  const rateLimitPerKey = int("RATE_LIMIT_PER_KEY", 100, 0, 1_000_000);
  const trustProxyHops = int("TRUST_PROXY_HOPS", 0, 0, 10);
  const eventRetentionDays = int("EVENT_RETENTION_DAYS", 30, 1, 3650);
  const demoHistory = env.DEMO_HISTORY === undefined || env.DEMO_HISTORY === "" ? true : bool("DEMO_HISTORY");
  const idempotencyLeaseMs = int("IDEMPOTENCY_LEASE_MS", 30_000, 1_000, 3_600_000);
  const webConcurrency = int("WEB_CONCURRENCY", 1, 1, 256);
  const groupCommit = int("GROUP_COMMIT", 1, 0, 64);
  const amountLimits = parseAmountLimits(env, problems);
  const live = parseLive(env, problems, processors, { int, url });
  const webhookConcurrency = int("WEBHOOK_CONCURRENCY", 128, 1, 4096);
  if (webConcurrency > 1 && !databaseUrl) {
    problems.push(`WEB_CONCURRENCY=${webConcurrency} needs DATABASE_URL: the embedded database admits one process; unset WEB_CONCURRENCY or use PostgreSQL`);
  }

  if (production) {
    for (const name of ["ENCRYPTION_KEY", "JWT_SECRET", "ADMIN_API_KEY"]) {
      if (!env[name]) problems.push(`${name} is required when NODE_ENV=production`);
    }
  } else if (databaseUrl && databaseUrlOk) {
    // Every process on one PostgreSQL must agree on these: a secret generated into one host's
    // DATA_DIR would make tokens and sealed data of another host unreadable.
    for (const name of ["ENCRYPTION_KEY", "JWT_SECRET"]) {
      if (!env[name]) {
        const how = name === "ENCRYPTION_KEY" ? "openssl rand -base64 32" : "openssl rand -base64 48";
        problems.push(`${name} is required with DATABASE_URL (every process must share it); make one with \`${how}\``);
      }
    }
  }
  if (env.ENCRYPTION_KEY && Buffer.from(env.ENCRYPTION_KEY, "base64").length !== 32) {
    problems.push("ENCRYPTION_KEY must be 32 bytes encoded in base64 (openssl rand -base64 32)");
  }
  if (env.JWT_SECRET && env.JWT_SECRET.length < 32) problems.push("JWT_SECRET must be at least 32 characters");
  if (env.METRICS_TOKEN && env.METRICS_TOKEN.length < 24) problems.push("METRICS_TOKEN must be at least 24 characters");
  if (env.ADMIN_API_KEY && env.ADMIN_API_KEY.length < 24) problems.push("ADMIN_API_KEY must be at least 24 characters");
  if (problems.length > 0) throw new ConfigError(problems);

  const dataDir = path.resolve(env.DATA_DIR || ".data");
  const secrets =
    env.ENCRYPTION_KEY && env.JWT_SECRET
      ? { encryptionKey: env.ENCRYPTION_KEY, jwtSecret: env.JWT_SECRET }
      : localSecrets(dataDir, env);

  return {
    production,
    port,
    host: env.HOST || "127.0.0.1",
    dataDir,
    databaseUrl,
    databasePoolMode: poolMode === "transaction" ? "transaction" : "session",
    groupCommit,
    databaseDirectUrl,
    databaseReplicaUrl,
    adminApiKey: env.ADMIN_API_KEY || undefined,
    jwtSecret: secrets.jwtSecret,
    encryptionKey: secrets.encryptionKey,
    publicBaseUrl,
    panelUrl,
    shippingProviderUrl,
    shippingUserAgentEmail: env.SHIPPING_USER_AGENT_EMAIL || undefined,
    webhookRetryScale,
    webhookAllowPrivateUrls,
    ...mail,
    productionProcessor: env.PAYMENT_PROCESSOR || undefined,
    live,
    logLevel,
    workerPollMs: 500,
    rateLimitPerKey,
    trustProxyHops,
    webConcurrency,
    eventRetentionDays,
    demoHistory,
    idempotencyLeaseMs,
    amountLimits,
    faultPoint: production ? undefined : env.FEIRA_FAULT || undefined,
    webhookConcurrency,
    metricsToken: env.METRICS_TOKEN || undefined,
  };
}

/** SMTP_URL, MAIL_FROM and SMTP_CA_FILE: both of the first two or neither. */
function parseMail(env: NodeJS.ProcessEnv, problems: string[]): Pick<Config, "smtpUrl" | "mailFrom" | "smtpCa"> {
  const smtpUrl = env.SMTP_URL || undefined;
  const mailFrom = env.MAIL_FROM || undefined;
  if (smtpUrl) {
    try {
      const u = new URL(smtpUrl);
      if (u.protocol !== "smtp:" && u.protocol !== "smtps:") throw new Error();
    } catch {
      problems.push("SMTP_URL must be an smtp:// or smtps:// URL");
    }
  }
  if (Boolean(smtpUrl) !== Boolean(mailFrom)) problems.push("SMTP_URL and MAIL_FROM go together: set both or neither");
  if (mailFrom && !isEmailAddress(mailFrom)) problems.push("MAIL_FROM must be an e-mail address");
  let smtpCa: string | undefined;
  if (env.SMTP_CA_FILE) {
    try {
      smtpCa = readFileSync(env.SMTP_CA_FILE, "utf8");
    } catch {
      problems.push("SMTP_CA_FILE must name a readable PEM file");
    }
  }
  return { smtpUrl, mailFrom, smtpCa };
}

// Every known processor's settings are read (a malformed URL stops the start even when it is not
// routed yet); which are required, and each definition's own checks, follow from the routes.
function parseLive(
  env: NodeJS.ProcessEnv, problems: string[], definitions: readonly ProcessorDefinition[],
  read: { int(name: string, fallback: number, min: number, max: number): number; url(name: string, fallback: string): string },
): LiveProcessorConfig {
  const processors = Object.fromEntries(definitions.map((d) => [d.name, settingsFromEnv(d, env, read.url)]));
  const routing = parseProcessorRouting(env, definitions, processors);
  problems.push(...routing.problems);
  const payouts = parsePayoutProvider(env, definitions, processors);
  problems.push(...payouts.problems);
  return {
    ...(payouts.payoutProvider ? { payoutProvider: payouts.payoutProvider, payoutAutoApprove: payouts.payoutAutoApprove } : {}),
    routes: routing.routes,
    ...(routing.mandateProvider ? { mandateProvider: routing.mandateProvider } : {}),
    processors,
    timeoutMs: read.int("PROCESSOR_TIMEOUT_MS", 15_000, 100, 300_000),
    reconcileIntervalMs: read.int("PROCESSOR_RECONCILE_INTERVAL_MS", 60_000, 1_000, 86_400_000),
    webhookLookups: {
      perSecond: read.int("PROCESSOR_WEBHOOK_LOOKUPS_PER_SECOND", 200, 1, 100_000),
      perAddressPerSecond: read.int("PROCESSOR_WEBHOOK_LOOKUPS_PER_ADDRESS", 100, 1, 100_000),
    },
    maxWaiting: read.int("PROCESSOR_MAX_WAITING", DEFAULT_PROCESSOR_MAX_WAITING, 1, 65_536),
  };
}

// Enough for one process to serve 1,024 clients of a processor answering in 1 s (1,024
// charges/s); 1,024 waiting charges add 16 to 18 MB to a compiled API process (bench/RESULTS.md,
// "Slow processors").
const DEFAULT_PROCESSOR_MAX_WAITING = 1024;

/** No live processor: production-key charges are refused (tests, a sandbox-only deployment). */
export const NO_LIVE_PROCESSORS: LiveProcessorConfig = {
  routes: {},
  processors: {},
  timeoutMs: 15_000,
  reconcileIntervalMs: 60_000,
  webhookLookups: { perSecond: 200, perAddressPerSecond: 100 },
  maxWaiting: DEFAULT_PROCESSOR_MAX_WAITING,
};

const MAX_AMOUNT_PREFIX = "MAX_AMOUNT_MINOR_";

// MAX_AMOUNT_MINOR for every currency, MAX_AMOUNT_MINOR_<CUR> (an ISO 4217 code feira accepts)
// for one; whole numbers of minor units from 1 to 2^53 - 1.
function parseAmountLimits(env: NodeJS.ProcessEnv, problems: string[]): AmountLimits {
  const parse = (name: string, raw: string): number | undefined => {
    const n = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
    if (Number.isSafeInteger(n) && n >= 1) return n;
    problems.push(`${name} must be a whole number of minor units from 1 to ${Number.MAX_SAFE_INTEGER} (99999999 is 999999.99 BRL)`);
    return undefined;
  };
  const raw = env.MAX_AMOUNT_MINOR;
  const defaultMaxMinor = (raw !== undefined && raw !== "" ? parse("MAX_AMOUNT_MINOR", raw) : undefined) ?? DEFAULT_MAX_AMOUNT_MINOR;
  const maxMinorByCurrency: Record<string, number> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(MAX_AMOUNT_PREFIX) || value === undefined || value === "") continue;
    const currency = name.slice(MAX_AMOUNT_PREFIX.length);
    if (currencyExponent(currency) === undefined) {
      problems.push(`${name}: ${currency} is not a supported ISO 4217 currency code (upper-case, e.g. MAX_AMOUNT_MINOR_JPY)`);
      continue;
    }
    const n = parse(name, value);
    if (n !== undefined) maxMinorByCurrency[currency] = n;
  }
  return { defaultMaxMinor, maxMinorByCurrency };
}

function localSecrets(dataDir: string, env: NodeJS.ProcessEnv): { encryptionKey: string; jwtSecret: string } {
  const file = path.join(dataDir, "secrets.json");
  let stored: { encryptionKey?: string; jwtSecret?: string } = {};
  if (existsSync(file)) {
    try {
      stored = JSON.parse(readFileSync(file, "utf8"));
    } catch (err) {
      // Never regenerate over it: data sealed with the old key would become unreadable.
      throw new ConfigError([`${file} is not valid JSON (${(err as Error).message}); restore it, or set ENCRYPTION_KEY and JWT_SECRET`]);
    }
  }
  const result = {
    encryptionKey: env.ENCRYPTION_KEY || stored.encryptionKey || randomBytes(32).toString("base64"),
    jwtSecret: env.JWT_SECRET || stored.jwtSecret || randomBytes(48).toString("base64url"),
  };
  if (result.encryptionKey !== stored.encryptionKey || result.jwtSecret !== stored.jwtSecret) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(result, null, 2) + "\n", { mode: 0o600 });
  }
  return result;
}
