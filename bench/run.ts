// HTTP load benchmark: starts the real server as a child process (what `npm start` runs: API
// and worker in one process), reads the printed demo sandbox key, and measures each scenario
// with autocannon in this process. The "ceiling" scenario (a 404 from the same server, no
// database) is the HTTP ceiling that the other scenarios are compared with.
//
//   npx tsx bench/run.ts                       # the default scenarios (bench/scenarios.ts), on PGlite
//   npx tsx bench/run.ts ceiling health customers --duration 10 --connections 10
//   DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/feira npx tsx bench/run.ts
//
// With DATABASE_URL, a scratch database is created next to the given one and dropped at the
// end. Scenarios live in bench/scenarios.ts. Results are recorded in bench/RESULTS.md.
// BENCH_COMPILED=1 runs the compiled server (`npm run build` first), as docs/deploy.md runs it: on
// PostgreSQL an API process with `npm run api`'s flags and a worker process (BENCH_ONE_PROCESS=1: one).
// --pooler (or BENCH_POOLER=1; PostgreSQL) puts a PgBouncer of its own in transaction mode between the server and
// the scratch database (DATABASE_POOL_MODE=transaction, DATABASE_DIRECT_URL for migrations and
// LISTEN); DATABASE_POOL_MODE=transaction alone, without --pooler, measures unnamed statements
// on a direct connection.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { apiScriptLaunch, cpuProbe, createScratchDatabase, freePort, measure, serverEnv, startServer, type Row, type ScratchDatabase, type ServerProcess } from "./harness.js";
import { defaultScenarios, scenarios, type Scenario } from "./scenarios.js";
import { startPgbouncer, type Pgbouncer } from "../test/helpers/pgbouncer.js";

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    duration: { type: "string", default: process.env.BENCH_DURATION ?? "10" },
    warmup: { type: "string", default: process.env.BENCH_WARMUP ?? "3" },
    connections: { type: "string", default: process.env.BENCH_CONNECTIONS ?? "10" },
    // API processes of the server (WEB_CONCURRENCY; PostgreSQL only), e.g. --processes 4.
    processes: { type: "string", default: process.env.WEB_CONCURRENCY ?? "1" },
    // A fixed total rate (requests/s) instead of a closed loop, e.g. --rate 500 for p99 at a load.
    rate: { type: "string", default: "" },
    // Extra node flags for the server, e.g. --server-args="--cpu-prof --cpu-prof-dir=/tmp/prof".
    "server-args": { type: "string", default: "" },
    pooler: { type: "boolean", default: process.env.BENCH_POOLER === "1" },
  },
});
const duration = Number(opts.duration);
const warmup = Number(opts.warmup);
const connections = Number(opts.connections);
const processes = Number(opts.processes);
const serverArgs = opts["server-args"]!.split(/\s+/).filter(Boolean);
const selected: Scenario[] = (positionals.length > 0 ? positionals : defaultScenarios).map((name) => {
  const s = scenarios.find((x) => x.name === name);
  if (!s) throw new Error(`Unknown scenario "${name}"; known: ${scenarios.map((x) => x.name).join(", ")}`);
  return s;
});

// ---- The database: PGlite in a temp DATA_DIR, or a scratch PostgreSQL database.
const baseDatabaseUrl = process.env.DATABASE_URL;
const dataDir = mkdtempSync(path.join(os.tmpdir(), "feira-bench-"));
const scratch: ScratchDatabase | undefined = baseDatabaseUrl ? await createScratchDatabase(baseDatabaseUrl) : undefined;

