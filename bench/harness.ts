// What the HTTP benchmarks share: a scratch PostgreSQL database next to DATABASE_URL, the real
// server started as an operator starts it (reading the printed first-start keys), and one
// scenario measured with autocannon. Used by bench/run.ts and bench/growth.ts.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import autocannon, { type Result } from "autocannon";
import pg from "pg";
import { freePort } from "../test/helpers/process.js";
import type { BenchServer, Scenario } from "./scenarios.js";

export { freePort };

export const ROOT = path.resolve(import.meta.dirname, "..");

export interface ScratchDatabase {
  name: string;
  url: string;
  /**
   * ANALYZE of the whole database: a running server's tables have statistics (autovacuum
   * analyzes a table as it grows), a scratch database's have none until autovacuum's next round,
   * a minute away. Plans made without them (the customer's lookup by e-mail, planned when the
   * table held a row, scans every customer of the merchant) would be measured instead.
   */
  analyze(): Promise<void>;
  drop(): Promise<void>;
}

/** A fresh database next to `baseUrl`'s (same server and credentials); `drop()` removes it. */
export async function createScratchDatabase(baseUrl: string, prefix = "feira_bench"): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const run = async (connectionString: string, text: string) => {
    const c = new pg.Client({ connectionString });
    await c.connect();
    try {
      await c.query(text);
    } finally {
      await c.end();
    }
  };
  return {
    name,
    url: url.toString(),
    analyze: () => run(url.toString(), "analyze"),
    drop: () => run(baseUrl, `drop database if exists ${name} with (force)`),
  };
}

/** The environment of a benchmark server: fresh secrets on PostgreSQL, none of the caller's. */
export function serverEnv(opts: { port: number; dataDir: string; databaseUrl?: string; extra?: NodeJS.ProcessEnv }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(opts.port), DATA_DIR: opts.dataDir, LOG_LEVEL: "warn", ...opts.extra };
  for (const name of ["ADMIN_API_KEY", "JWT_SECRET", "ENCRYPTION_KEY", "NODE_ENV", "PUBLIC_BASE_URL"]) delete env[name];
  if (opts.databaseUrl) {
    // PostgreSQL requires the shared secrets from the environment (config.ts).
    env.DATABASE_URL = opts.databaseUrl;
    env.JWT_SECRET = randomBytes(48).toString("base64");
    env.ENCRYPTION_KEY = randomBytes(32).toString("base64");
  } else delete env.DATABASE_URL;
  return env;
}

export interface ServerProcess {
  child: ChildProcess;
  /** Everything the server printed so far. */
  output(): string;
  /** Waits for the "feira started" log line (a worker, which serves no /health). */
  started(): Promise<void>;
  /** Waits for /health and, on a first start, for the printed keys (`keys` from an earlier start otherwise). */
  ready(keys?: Omit<BenchServer, "baseUrl">): Promise<BenchServer>;
  stop(): Promise<void>;
}

/**
 * How `npm run api` (docs/deploy.md's command line) starts an API process: the environment it
 * sets before `exec` (e.g. `MALLOC_ARENA_MAX=2`) and the node flags before `--import`.
 */
export function apiScriptLaunch(): { env: Record<string, string>; nodeArgs: string[] } {
  const script: string = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts.api;
  const words = script.split(/\s+/);
  const env: Record<string, string> = {};
  for (const w of words.slice(0, words.indexOf("exec"))) {
    const m = /^([A-Z_]+)=(?:\$\{\1:-)?([^}]*)\}?$/.exec(w);
    if (m) env[m[1]!] = m[2]!;
  }
  return { env, nodeArgs: words.slice(words.indexOf("node") + 1, words.indexOf("--import")) };
}

/**
 * feira's entry as node arguments: through tsx as `npm start` runs it; BENCH_COMPILED=1 runs
 * `dist/main.js` as docs/deploy.md does (after `npm run build`), without tsx's loader in the process.
 */
export function feiraMain(): string[] {
  return process.env.BENCH_COMPILED === "1" ? ["dist/main.js"] : ["--import", "tsx", "src/main.ts"];
}

