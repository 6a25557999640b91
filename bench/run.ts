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
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon, { type Result } from "autocannon";
import pg from "pg";
import { defaultScenarios, scenarios, type BenchServer, type Scenario } from "./scenarios.js";

const ROOT = path.resolve(import.meta.dirname, "..");

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    duration: { type: "string", default: process.env.BENCH_DURATION ?? "10" },
    warmup: { type: "string", default: process.env.BENCH_WARMUP ?? "3" },
    connections: { type: "string", default: process.env.BENCH_CONNECTIONS ?? "10" },
    // API processes of the server (WEB_CONCURRENCY; PostgreSQL only), e.g. --processes 4.
    processes: { type: "string", default: process.env.WEB_CONCURRENCY ?? "1" },
    // Extra node flags for the server, e.g. --server-args="--cpu-prof --cpu-prof-dir=/tmp/prof".
    "server-args": { type: "string", default: "" },
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

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

// ---- The database: PGlite in a temp DATA_DIR, or a scratch PostgreSQL database.
const baseDatabaseUrl = process.env.DATABASE_URL;
const dataDir = mkdtempSync(path.join(os.tmpdir(), "feira-bench-"));
let scratch: { url: string; drop(): Promise<void> } | undefined;
if (baseDatabaseUrl) {
  const name = `feira_bench_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: baseDatabaseUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(baseDatabaseUrl);
  url.pathname = `/${name}`;
  scratch = {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: baseDatabaseUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

// ---- The server, as an operator starts it.
const port = await freePort();
const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: "warn", WEB_CONCURRENCY: String(processes) };
for (const name of ["ADMIN_API_KEY", "JWT_SECRET", "ENCRYPTION_KEY", "NODE_ENV", "PUBLIC_BASE_URL"]) delete env[name];
if (scratch) {
  // PostgreSQL requires the shared secrets from the environment (config.ts); fresh ones per run.
  env.DATABASE_URL = scratch.url;
  env.JWT_SECRET = randomBytes(48).toString("base64");
  env.ENCRYPTION_KEY = randomBytes(32).toString("base64");
} else delete env.DATABASE_URL;

const child: ChildProcess = spawn(process.execPath, [...serverArgs, "--import", "tsx", "src/main.ts"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
let output = "";
child.stdout!.on("data", (c: Buffer) => { output += c.toString(); });
child.stderr!.on("data", (c: Buffer) => { output += c.toString(); process.stderr.write(c); });
const childExited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

async function cleanup(): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM");
    await childExited;
  }
  await scratch?.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.once("SIGINT", () => void cleanup().then(() => process.exit(130)));

async function startServer(): Promise<BenchServer> {
  const deadline = Date.now() + 60_000;
  const baseUrl = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) throw new Error(`the server did not start within 60 s:\n${output}`);
    const sandboxKey = /sandbox key:\s+(sk_test_[A-Za-z0-9]+)/.exec(output)?.[1];
    if (sandboxKey) {
      const ok = await fetch(`${baseUrl}/health`).then((r) => r.status === 200, () => false);
      if (ok) {
        return {
          baseUrl,
          sandboxKey,
          adminKey: /Admin key \(shown once, store it\): (\S+)/.exec(output)?.[1] ?? "",
          merchantId: /Demo merchant (mer_\S+)/.exec(output)?.[1] ?? "",
        };
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function load(server: BenchServer, scenario: Scenario, seconds: number): Promise<Result> {
  const req = scenario.request(server);
  const base = { url: server.baseUrl + req.path, connections, duration: seconds };
  const headers = req.headers ?? {};
  if (!Object.values(headers).some((v) => v.includes("[<id>]"))) {
    // autocannon's own idReplacement (body only) is cheaper than a per-request callback.
    return autocannon({ ...base, method: req.method, headers, body: req.body, idReplacement: req.body?.includes("[<id>]") ?? false });
  }
  // A fresh id in the headers too (e.g. one Idempotency-Key per request).
  const fill = (text: string) => text.replaceAll("[<id>]", randomUUID());
  return autocannon({
    ...base,
    requests: [{
      method: req.method,
      setupRequest: (r) => ({
        ...r,
        headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, fill(v)])),
        ...(req.body === undefined ? {} : { body: fill(req.body) }),
      }),
    }],
  });
}

interface Row { scenario: string; requestsPerSecond: number; p50: number; p99: number; requests: number }

const rows: Row[] = [];
try {
  const server = await startServer();
  console.log(
    `feira bench: ${scratch ? "PostgreSQL" : "PGlite"}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), node ${process.version}, ` +
      `${processes} API process(es), ${connections} connections, ${warmup} s warm-up + ${duration} s per scenario; autocannon and the server share the CPUs`,
  );
  for (const scenario of selected) {
    await scenario.setup?.(server);
    if (warmup > 0) await load(server, scenario, warmup);
    const r = await load(server, scenario, duration);
    const statuses = Object.entries(r.statusCodeStats).map(([code, { count }]) => `${code}: ${count}`).join(", ");
    const unexpected = Object.keys(r.statusCodeStats).filter((code) => Number(code) !== scenario.expectStatus);
    if (unexpected.length > 0 || r.errors > 0 || r.timeouts > 0) {
      throw new Error(`${scenario.name}: expected only ${scenario.expectStatus}; got ${statuses}, ${r.errors} errors, ${r.timeouts} timeouts`);
    }
    rows.push({ scenario: scenario.name, requestsPerSecond: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total });
    console.log(`  ${scenario.name}: ${scenario.description}`);
  }

  const ceiling = rows.find((r) => r.scenario === "ceiling");
  console.log("");
  console.log("| scenario | req/s | p50 ms | p99 ms | requests | req/s vs ceiling |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    const ratio = ceiling ? `${((r.requestsPerSecond / ceiling.requestsPerSecond) * 100).toFixed(1)} %` : "-";
    console.log(`| ${r.scenario} | ${Math.round(r.requestsPerSecond)} | ${r.p50} | ${r.p99} | ${r.requests} | ${ratio} |`);
  }
  console.log("");
  console.log(JSON.stringify({ engine: scratch ? "postgres" : "pglite", cpus: os.cpus().length, node: process.version, processes, connections, duration, rows }));
} finally {
  await cleanup();
}