// ---- The server, as an operator starts it.
const port = await freePort();
const pooler: Pgbouncer | undefined = opts.pooler && scratch ? await startPgbouncer(scratch.url) : undefined;
const env = serverEnv({ port, dataDir, databaseUrl: pooler ? pooler.pooled(scratch!.url) : scratch?.url, extra: { WEB_CONCURRENCY: String(processes) } });
if (pooler) Object.assign(env, { DATABASE_POOL_MODE: "transaction", DATABASE_DIRECT_URL: scratch!.url });
// On PostgreSQL with BENCH_COMPILED=1, production's shape (docs/deploy.md): an API process with
// `npm run api`'s flags and environment, and a worker process beside it. BENCH_ONE_PROCESS=1 runs
// both roles in one process instead (`node dist/main.js`, as `npm start` does on PGlite).
const deployed = Boolean(scratch) && process.env.BENCH_COMPILED === "1" && process.env.BENCH_ONE_PROCESS !== "1";
const launch = apiScriptLaunch();
const server = deployed
  ? startServer({ ...launch.env, ...env }, { nodeArgs: [...launch.nodeArgs, ...serverArgs], args: ["api"] })
  : startServer(env, { nodeArgs: serverArgs });
let worker: ServerProcess | undefined;

async function cleanup(): Promise<void> {
  await worker?.stop();
  await server.stop();
  await pooler?.stop();
  await scratch?.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.once("SIGINT", () => void cleanup().then(() => process.exit(130)));

/** CPU of the API process (and its database backends) plus the worker's, when there is one. */
function serverCpu(): () => { server: number; db: number; pooler?: number } {
  const api = cpuProbe(server.child.pid!, scratch?.name);
  const work = worker ? cpuProbe(worker.child.pid!) : undefined;
  const bouncer = pooler?.pid ? cpuProbe(pooler.pid) : undefined;
  return () => {
    const a = api();
    return { server: a.server + (work?.().server ?? 0), db: a.db, ...(bouncer ? { pooler: bouncer().server } : {}) };
  };
}

const rows: Row[] = [];
try {
  const bench = await server.ready();
  if (deployed) {
    // After the API has migrated and made the demo merchant.
    worker = startServer({ ...env, LOG_LEVEL: "info" }, { args: ["worker"] });
    await worker.started();
  }
  const shape = deployed
    ? `API (${Object.entries(launch.env).map(([k, v]) => `${k}=${v} `).join("")}node ${[...launch.nodeArgs, ...serverArgs].join(" ")} dist/main.js api) + worker process`
    : "API and worker in one process";
  console.log(
    `feira bench: ${shape}, ${scratch ? "PostgreSQL" : "PGlite"}${pooler ? " through PgBouncer (transaction mode)" : ""}${env.DATABASE_POOL_MODE === "transaction" ? ", unnamed statements" : ""}, RATE_LIMIT_PER_KEY=${env.RATE_LIMIT_PER_KEY ?? "100 (default)"}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), node ${process.version}, ` +
      `${processes} API process(es), ${connections} connections, ${warmup} s warm-up + ${duration} s per scenario; autocannon and the server share the CPUs`,
  );
  for (const scenario of selected) {
    rows.push(await measure(bench, scenario, {
      seconds: duration, warmup, connections, cpu: serverCpu(), rate: opts.rate ? Number(opts.rate) : undefined,
      // The warm-up's rows analyzed, as autovacuum would have on a running server.
      afterWarmup: scratch ? () => scratch.analyze() : undefined,
    }));
    console.log(`  ${scenario.name}: ${scenario.description}`);
  }

  const ceiling = rows.find((r) => r.scenario === "ceiling");
  console.log("");
  console.log("| scenario | req/s | p50 ms | p99 ms | requests | req/s vs ceiling | server CPU ms/req | db CPU ms/req |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    const ratio = ceiling ? `${((r.requestsPerSecond / ceiling.requestsPerSecond) * 100).toFixed(1)} %` : "-";
    console.log(`| ${r.scenario} | ${Math.round(r.requestsPerSecond)} | ${r.p50} | ${r.p99} | ${r.requests} | ${ratio} | ${r.serverCpuMs ?? "-"} | ${scratch ? (r.dbCpuMs ?? "-") : "(in server)"}${r.poolerCpuMs !== undefined ? ` + PgBouncer ${r.poolerCpuMs}` : ""} |`);
  }
  console.log("");
  console.log(JSON.stringify({ engine: scratch ? "postgres" : "pglite", cpus: os.cpus().length, node: process.version, processes, connections, duration, rows }));
} finally {
  await cleanup();
}