/** `node [nodeArgs] --import tsx src/main.ts [args]`, as an operator starts it. */
export function startServer(env: NodeJS.ProcessEnv, opts: { args?: string[]; nodeArgs?: string[] } = {}): ServerProcess {
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), ...feiraMain(), ...(opts.args ?? [])], {
    cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => { output += c.toString(); });
  child.stderr!.on("data", (c: Buffer) => { output += c.toString(); process.stderr.write(c); });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const baseUrl = `http://127.0.0.1:${env.PORT}`;
  return {
    child,
    output: () => output,
    async started() {
      const deadline = Date.now() + 60_000;
      while (!/feira started/.test(output)) {
        if (child.exitCode !== null) throw new Error(`the process exited (${child.exitCode}):\n${output}`);
        if (Date.now() > deadline) throw new Error(`the process did not start within 60 s:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async ready(keys) {
      const deadline = Date.now() + 60_000;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${output}`);
        if (Date.now() > deadline) throw new Error(`the server did not start within 60 s:\n${output}`);
        const sandboxKey = keys?.sandboxKey ?? /sandbox key:\s+(sk_test_[A-Za-z0-9]+)/.exec(output)?.[1];
        if (sandboxKey && (await fetch(`${baseUrl}/health`).then((r) => r.status === 200, () => false))) {
          return {
            baseUrl,
            sandboxKey,
            adminKey: keys?.adminKey ?? /Admin key \(shown once, store it\): (\S+)/.exec(output)?.[1] ?? "",
            merchantId: keys?.merchantId ?? /Demo merchant (mer_\S+)/.exec(output)?.[1] ?? "",
          };
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
    },
  };
}

/** The `q` quantile (0 to 1) of values sorted ascending, by nearest rank; 0 when there are none. */
export function percentile(sorted: readonly number[], q: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** One scenario for `seconds` with `connections` connections (closed loop). */
export function load(server: BenchServer, scenario: Scenario, seconds: number, connections: number, rate?: number): PromiseLike<Result> {
  const req = scenario.request(server);
  // With a rate: an open-loop load at that many requests per second in all (autocannon's overallRate).
  const base = { url: server.baseUrl + req.path, connections, duration: seconds, ...(rate ? { overallRate: rate } : {}) };
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

export interface Row {
  scenario: string; requestsPerSecond: number; p50: number; p99: number; requests: number;
  /** CPU milliseconds per request of the server's processes and of its database backends. */
  serverCpuMs?: number; dbCpuMs?: number;
  /** The same of the pooler's process, when the server goes through one (bench/run.ts --pooler). */
  poolerCpuMs?: number;
}

/**
 * CPU time (seconds) used so far by the server's process tree and by the PostgreSQL backends
 * connected to its database, read from /proc (Linux). Per request, these move much less than
 * requests per second when other work shares the machine: what a change saves shows here
 * even on a loaded machine.
 */
export function cpuProbe(rootPid: number, dbName?: string): () => { server: number; db: number } {
  const ticks = 100; // USER_HZ on Linux
  return () => {
    const procs = new Map<number, { ppid: number; cpu: number; db: boolean }>();
    for (const entry of readdirSync("/proc")) {
      const pid = Number(entry);
      if (!Number.isInteger(pid)) continue;
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        const cpu = (Number(fields[11]) + Number(fields[12])) / ticks;
        const db = dbName !== undefined && readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("postgres: ") &&
          readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(` ${dbName} `);
        procs.set(pid, { ppid: Number(fields[1]), cpu, db });
      } catch {
        // gone meanwhile
      }
    }
    const inTree = (pid: number): boolean => {
      for (let p = pid, hops = 0; p > 1 && hops < 16; hops++) {
        if (p === rootPid) return true;
        p = procs.get(p)?.ppid ?? 0;
      }
      return false;
    };
    let server = 0;
    let db = 0;
    for (const [pid, p] of procs) {
      if (inTree(pid)) server += p.cpu;
      else if (p.db) db += p.cpu;
    }
    return { server, db };
  };
}

/** Warm-up, then the measured run; any status other than the scenario's own fails the run. */
export async function measure(
  server: BenchServer, scenario: Scenario,
  o: { seconds: number; warmup: number; connections: number; cpu?: () => { server: number; db: number; pooler?: number }; rate?: number; afterWarmup?: () => Promise<void> },
): Promise<Row> {
  await scenario.setup?.(server);
  if (o.warmup > 0) await load(server, scenario, o.warmup, o.connections);
  await o.afterWarmup?.();
  const before = o.cpu?.();
  const r = await load(server, scenario, o.seconds, o.connections, o.rate);
  const after = o.cpu?.();
  const statuses = Object.entries(r.statusCodeStats).map(([code, { count }]) => `${code}: ${count}`).join(", ");
  const unexpected = Object.keys(r.statusCodeStats).filter((code) => Number(code) !== scenario.expectStatus);
  if (unexpected.length > 0 || r.errors > 0 || r.timeouts > 0) {
    throw new Error(`${scenario.name}: expected only ${scenario.expectStatus}; got ${statuses}, ${r.errors} errors, ${r.timeouts} timeouts`);
  }
  const perRequest = (a: number, b: number) => Math.round(((b - a) * 1000 / r.requests.total) * 100) / 100;
  return {
    scenario: scenario.name, requestsPerSecond: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total,
    ...(before && after ? { serverCpuMs: perRequest(before.server, after.server), dbCpuMs: perRequest(before.db, after.db) } : {}),
    ...(before?.pooler !== undefined && after?.pooler !== undefined ? { poolerCpuMs: perRequest(before.pooler, after.pooler) } : {}),
  };
}
