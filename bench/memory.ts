// Memory of one API process under a long run of card charges (issue 12, target 3: at most
// 150 MB RSS after 100,000 charges on PostgreSQL, and no growth between 10,000 and 100,000).
//
// Starts the real server as an operator would on PostgreSQL: `src/main.ts api` (which migrates
// and prints the first-start keys) and `src/main.ts worker` beside it, on a scratch database
// next to DATABASE_URL's (dropped at the end). Without DATABASE_URL it starts the default mode
// on PGlite instead (API and worker in one process, the embedded engine included in its RSS).
// autocannon drives POST /v1/charges (sandbox card, paid) with keep-alive connections; the API
// process's RSS is read from /proc/<pid>/status (VmRSS) at the start and at each checkpoint,
// with the heap figures of its own /metrics beside it.
//
//   RATE_LIMIT_PER_KEY=0 DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/feira_ci npx tsx bench/memory.ts
//   BENCH_CHARGES=20000 BENCH_CHECKPOINTS=1000,10000,20000 npx tsx bench/memory.ts      # shorter, PGlite
//   BENCH_COMPILED=1 ... npx tsx bench/memory.ts      # `node dist/main.js` as docs/deploy.md runs it (after `npm run build`)
//   BENCH_NODE_ARGS="--max-semi-space-size=8" ... npx tsx bench/memory.ts   # V8 flags for the API process
//   instead of those of `npm run api` (BENCH_NODE_ARGS="" for Node's defaults; the worker runs without)
//
// Results are recorded in bench/RESULTS.md ("Memory of an API process").
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import os from "node:os";
import autocannon, { type Options } from "autocannon";
import pg from "pg";
import { existsSync } from "node:fs";
import { basicAuth, childEnv, freePort, startProcess, tempDir, waitForHttp, type ServerProcess } from "../test/helpers/process.js";
import { apiScriptLaunch } from "./harness.js";

const TOTAL = Number(process.env.BENCH_CHARGES ?? 100_000);
const CHECKPOINTS = (process.env.BENCH_CHECKPOINTS ?? "10000,50000,100000").split(",").map(Number).filter((n) => n <= TOTAL);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
if (process.env.RATE_LIMIT_PER_KEY !== "0") {
  process.stderr.write("note: RATE_LIMIT_PER_KEY is not 0, so the per-key limit may refuse most charges (429)\n");
}

