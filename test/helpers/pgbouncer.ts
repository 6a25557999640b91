import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { freePort, tempDir } from "./process.js";

// A PgBouncer of its own for a test file, in transaction mode, in front of the PostgreSQL that
// DATABASE_URL names: every database of that server by the same name (a wildcard entry, since
// each test file makes its own database), password authentication with the URL's user. The
// configuration is the one docs/deploy.md gives operators and .ci/run starts for the topology run.

export interface Pgbouncer {
  /** `directUrl` with its host and port replaced by the pooler's. */
  pooled(directUrl: string): string;
  output(): string;
  /** The pgbouncer process (its CPU is the pooler's cost: bench/run.ts --pooler). */
  pid: number | undefined;
  stop(): Promise<void>;
}

/** The pgbouncer binary, or undefined when it is not installed. */
export function pgbouncerBinary(): string | undefined {
  for (const candidate of ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer", "/usr/local/bin/pgbouncer"]) if (existsSync(candidate)) return candidate;
  const which = spawnSync("sh", ["-c", "command -v pgbouncer"], { encoding: "utf8" });
  return which.status === 0 && which.stdout.trim() ? which.stdout.trim() : undefined;
}

export async function startPgbouncer(directUrl: string): Promise<Pgbouncer> {
  const binary = pgbouncerBinary();
  if (!binary) throw new Error("pgbouncer is not installed (apt-get install -y pgbouncer)");
  const server = new URL(directUrl);
  const port = await freePort();
  const dir = tempDir("feira-pgbouncer-");
  const userlist = path.join(dir, "userlist.txt");
  const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
  writeFileSync(userlist, `${quote(decodeURIComponent(server.username))} ${quote(decodeURIComponent(server.password))}\n`);
  const ini = path.join(dir, "pgbouncer.ini");
  writeFileSync(ini, [
    "[databases]",
    `* = host=${server.hostname} port=${server.port || 5432}`,
    "[pgbouncer]",
    "listen_addr = 127.0.0.1",
    `listen_port = ${port}`,
    "unix_socket_dir =",
    "auth_type = scram-sha-256",
    `auth_file = ${userlist}`,
    "pool_mode = transaction",
    "max_client_conn = 500",
    "default_pool_size = 10",
    "",
  ].join("\n"));
  // PgBouncer refuses to run as root; as root it is started with -u (it then drops to that
  // user), which must be able to read the files.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    chmodSync(dir, 0o755);
    chmodSync(ini, 0o644);
    chmodSync(userlist, 0o644);
  }
  const child: ChildProcess = spawn(binary, [...(asRoot ? ["-u", "postgres"] : []), ini], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => { out += c.toString(); });
  child.stderr!.on("data", (c: Buffer) => { out += c.toString(); });
  const exited = once(child, "exit");
  const pooled = (url: string) => {
    const u = new URL(url);
    u.hostname = "127.0.0.1";
    u.port = String(port);
    return u.toString();
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  // Ready once a query goes through it to the server.
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited at start:\n${out}`);
    const client = new pg.Client({ connectionString: pooled(directUrl) });
    const ok = await client.connect().then(() => client.query("select 1")).then(() => true, () => false);
    await client.end().catch(() => undefined);
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`pgbouncer did not answer within 15 s:\n${out}`);
    }
    await sleep(50);
  }
  return { pooled, output: () => out, pid: child.pid, stop };
}

/**
 * FEIRA_TEST_POOLER_URL (a PgBouncer in transaction mode in front of DATABASE_URL's server, as
 * .ci/run starts one): the processes reach the test's database through it, with
 * DATABASE_POOL_MODE=transaction, and straight for LISTEN and migrations (DATABASE_DIRECT_URL).
 * The test's own connection, which creates and drops the database, stays direct.
 */
export function throughPooler(direct: URL): Record<string, string> {
  const pooler = process.env.FEIRA_TEST_POOLER_URL;
  if (!pooler) return { DATABASE_URL: direct.toString() };
  const url = new URL(direct);
  const via = new URL(pooler);
  url.hostname = via.hostname;
  url.port = via.port;
  return { DATABASE_URL: url.toString(), DATABASE_POOL_MODE: "transaction", DATABASE_DIRECT_URL: direct.toString() };
}
