import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";

// A PostgreSQL 15 cluster of one run of the suite (run-suite.ts), for the test files that need
// PostgreSQL when DATABASE_URL is not set: made with Debian's binaries in a temp dir, on a free
// port of 127.0.0.1 with password auth, and removed when the run ends (also on failure or
// ctrl-C: stop() is synchronous, so exit and signal handlers can call it). PostgreSQL refuses to
// run as root, so as root the binaries run as the postgres user. Durability is off (fsync,
// synchronous_commit, full_page_writes): the cluster is thrown away.

export const PG_BIN = process.env.FEIRA_TEST_PG_BIN ?? "/usr/lib/postgresql/15/bin";

export interface ThrowawayPostgres { url: string; stop(): void }

/** Why no cluster can be made here, or undefined when one can. */
export function throwawayUnavailable(): string | undefined {
  if (!existsSync(path.join(PG_BIN, "initdb")) || !existsSync(path.join(PG_BIN, "pg_ctl"))) {
    return `no PostgreSQL binaries in ${PG_BIN} (install postgresql-15, set FEIRA_TEST_PG_BIN, or set DATABASE_URL)`;
  }
  if (process.getuid?.() === 0 && spawnSync("id", ["-u", "postgres"]).status !== 0) return "running as root and there is no postgres user to run PostgreSQL as";
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

/** Runs a PostgreSQL binary, as the postgres user when this process is root; throws with its output on failure. */
function pgRun(dir: string, bin: string, args: string[]): void {
  const [cmd, argv] = process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", path.join(PG_BIN, bin), ...args]] : [path.join(PG_BIN, bin), args];
  const r = spawnSync(cmd, argv, { cwd: dir, encoding: "utf8", timeout: 120_000 });
  if (r.status !== 0) throw new Error(`${bin} ${args.join(" ")} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout}`);
}

const PREFIX = "feira-test-pg-";

/** Stops the cluster in `dir` if it runs, and removes the directory. */
function remove(dir: string): void {
  const data = path.join(dir, "data");
  if (existsSync(path.join(data, "postmaster.pid"))) {
    try { pgRun(dir, "pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]); } catch { /* already gone */ }
  }
  rmSync(dir, { recursive: true, force: true });
}

const alive = (pid: number) => {
  try { process.kill(pid, 0); return true; } catch (err) { return (err as NodeJS.ErrnoException).code === "EPERM"; }
};

/**
 * A runner killed outright (SIGKILL) cannot stop its cluster: the next run stops and removes the
 * clusters whose runner (its pid in the directory's `runner` file) is gone.
 */
function sweepOrphans(): void {
  for (const name of readdirSync(os.tmpdir()).filter((n) => n.startsWith(PREFIX))) {
    const dir = path.join(os.tmpdir(), name);
    const runner = Number(existsSync(path.join(dir, "runner")) ? readFileSync(path.join(dir, "runner"), "utf8") : NaN);
    if (Number.isInteger(runner) && !alive(runner)) remove(dir);
  }
}

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  sweepOrphans();
  const dir = mkdtempSync(path.join(os.tmpdir(), PREFIX));
  const data = path.join(dir, "data");
  const stop = () => remove(dir);
  try {
    writeFileSync(path.join(dir, "runner"), String(process.pid));
    const password = randomBytes(12).toString("hex");
    writeFileSync(path.join(dir, "pw"), password);
    if (process.getuid?.() === 0) {
      const uid = Number(spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout);
      const gid = Number(spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout);
      chownSync(dir, uid, gid);
      chownSync(path.join(dir, "pw"), uid, gid);
    }
    pgRun(dir, "initdb", ["-D", data, "-U", "postgres", "--pwfile", path.join(dir, "pw"), "--auth", "scram-sha-256", "-E", "UTF8", "--locale", "C.UTF-8"]);
    const port = await freePort();
    const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
    pgRun(dir, "pg_ctl", ["-D", data, "-o", opts, "-l", path.join(dir, "log"), "-w", "-t", "60", "start"]);
    return { url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`, stop };
  } catch (err) {
    stop();
    throw err;
  }
}
