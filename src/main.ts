import cluster from "node:cluster";
import pino from "pino";
import { buildApp, createServices } from "./app.js";
import { ConfigError, loadConfig, type Config } from "./config.js";
import { openDatabase, type Database, type Db } from "./db/client.js";
import { lockDataDir, restrictDataDir } from "./db/lock.js";
import { armFault } from "./lib/faults.js";
import { collectTasks, startWorker, type Worker } from "./jobs/runner.js";
import { idempotencyPurgeTask } from "./http/idempotency.js";
import { logStream } from "./lib/log-stream.js";
import { clusterChildRole, superviseCluster, tellPrimary, whenPrimaryServes } from "./cluster.js";
import { CONFIG_CHANGED_CHANNEL } from "./db/config-changes.js";
import { seedDemo } from "./web/panel/demo-seed.js";
import { describeRoutes } from "./processors/routing.js";
import { holdStopSignals, type HeldSignals } from "./lib/signals.js";

// Entry point. Roles: no argument runs API and worker in one process (the default for
// `npm start`); `api` and `worker` run them apart (PostgreSQL only, any number of each);
// `migrate` applies migrations and exits. With WEB_CONCURRENCY=N (PostgreSQL), `api` and the
// default run N API processes under a node:cluster primary (src/cluster.ts); the default adds
// one worker process.
type Role = "all" | "api" | "worker" | "migrate";

async function main(): Promise<void> {
  const signals = holdStopSignals();
  const asked = (process.argv[2] ?? "all") as Role;
  if (!["all", "api", "worker", "migrate"].includes(asked)) {
    throw new Error(`Unknown role "${asked}": use api, worker, migrate, or nothing for both api and worker`);
  }
  // A child of the cluster runs the role its primary gave it.
  const childRole = clusterChildRole();
  const role: Role = childRole ?? asked;
  const config = loadConfig(process.env);
  const stream = logStream();
  const log = pino({ level: config.logLevel }, stream);
  if (!config.databaseUrl && (role === "api" || role === "worker")) {
    throw new Error(`The ${role} role alone needs DATABASE_URL: the embedded database admits one process, so run \`npm start\` instead`);
  }

  armFault(config.faultPoint);
  // Files this process creates (the embedded database, secrets.json) are its user's alone.
  process.umask(0o077);
  const unlock = config.databaseUrl ? () => undefined : await lockDataDir(config.dataDir);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMode: config.databasePoolMode, directUrl: config.databaseDirectUrl, groupCommit: config.groupCommit,
    // Several API processes take one caller's writes in turn: none can know them all (src/db/replica.ts).
    replicaUrl: config.databaseReplicaUrl, replicaPerCaller: config.webConcurrency <= 1,
  });
  if (!childRole) await database.migrate(); // the primary migrated before forking

  // PGlite creates its files 0666 whatever the umask: tighten them once they exist. Files it
  // makes later are still out of other users' reach, inside the 0700 directory.
  if (!config.databaseUrl) restrictDataDir(config.dataDir);
  if (role === "migrate") {
    log.info("migrations applied");
    await database.close();
    unlock();
    return;
  }
  if (cluster.isPrimary && config.webConcurrency > 1 && (role === "all" || role === "api")) {
    // The primary's own handlers stop the cluster; a stop asked before any fork ends here.
    if (signals.release()) {
      await database.close();
      return;
    }
    const { firstListening, serve } = superviseCluster({ apiProcesses: config.webConcurrency, withWorker: role === "all", log });
    // The first-start keys are made once, here, after an API process listens (see below why);
    // the API processes hold their requests until then.
    await firstListening;
    const services = createServices({ config, db: database.db });
    printFirstStart(config, await firstStart(services, database.db, config, log));
    serve();
    await database.close();
    log.info({ role, processes: config.webConcurrency, database: database.kind, liveRoutes: describeRoutes(config.live.routes) }, "feira started");
    return;
  }

  const services = createServices({ config, db: database.db });
  const app = role === "worker" ? undefined : await buildApp({ config, db: database.db, logStream: stream, holdRequests: true, topology: database.topology }, services);
  const worker: Worker | undefined =
    // Each module declares its own tasks; the HTTP layer's one purges expired idempotency keys.
    role === "api" ? undefined : startWorker([...collectTasks(Object.values(services.modules), log), idempotencyPurgeTask(database.db)], log);

  // New deliveries wake the delivery task at once (a trigger NOTIFYs on commit); polling stays
  // as the fallback, so a lost notification only costs one poll interval.
  const unlistenOutbox = worker ? await database.listen("feira_outbox", () => worker.wake("webhooks.deliver")) : undefined;
  // A configuration change in any process (a rotated key, a merchant's status, fees, terms)
  // empties what this one keeps, API and worker alike: a worker charges too (renewals, retries).
  const unlistenAuth = await database.listen(CONFIG_CHANGED_CHANNEL, (payload) => services.configChanges.heard(payload));
  if (database.listens) services.configChanges.listened(database.db);
  const unlisten = async () => { await unlistenOutbox?.(); await unlistenAuth?.(); };
  if (!database.listens) {
    log.warn("DATABASE_POOL_MODE=transaction without DATABASE_DIRECT_URL: no LISTEN; workers poll for deliveries every 500 ms and cached keys are read again after 5 s");
  }

  if (app) {
    // Listen first: if the port is taken the process stops before the first-start keys are
    // made, so they are made (and printed) by the next start instead of being lost. Requests
    // wait (503) until the keys are printed: in a cluster, until the primary has printed them.
    await app.listen({ port: config.port, host: config.host });
    if (childRole) {
      whenPrimaryServes(() => app.openForRequests());
      tellPrimary("listening");
    } else {
      printFirstStart(config, await firstStart(services, database.db, config, log));
      app.openForRequests();
    }
  }
  log.info({ role, database: database.kind, liveRoutes: describeRoutes(config.live.routes) }, "feira started");
  // In a cluster, a stopping process stops taking connections (the primary hands them to the
  // others) and serves those it has until each has had its answer with Connection: close, so
  // that no keep-alive client meets a reset; a connection idle all along is closed after 5 s.
  installShutdown(signals, { app, worker, database, unlock, log, unlisten, processors: services.processors, drainLimitMs: childRole ? 5_000 : 0 });
}

