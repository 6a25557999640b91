import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { chmodSync, chownSync, existsSync, rmSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { PG_BIN, postgresUser } from "./patroni/cluster.js";
import { freePort, tempDir } from "./process.js";
import { until } from "./wait.js";

// A PostgreSQL 15 primary and one streaming standby of it on this machine, for the read-replica
// test and bench/replicas.ts: initdb, then `pg_basebackup -R` (which writes the standby's
// primary_conninfo and standby.signal), in a temporary directory, on free ports, trust
// authentication on 127.0.0.1. Lighter than the Patroni cluster (test/helpers/patroni/cluster.ts):
// no etcd, no failover, about 2 s to start. As root, PostgreSQL runs as the postgres user (it
// refuses root) and the directory is given to it. stop() ends both servers and removes the directory.


export interface ReplicaPair {
  /** postgres://postgres@127.0.0.1:<port>/<database> of the primary and of the standby. */
  primaryUrl(database?: string): string;
  standbyUrl(database?: string): string;
  /** A superuser connection to the standby (pg_wal_replay_pause and friends), closed by stop(). */
  standby: pg.Client;
  stop(): Promise<void>;
}

export function postgresInstalled(): boolean {
  return existsSync(path.join(PG_BIN, "pg_basebackup")) && existsSync(path.join(PG_BIN, "postgres"));
}

export async function startReplicaPair(): Promise<ReplicaPair> {
  const dir = tempDir("feira-replica-");
  const owner = process.getuid?.() === 0 ? postgresUser() : undefined;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  chmodSync(dir, 0o700);
  const as = (cmd: string, args: string[]) => (owner ? ["runuser", ["-u", "postgres", "--", cmd, ...args]] as const : [cmd, args] as const);
  const run = (cmd: string, args: string[]) => {
    const [c, a] = as(path.join(PG_BIN, cmd), args);
    const r = spawnSync(c, [...a], { encoding: "utf8", cwd: dir });
    if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr || r.stdout}`);
  };
  const servers: { child: ChildProcess; exited: Promise<unknown>; out: string[] }[] = [];
  const serve = (dataDir: string, port: number) => {
    const [c, a] = as(path.join(PG_BIN, "postgres"), [
      "-D", dataDir, "-p", String(port), "-k", dir, "-c", "listen_addresses=127.0.0.1",
      "-c", "fsync=off", "-c", "shared_buffers=16MB", "-c", "max_connections=60", "-c", "wal_level=replica",
      "-c", "max_wal_senders=4", "-c", "hot_standby=on",
    ]);
    // A process group of its own, so that stop() reaches the server and only it.
    const child = spawn(c, [...a], { stdio: ["ignore", "pipe", "pipe"], detached: true, cwd: dir });
    const out: string[] = [];
    const keep = (b: Buffer) => { out.push(b.toString()); if (out.length > 100) out.shift(); };
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    servers.push({ child, exited: once(child, "exit"), out });
  };
  const url = (port: number) => (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`;
  let standby: pg.Client | undefined;
  const onExit = () => { for (const s of servers) if (s.child.pid) { try { process.kill(-s.child.pid, "SIGKILL"); } catch { /* gone */ } } };
  process.once("exit", onExit);
  const stop = async () => {
    await standby?.end().catch(() => undefined);
    // SIGINT: PostgreSQL's fast shutdown. A bound, not a wait, before SIGKILL.
    const alive = servers.filter((s) => s.child.exitCode === null && s.child.signalCode === null && s.child.pid);
    for (const s of alive) { try { process.kill(-s.child.pid!, "SIGINT"); } catch { /* gone */ } }
    const all = Promise.all(alive.map((s) => s.exited));
    if (await Promise.race([all.then(() => false), sleep(10_000, true, { ref: false })])) onExit();
    await Promise.race([all, sleep(5_000, undefined, { ref: false })]);
    for (const s of servers) { s.child.stdout?.destroy(); s.child.stderr?.destroy(); }
    process.removeListener("exit", onExit);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const primaryPort = await freePort();
    const standbyPort = await freePort();
    run("initdb", ["-D", path.join(dir, "primary"), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
    serve(path.join(dir, "primary"), primaryPort);
    await until("the primary to accept connections", () => answers(url(primaryPort)()), 30_000);
    run("pg_basebackup", ["-h", "127.0.0.1", "-p", String(primaryPort), "-U", "postgres", "-D", path.join(dir, "standby"), "-R", "-X", "stream", "-c", "fast", "--no-sync"]);
    serve(path.join(dir, "standby"), standbyPort);
    await until("the standby to accept connections", () => answers(url(standbyPort)()), 30_000);
    standby = new pg.Client({ connectionString: url(standbyPort)() });
    standby.on("error", () => undefined);
    await standby.connect();
    const client = standby;
    await until("the standby to stream from the primary", async () =>
      (await client.query<{ n: number }>("select count(*)::int as n from pg_stat_wal_receiver where status = 'streaming'")).rows[0]!.n === 1, 30_000);
    return { primaryUrl: url(primaryPort), standbyUrl: url(standbyPort), standby: client, stop };
  } catch (err) {
    const logs = servers.map((s) => s.out.join("")).join("\n---\n");
    await stop();
    throw new Error(`${(err as Error).message}\n${logs}`);
  }
}

async function answers(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  c.on("error", () => undefined);
  try {
    await c.connect();
    await c.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}