const CHARGE = JSON.stringify({
  amount: 100, currency: "BRL", customer: { name: "Maria Silva", email: "maria@example.com" },
  paymentMethod: { type: "credit_card", number: "4111111111111111", holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2030", cvv: "123" },
});

/** VmRSS, and its anonymous part (heap, malloc, stacks) apart from mapped files (the node binary). */
function rssMb(pid: number): { rssMb: number; anonMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  const rss = kb("VmRSS");
  if (Number.isNaN(rss)) throw new Error(`no VmRSS for pid ${pid}`);
  return { rssMb: rss, anonMb: kb("RssAnon") };
}

/** CPU time of the process so far, all threads (V8's GC helpers included), in ms. */
function cpuMs(pid: number): number {
  // Fields 14 and 15 of /proc/<pid>/stat (utime, stime) in clock ticks; the command name
  // (field 2) is in parentheses and may hold spaces, so count from after it.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
const CLOCK_TICKS = 100; // sysconf(_SC_CLK_TCK) on Linux

/** Heap and external memory as the process itself reports them (prom-client default metrics). */
async function selfReport(base: string): Promise<{ heapUsed: number; heapTotal: number; external: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const pick = (name: string) => Number(new RegExp(`^feira_${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text)?.[1] ?? NaN) / 1024 / 1024;
  return { heapUsed: pick("nodejs_heap_size_used_bytes"), heapTotal: pick("nodejs_heap_size_total_bytes"), external: pick("nodejs_external_memory_bytes") };
}

// ---- The database: a scratch PostgreSQL database, or PGlite in a temp DATA_DIR.
const adminUrl = process.env.DATABASE_URL;
const dbName = `feira_bench_${randomBytes(4).toString("hex")}`;
let databaseUrl: string | undefined;
if (adminUrl) {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  await c.query(`create database ${dbName}`);
  await c.end();
  const u = new URL(adminUrl);
  u.pathname = `/${dbName}`;
  databaseUrl = u.toString();
}

const port = await freePort();
const env = childEnv({
  PORT: String(port), LOG_LEVEL: "warn", RATE_LIMIT_PER_KEY: process.env.RATE_LIMIT_PER_KEY,
  ...(databaseUrl
    ? { DATABASE_URL: databaseUrl, JWT_SECRET: randomBytes(48).toString("base64"), ENCRYPTION_KEY: randomBytes(32).toString("base64") }
    : { DATA_DIR: tempDir("feira-bench-") }),
});
const base = `http://127.0.0.1:${port}`;
// Through tsx by default (as `npm run api` does); BENCH_COMPILED=1 runs the build as deployed.
// The run's current directory is the repository (package.json, dist/).
const COMPILED = process.env.BENCH_COMPILED === "1";
if (COMPILED && !existsSync("dist/main.js")) throw new Error("BENCH_COMPILED=1 needs `npm run build` first");
// Node/V8 flags put before the entry point (space-separated), e.g. to compare heap settings. By
// default, those of `npm run api` (the heap limits of docs/deploy.md, "Memory"); "" for none.
const launch = apiScriptLaunch();
const NODE_ARGS = process.env.BENCH_NODE_ARGS === undefined ? launch.nodeArgs : process.env.BENCH_NODE_ARGS.split(/\s+/).filter(Boolean);
const start = (e: NodeJS.ProcessEnv, args: string[], nodeArgs: string[] = []) =>
  startProcess(process.execPath, [...nodeArgs, ...(COMPILED ? ["dist/main.js"] : ["--import", "tsx", "src/main.ts"]), ...args], e);
// The environment of `npm run api` (MALLOC_ARENA_MAX) unless this run sets it.
const api = start({ ...launch.env, ...env }, databaseUrl ? ["api"] : [], NODE_ARGS);
let worker: ServerProcess | undefined;
try {
  const key = (await api.waitFor(/sandbox key:\s+(sk_test_[A-Za-z0-9]+)/, 120_000))[1]!;
  await waitForHttp(`${base}/health`);
  // The worker starts after the API has migrated; its RSS is not measured here.
  if (databaseUrl) worker = start({ ...env, LOG_LEVEL: "info" }, ["worker"]);
  await worker?.waitFor(/feira started/, 120_000);

  const pid = api.child.pid!;
  const rows: { charges: number; rssMb: number; anonMb: number; heapUsed: number; heapTotal: number; external: number; rate: number; cpuMsPerCharge: number; errors: number; loadavg: string }[] = [];
  let cpuBefore = cpuMs(pid);
  let chargesBefore = 0;
  const sample = async (charges: number, rate: number, errors: number) => {
    const load = os.loadavg().map((l) => l.toFixed(1)).join(" ");
    // The API process's CPU per charge: what a flag costs, less sensitive than charges/s to the
    // other work on a shared machine.
    const cpu = cpuMs(pid);
    const cpuMsPerCharge = charges > chargesBefore ? (cpu - cpuBefore) / (charges - chargesBefore) : 0;
    cpuBefore = cpu;
    chargesBefore = charges;
    rows.push({ charges, ...rssMb(pid), ...(await selfReport(base)), rate, cpuMsPerCharge, errors, loadavg: load });
    const r = rows.at(-1)!;
    console.log(`${charges} charges: RSS ${r.rssMb.toFixed(1)} MB (anonymous ${r.anonMb.toFixed(1)}; heap used ${r.heapUsed.toFixed(1)} / total ${r.heapTotal.toFixed(1)}, external ${r.external.toFixed(1)}), ${rate.toFixed(0)} charges/s, ${r.cpuMsPerCharge.toFixed(2)} ms CPU/charge, ${errors} non-201, load ${load}`);
  };
  await sample(0, 0, 0);

  let done = 0;
  for (const checkpoint of CHECKPOINTS) {
    const amount = checkpoint - done;
    if (amount <= 0) continue;
    // `amount`: stop after this many requests (autocannon's option, not in bench/autocannon.d.ts).
    const options: Options & { amount: number } = {
      url: `${base}/v1/charges`, method: "POST", connections: CONNECTIONS, amount,
      headers: { authorization: basicAuth(key), "content-type": "application/json" }, body: CHARGE,
    };
    const result = await autocannon(options);
    const non201 = result.non2xx + result.errors + result.timeouts;
    done = checkpoint;
    await sample(checkpoint, result.requests.average, non201);
  }

  const at = (n: number) => rows.find((r) => r.charges === n);
  const first = at(CHECKPOINTS[0]!);
  const last = rows.at(-1)!;
  console.log(`\n| charges | RSS MB | anonymous MB | heap used MB | heap total MB | external MB | charges/s | API CPU ms/charge | non-201 | load avg |`);
  console.log(`|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|`);
  for (const r of rows) {
    console.log(`| ${r.charges.toLocaleString("en")} | ${r.rssMb.toFixed(1)} | ${r.anonMb.toFixed(1)} | ${r.heapUsed.toFixed(1)} | ${r.heapTotal.toFixed(1)} | ${r.external.toFixed(1)} | ${r.rate ? r.rate.toFixed(0) : "-"} | ${r.cpuMsPerCharge ? r.cpuMsPerCharge.toFixed(2) : "-"} | ${r.errors} | ${r.loadavg} |`);
  }
  if (first && first !== last) console.log(`\ngrowth from ${first.charges.toLocaleString("en")} to ${last.charges.toLocaleString("en")} charges: ${(last.rssMb - first.rssMb).toFixed(1)} MB RSS, ${(last.heapUsed - first.heapUsed).toFixed(1)} MB heap used`);
  console.log(JSON.stringify({ engine: databaseUrl ? "postgres" : "pglite", build: COMPILED ? "dist" : "tsx", nodeArgs: NODE_ARGS, role: databaseUrl ? "api" : "all", connections: CONNECTIONS, rows }));
} finally {
  await worker?.stop();
  await api.stop();
  if (adminUrl) {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(`drop database if exists ${dbName} with (force)`);
    await c.end();
  }
}