/**
 * First-start keys and, outside production on an empty database, the demo merchant with some
 * sandbox history for the panel (a failed seed leaves the merchant usable, and is logged).
 */
async function firstStart(services: ReturnType<typeof createServices>, db: Db, config: Config, log: { warn(o: object, msg: string): void }) {
  const first = await services.merchants.bootstrap({ demoMerchant: !config.production });
  if (first.demo && !config.production && config.demoHistory) await seedDemo(services, first.demo.merchantId, db).catch((err: unknown) => log.warn({ err }, "demo history not seeded"));
  return first;
}

function printFirstStart(config: Config, first: Awaited<ReturnType<ReturnType<typeof createServices>["merchants"]["bootstrap"]>>) {
  const lines: string[] = [];
  if (first.adminKey) lines.push(`Admin key (shown once, store it): ${first.adminKey}`);
  if (first.demo) {
    lines.push(
      `Demo merchant ${first.demo.merchantId}`,
      `  login:       ${first.demo.email} / ${first.demo.password}`,
      `  sandbox key: ${first.demo.sandboxKey}`,
      `  try it:      curl -u ${first.demo.sandboxKey}: ${config.publicBaseUrl}/v1/customers`,
    );
  }
  if (lines.length === 0) return;
  // On a terminal the keys go with the readable log. Piped or redirected, stdout is JSON lines
  // that log shippers collect: the keys go to stderr as plain text, never into a log line.
  const out = process.stdout.isTTY ? process.stdout : process.stderr;
  out.write(`\n${lines.join("\n")}\n\n`);
}

function installShutdown(signals: HeldSignals, parts: {
  app?: Awaited<ReturnType<typeof buildApp>>; worker?: Worker; database: Database; unlock: () => void; log: pino.Logger;
  unlisten?: () => Promise<void>; drainLimitMs: number;
  /** The live adapters (their connection pools); the app's close closes them too, the worker's stop does not. */
  processors: { close(): Promise<void> };
}) {
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    parts.log.info({ signal }, "shutting down: finishing in-flight requests");
    // A stop that takes a while says every few seconds which step it waits on (and which
    // worker tasks are still inside a run), so a forced exit leaves its cause in the log.
    let step = "draining";
    const startedAt = performance.now();
    const slow = setInterval(() => {
      parts.log.warn({ step, tasks: parts.worker?.running(), ms: Math.round(performance.now() - startedAt) }, "shutdown still waiting");
    }, 4_000);
    slow.unref();
    const force = setTimeout(() => {
      parts.log.error({ step, tasks: parts.worker?.running() }, "shutdown took over 20 s: exiting now");
      process.exit(1);
    }, 20_000);
    force.unref();
    try {
      parts.app?.startDraining(); // /health 503, every answer closes its connection
      tellPrimary("draining"); // the primary starts a replacement now
      if (parts.app && parts.drainLimitMs > 0) {
        step = "connections";
        parts.log.info("drain: no new connections; answering those open with Connection: close");
        const open = await parts.app.connectionsEnded(parts.drainLimitMs);
        if (open > 0) parts.log.info({ open }, "drain: closing the connections idle since it began");
      }
      step = "requests";
      await parts.app?.close(); // stops accepting, waits for in-flight requests
      step = "unlisten";
      await parts.unlisten?.();
      step = "worker";
      await parts.worker?.stop();
      step = "processors";
      await parts.processors.close();
      step = "database";
      await parts.database.close();
    } finally {
      parts.unlock();
    }
    process.exit(0);
  };
  signals.handle((signal) => void shutdown(signal));
}

main().catch((err) => {
  if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
  else process.stderr.write(`feira failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
