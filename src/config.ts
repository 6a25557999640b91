import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";

// The whole configuration, parsed once from the environment in main.ts and passed down.
// Nothing else in feira reads process.env.
export interface Config {
  production: boolean;
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
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
  /** Name of the processor used for production-key charges; none means they are refused. */
  productionProcessor: string | undefined;
  logLevel: string;
  /** How often an idle worker looks for due work (deliveries, settlements). */
  workerPollMs: number;
  /** Requests per second per API key (with a burst allowance); 0 turns the limit off. */
  rateLimitPerKey: number;
  /** WEB_CONCURRENCY: API processes sharing the port (node:cluster); above 1 only on PostgreSQL. */
  webConcurrency: number;
  /** Events and their delivery logs older than this many days are pruned by the worker. */
  eventRetentionDays: number;
  /**
   * How long a request holds its Idempotency-Key claim before a retry may take it over (the
   * claim of a process that died is recovered after this, never spun on).
   */
  idempotencyLeaseMs: number;
  /**
   * FEIRA_FAULT: a named point where the process exits at once (kill -9 style), for crash
   * tests. Never honoured with NODE_ENV=production.
   */
  faultPoint: string | undefined;
}

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
export function loadConfig(env: NodeJS.ProcessEnv): Config {
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
  const panelUrl = url("PANEL_URL", publicBaseUrl);
  const shippingProviderUrl = url("SHIPPING_PROVIDER_URL", "https://sandbox.melhorenvio.com.br");
  const webhookAllowPrivateUrls = bool("WEBHOOK_ALLOW_PRIVATE_URLS");
  const scaleRaw = env.WEBHOOK_RETRY_SCALE;
  const webhookRetryScale = scaleRaw === undefined || scaleRaw === "" ? 1 : Number(scaleRaw);
  if (!Number.isFinite(webhookRetryScale) || webhookRetryScale < 0) problems.push("WEBHOOK_RETRY_SCALE must be a number >= 0");
  const logLevel = env.LOG_LEVEL || "info";
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}`);
  const databaseUrl = env.DATABASE_URL || undefined;
  const databaseUrlOk = !databaseUrl || /^postgres(ql)?:\/\//.test(databaseUrl);
  if (!databaseUrlOk) problems.push("DATABASE_URL must start with postgres://");

  if (env.SHIPPING_USER_AGENT_EMAIL && !/^[^\s()@]+@[^\s()@]+$/.test(env.SHIPPING_USER_AGENT_EMAIL)) {
    problems.push("SHIPPING_USER_AGENT_EMAIL must be an e-mail address");
  }
  const rateLimitPerKey = int("RATE_LIMIT_PER_KEY", 100, 0, 1_000_000);
  const eventRetentionDays = int("EVENT_RETENTION_DAYS", 30, 1, 3650);
  const idempotencyLeaseMs = int("IDEMPOTENCY_LEASE_MS", 30_000, 1_000, 3_600_000);
  const webConcurrency = int("WEB_CONCURRENCY", 1, 1, 256);
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
    adminApiKey: env.ADMIN_API_KEY || undefined,
    jwtSecret: secrets.jwtSecret,
    encryptionKey: secrets.encryptionKey,
    publicBaseUrl,
    panelUrl,
    shippingProviderUrl,
    shippingUserAgentEmail: env.SHIPPING_USER_AGENT_EMAIL || undefined,
    webhookRetryScale,
    webhookAllowPrivateUrls,
    productionProcessor: env.PAYMENT_PROCESSOR || undefined,
    logLevel,
    workerPollMs: 500,
    rateLimitPerKey,
    webConcurrency,
    eventRetentionDays,
    idempotencyLeaseMs,
    faultPoint: production ? undefined : env.FEIRA_FAULT || undefined,
  };
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
