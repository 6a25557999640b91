import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ConfigError, loadConfig } from "../../src/config.js";
import { tempDir } from "../helpers/process.js";

// loadConfig is the only reader of the environment: production refuses to start without its
// secrets; local use generates them once into DATA_DIR and reuses them.

const secrets = () => ({
  ENCRYPTION_KEY: randomBytes(32).toString("base64"),
  JWT_SECRET: randomBytes(32).toString("hex"),
  ADMIN_API_KEY: "adm_" + randomBytes(16).toString("hex"),
});

/** The ConfigError's problems, failing if loadConfig does not throw one. */
function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`);
    for (const p of err.problems) assert.ok(err.message.includes(p), "the message lists every problem");
    return err.problems;
  }
  assert.fail(`loadConfig accepted ${JSON.stringify(env)}`);
}

test("local defaults", () => {
  const dataDir = tempDir();
  const c = loadConfig({ DATA_DIR: dataDir });
  assert.equal(c.production, false);
  assert.equal(c.port, 3000);
  assert.equal(c.host, "127.0.0.1");
  assert.equal(c.dataDir, dataDir);
  assert.equal(c.databaseUrl, undefined);
  assert.equal(c.adminApiKey, undefined);
  assert.equal(c.publicBaseUrl, "http://localhost:3000");
  assert.equal(c.panelUrl, "http://localhost:3000/panel");
  assert.equal(c.webhookRetryScale, 1);
  assert.equal(c.webhookAllowPrivateUrls, false);
  assert.equal(c.logLevel, "info");
});

test("local mode generates ENCRYPTION_KEY and JWT_SECRET into DATA_DIR/secrets.json and reuses them", () => {
  const dataDir = path.join(tempDir(), "not-yet-created");
  const first = loadConfig({ DATA_DIR: dataDir });
  const file = path.join(dataDir, "secrets.json");
  assert.ok(existsSync(file));
  assert.equal(statSync(file).mode & 0o777, 0o600, "readable by the owner only");
  assert.equal(Buffer.from(first.encryptionKey, "base64").length, 32);
  assert.ok(first.jwtSecret.length >= 32);
  assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), { encryptionKey: first.encryptionKey, jwtSecret: first.jwtSecret });

  const second = loadConfig({ DATA_DIR: dataDir });
  assert.equal(second.encryptionKey, first.encryptionKey);
  assert.equal(second.jwtSecret, first.jwtSecret);

  // A secret given in the environment wins over the stored one, the other is still reused.
  const jwtSecret = "j".repeat(40);
  const third = loadConfig({ DATA_DIR: dataDir, JWT_SECRET: jwtSecret });
  assert.equal(third.jwtSecret, jwtSecret);
  assert.equal(third.encryptionKey, first.encryptionKey);
});

test("secrets given in the environment are used and nothing is written", () => {
  const dataDir = path.join(tempDir(), "untouched");
  const env = secrets();
  const c = loadConfig({ DATA_DIR: dataDir, ...env });
  assert.equal(c.encryptionKey, env.ENCRYPTION_KEY);
  assert.equal(c.jwtSecret, env.JWT_SECRET);
  assert.equal(c.adminApiKey, env.ADMIN_API_KEY);
  assert.equal(existsSync(dataDir), false);
});

test("production without ENCRYPTION_KEY, JWT_SECRET and ADMIN_API_KEY throws a ConfigError naming each", () => {
  const dataDir = tempDir();
  const problems = problemsOf({ NODE_ENV: "production", DATA_DIR: dataDir });
  assert.deepEqual(problems.sort(), [
    "ADMIN_API_KEY is required when NODE_ENV=production",
    "ENCRYPTION_KEY is required when NODE_ENV=production",
    "JWT_SECRET is required when NODE_ENV=production",
  ]);
  assert.equal(existsSync(path.join(dataDir, "secrets.json")), false, "production never generates secrets");

  for (const missing of ["ENCRYPTION_KEY", "JWT_SECRET", "ADMIN_API_KEY"] as const) {
    const env: NodeJS.ProcessEnv = { NODE_ENV: "production", DATA_DIR: dataDir, ...secrets() };
    delete env[missing];
    assert.deepEqual(problemsOf(env), [`${missing} is required when NODE_ENV=production`]);
  }
});

test("production with its secrets starts, and never writes a secrets file", () => {
  const dataDir = tempDir();
  const env = secrets();
  const c = loadConfig({ NODE_ENV: "production", DATA_DIR: dataDir, DATABASE_URL: "postgres://u:p@db:5432/feira", ...env });
  assert.equal(c.production, true);
  assert.equal(c.databaseUrl, "postgres://u:p@db:5432/feira");
  assert.equal(c.encryptionKey, env.ENCRYPTION_KEY);
  assert.equal(existsSync(path.join(dataDir, "secrets.json")), false);
});

test("PORT must be an integer between 0 and 65535", () => {
  for (const PORT of ["abc", "70000", "-1", "3000.5", "80x"]) {
    assert.deepEqual(problemsOf({ DATA_DIR: tempDir(), PORT }), ["PORT must be an integer between 0 and 65535"], `PORT=${PORT}`);
  }
  assert.equal(loadConfig({ DATA_DIR: tempDir(), PORT: "8080" }).port, 8080);
  assert.equal(loadConfig({ DATA_DIR: tempDir(), PORT: "8080" }).publicBaseUrl, "http://localhost:8080");
});

test("ENCRYPTION_KEY must be 32 bytes of base64", () => {
  for (const key of [randomBytes(16).toString("base64"), randomBytes(33).toString("base64"), "not base64 at all"]) {
    assert.deepEqual(
      problemsOf({ DATA_DIR: tempDir(), ENCRYPTION_KEY: key }),
      ["ENCRYPTION_KEY must be 32 bytes encoded in base64 (openssl rand -base64 32)"],
    );
  }
});

test("short secrets, bad URLs, levels and flags are refused, all in one error", () => {
  const problems = problemsOf({
    DATA_DIR: tempDir(),
    JWT_SECRET: "short",
    ADMIN_API_KEY: "short",
    LOG_LEVEL: "verbose",
    DATABASE_URL: "mysql://localhost/feira",
    PUBLIC_BASE_URL: "ftp://example.com",
    WEBHOOK_RETRY_SCALE: "-1",
    WEBHOOK_ALLOW_PRIVATE_URLS: "yes",
    SHIPPING_PROVIDER_URL: "not a url",
  });
  // PANEL_URL is unset: its default (PUBLIC_BASE_URL) is not reported a second time.
  assert.deepEqual(problems.sort(), [
    "ADMIN_API_KEY must be at least 24 characters",
    "DATABASE_URL must start with postgres://",
    "JWT_SECRET must be at least 32 characters",
    "LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent",
    "PUBLIC_BASE_URL must be an http(s) URL",
    "SHIPPING_PROVIDER_URL must be an http(s) URL",
    "WEBHOOK_ALLOW_PRIVATE_URLS must be \"true\" or \"false\"",
    "WEBHOOK_RETRY_SCALE must be a number >= 0",
  ]);
  assert.deepEqual(problemsOf({ DATA_DIR: tempDir(), PANEL_URL: "javascript:alert(1)" }), ["PANEL_URL must be an http(s) URL"]);
});

test("TRUST_PROXY_HOPS is a small whole number, 0 (X-Forwarded-For ignored) by default", () => {
  assert.equal(loadConfig({ DATA_DIR: tempDir() }).trustProxyHops, 0);
  assert.equal(loadConfig({ DATA_DIR: tempDir(), TRUST_PROXY_HOPS: "2" }).trustProxyHops, 2);
  for (const TRUST_PROXY_HOPS of ["true", "-1", "1.5", "11"]) {
    assert.deepEqual(problemsOf({ DATA_DIR: tempDir(), TRUST_PROXY_HOPS }), ["TRUST_PROXY_HOPS must be an integer between 0 and 10"], TRUST_PROXY_HOPS);
  }
});

test("optional settings are parsed", () => {
  const c = loadConfig({
    DATA_DIR: tempDir(),
    HOST: "0.0.0.0",
    PUBLIC_BASE_URL: "https://pay.example.com/",
    WEBHOOK_RETRY_SCALE: "0.001",
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    LOG_LEVEL: "warn",
    DATABASE_URL: "postgresql://localhost/feira",
    ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    JWT_SECRET: "j".repeat(40),
  });
  assert.equal(c.host, "0.0.0.0");
  assert.equal(c.publicBaseUrl, "https://pay.example.com", "trailing slash removed");
  assert.equal(c.panelUrl, "https://pay.example.com/panel", "the panel is served under /panel");
  assert.equal(c.webhookRetryScale, 0.001);
  assert.equal(c.webhookAllowPrivateUrls, true);
  assert.equal(c.logLevel, "warn");
  assert.equal(c.databaseUrl, "postgresql://localhost/feira");
});

test("with DATABASE_URL, JWT_SECRET and ENCRYPTION_KEY must come from the environment (every process shares them)", () => {
  const dataDir = tempDir();
  const problems = problemsOf({ DATA_DIR: dataDir, DATABASE_URL: "postgres://localhost/feira" });
  assert.equal(problems.length, 2, problems.join("\n"));
  assert.match(problems[0]!, /ENCRYPTION_KEY is required with DATABASE_URL .*openssl rand -base64 32/);
  assert.match(problems[1]!, /JWT_SECRET is required with DATABASE_URL .*openssl rand/);
  assert.equal(existsSync(path.join(dataDir, "secrets.json")), false, "nothing generated into the local DATA_DIR");
  const ok = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: "postgres://localhost/feira", JWT_SECRET: "j".repeat(40), ENCRYPTION_KEY: randomBytes(32).toString("base64") });
  assert.equal(ok.jwtSecret, "j".repeat(40));
});

test("a corrupt secrets.json is reported, not silently replaced", () => {
  const dataDir = tempDir();
  writeFileSync(path.join(dataDir, "secrets.json"), "{not json");
  const [problem] = problemsOf({ DATA_DIR: dataDir });
  assert.match(problem!, new RegExp(`${path.join(dataDir, "secrets.json")} is not valid JSON`));
  assert.equal(readFileSync(path.join(dataDir, "secrets.json"), "utf8"), "{not json", "the file is left for the operator");
});

test("MAX_AMOUNT_MINOR and MAX_AMOUNT_MINOR_<CUR> set the amount ceilings; 99999999 minor units by default", () => {
  const env = { ...secrets() };
  assert.deepEqual(loadConfig(env).amountLimits, { defaultMaxMinor: 99_999_999, maxMinorByCurrency: {} });
  assert.deepEqual(loadConfig({ ...env, MAX_AMOUNT_MINOR: "500000", MAX_AMOUNT_MINOR_JPY: "1000", MAX_AMOUNT_MINOR_USD: "", MAX_AMOUNT_MINOR_IDR: " 99999999999999 " }).amountLimits, {
    defaultMaxMinor: 500_000, maxMinorByCurrency: { JPY: 1000, IDR: 99_999_999_999_999 },
  });
  assert.deepEqual(problemsOf({ ...env, MAX_AMOUNT_MINOR: "0", MAX_AMOUNT_MINOR_BRL: "1.5", MAX_AMOUNT_MINOR_brl: "1", MAX_AMOUNT_MINOR_XAU: "1", MAX_AMOUNT_MINOR_JPY: "9007199254740992" }).sort(), [
    "MAX_AMOUNT_MINOR must be a whole number of minor units from 1 to 9007199254740991 (99999999 is 999999.99 BRL)",
    "MAX_AMOUNT_MINOR_BRL must be a whole number of minor units from 1 to 9007199254740991 (99999999 is 999999.99 BRL)",
    "MAX_AMOUNT_MINOR_JPY must be a whole number of minor units from 1 to 9007199254740991 (99999999 is 999999.99 BRL)",
    "MAX_AMOUNT_MINOR_XAU: XAU is not a supported ISO 4217 currency code (upper-case, e.g. MAX_AMOUNT_MINOR_JPY)",
    "MAX_AMOUNT_MINOR_brl: brl is not a supported ISO 4217 currency code (upper-case, e.g. MAX_AMOUNT_MINOR_JPY)",
  ]);
});

test("DATABASE_POOL_MODE is session by default or transaction; DATABASE_DIRECT_URL goes with DATABASE_URL", () => {
  const pg = { ...secrets(), DATABASE_URL: "postgres://u:p@pooler:6432/feira" };
  const plain = loadConfig(pg);
  assert.equal(plain.databasePoolMode, "session");
  assert.equal(plain.databaseDirectUrl, undefined);
  const pooled = loadConfig({ ...pg, DATABASE_POOL_MODE: "transaction", DATABASE_DIRECT_URL: "postgres://u:p@db:5432/feira" });
  assert.equal(pooled.databasePoolMode, "transaction");
  assert.equal(pooled.databaseDirectUrl, "postgres://u:p@db:5432/feira");
  assert.deepEqual(problemsOf({ ...pg, DATABASE_POOL_MODE: "statement" }), ['DATABASE_POOL_MODE must be "session" or "transaction"']);
  assert.deepEqual(problemsOf({ ...pg, DATABASE_DIRECT_URL: "mysql://db/feira" }), ["DATABASE_DIRECT_URL must start with postgres://"]);
  assert.deepEqual(problemsOf({ DATA_DIR: tempDir(), DATABASE_POOL_MODE: "transaction", DATABASE_DIRECT_URL: "postgres://db/feira" }), [
    "DATABASE_DIRECT_URL needs DATABASE_URL (the pooled connection it goes with)",
    "DATABASE_POOL_MODE=transaction needs DATABASE_URL (a pooler in front of PostgreSQL)",
  ]);
});

test("DATABASE_REPLICA_URL goes with DATABASE_URL: the embedded database has no standbys", () => {
  const pg = { ...secrets(), DATABASE_URL: "postgres://u:p@db1:5432/feira" };
  assert.equal(loadConfig(pg).databaseReplicaUrl, undefined);
  assert.equal(loadConfig({ ...pg, DATABASE_REPLICA_URL: "postgres://u:p@db2:5432,db3:5432/feira" }).databaseReplicaUrl, "postgres://u:p@db2:5432,db3:5432/feira");
  assert.deepEqual(problemsOf({ ...pg, DATABASE_REPLICA_URL: "mysql://db2/feira" }), ["DATABASE_REPLICA_URL must start with postgres://"]);
  assert.deepEqual(problemsOf({ DATA_DIR: tempDir(), DATABASE_REPLICA_URL: "postgres://db2/feira" }), [
    "DATABASE_REPLICA_URL needs DATABASE_URL: the embedded database (PGlite) has no standbys; set DATABASE_URL to the primary or unset DATABASE_REPLICA_URL",
  ]);
});

test("live processors: PAYMENT_PROCESSOR or PAYMENT_ROUTES with their credentials and the call bounds", () => {
  const dataDir = tempDir();
  const none = loadConfig({ DATA_DIR: dataDir });
  assert.deepEqual(none.live.routes, {}, "no live processor: production charges are refused");
  assert.equal(none.live.processors.pagarme?.apiUrl, "https://api.pagar.me/core/v5");
  assert.equal(none.live.processors.mercadopago?.apiUrl, "https://api.mercadopago.com");
  assert.equal(none.live.timeoutMs, 15_000);
  assert.equal(none.live.reconcileIntervalMs, 60_000);
  assert.equal(none.live.maxWaiting, 1024);

  const single = loadConfig({ DATA_DIR: dataDir, PAYMENT_PROCESSOR: "pagarme", PAGARME_SECRET_KEY: "sk_live_x", PAGARME_API_URL: "http://127.0.0.1:9/core/v5/" });
  assert.deepEqual(single.live.routes, { credit_card: ["pagarme"], pix: ["pagarme"], boleto: ["pagarme"] });
  assert.equal(single.live.processors.pagarme?.secretKey, "sk_live_x");
  assert.equal(single.live.processors.pagarme?.apiUrl, "http://127.0.0.1:9/core/v5");

  const routed = loadConfig({
    DATA_DIR: dataDir, PAYMENT_ROUTES: "credit_card=pagarme|mercadopago,pix=mercadopago",
    PAGARME_SECRET_KEY: "sk", MERCADOPAGO_ACCESS_TOKEN: "at", MERCADOPAGO_WEBHOOK_SECRET: "ws", MERCADOPAGO_PUBLIC_KEY: "pk",
    PROCESSOR_TIMEOUT_MS: "2500", PROCESSOR_RECONCILE_INTERVAL_MS: "5000", PROCESSOR_MAX_WAITING: "64",
    PROCESSOR_WEBHOOK_LOOKUPS_PER_SECOND: "300", PROCESSOR_WEBHOOK_LOOKUPS_PER_ADDRESS: "40",
  });
  assert.deepEqual(routed.live.routes, { credit_card: ["pagarme", "mercadopago"], pix: ["mercadopago"] });
  assert.deepEqual(routed.live.processors.mercadopago, { accessToken: "at", webhookSecret: "ws", publicKey: "pk", apiUrl: "https://api.mercadopago.com", clientId: "", clientSecret: "", authUrl: "https://auth.mercadopago.com" });
  assert.equal(routed.live.timeoutMs, 2500);
  assert.equal(routed.live.reconcileIntervalMs, 5000);
  assert.deepEqual(routed.live.webhookLookups, { perSecond: 300, perAddressPerSecond: 40 });
  assert.deepEqual(single.live.webhookLookups, { perSecond: 200, perAddressPerSecond: 100 });
  assert.equal(routed.live.maxWaiting, 64);
  // Mercado Pago's public key is needed only when it serves cards.
  assert.deepEqual(loadConfig({ DATA_DIR: dataDir, PAYMENT_ROUTES: "pix=mercadopago", MERCADOPAGO_ACCESS_TOKEN: "at", MERCADOPAGO_WEBHOOK_SECRET: "ws" }).live.routes, { pix: ["mercadopago"] });
});

test("live processors: the start is refused naming the variable to fix", () => {
  const dataDir = tempDir();
  const one = (env: NodeJS.ProcessEnv, pattern: RegExp) => {
    const problems = problemsOf({ DATA_DIR: dataDir, ...env });
    assert.ok(problems.some((p) => pattern.test(p)), `${JSON.stringify(problems)} should match ${pattern}`);
  };
  one({ PAYMENT_PROCESSOR: "cielo" }, /^PAYMENT_PROCESSOR=cielo is not a known processor/);
  one({ PAYMENT_PROCESSOR: "sandbox" }, /^PAYMENT_PROCESSOR=sandbox is not allowed/);
  one({ PAYMENT_ROUTES: "pix=cielo" }, /^PAYMENT_ROUTES: "cielo" \(for pix\) is not a known processor/);
  one({ PAYMENT_ROUTES: "oxxo=pagarme", PAGARME_SECRET_KEY: "sk" }, /^PAYMENT_ROUTES: pagarme does not serve oxxo/);
  one({ PAYMENT_PROCESSOR: "pagarme" }, /^PAGARME_SECRET_KEY is required by PAYMENT_PROCESSOR/);
  one({ PAYMENT_ROUTES: "pix=mercadopago", MERCADOPAGO_ACCESS_TOKEN: "at" }, /^MERCADOPAGO_WEBHOOK_SECRET is required by PAYMENT_ROUTES/);
  one({ PAYMENT_ROUTES: "credit_card=mercadopago", MERCADOPAGO_ACCESS_TOKEN: "at", MERCADOPAGO_WEBHOOK_SECRET: "ws" }, /^MERCADOPAGO_PUBLIC_KEY is required/);
  one({ PAYMENT_PROCESSOR: "pagarme", PAGARME_SECRET_KEY: "sk", PAGARME_API_URL: "ftp://x" }, /^PAGARME_API_URL must be an http\(s\) URL/);
  one({ PROCESSOR_TIMEOUT_MS: "0" }, /^PROCESSOR_TIMEOUT_MS must be an integer/);
  one({ PROCESSOR_RECONCILE_INTERVAL_MS: "soon" }, /^PROCESSOR_RECONCILE_INTERVAL_MS must be an integer/);
  one({ PROCESSOR_MAX_WAITING: "0" }, /^PROCESSOR_MAX_WAITING must be an integer between 1 and 65536/);
});
