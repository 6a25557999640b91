import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { chmodSync, chownSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { freePort, tempDir } from "../process.js";

// A PostgreSQL HA cluster on one machine, for the failover test and bench/failover.ts: one etcd
// and three PostgreSQL 15 nodes under Patroni, from Debian's packages (patroni, etcd-server,
// postgresql-15), in a temporary directory, on free ports. Synchronous mode (no acknowledged
// commit is lost when a standby is promoted), ttl 10 s, and primary_start_timeout 0: a primary
// whose postmaster dies is replaced by the synchronous standby instead of being restarted in
// place (Patroni's documentation, "Dynamic configuration settings", "Replication modes").
// Patroni refuses to run PostgreSQL as root: as root, everything runs as the postgres user (as
// .ci/run does for PgBouncer) and the directory is given to it. stop() ends every process it
// started, by its process group, and removes the directory.

export const PG_BIN = "/usr/lib/postgresql/15/bin";

export interface HaNode { name: string; port: number; restPort: number; dataDir: string }

export interface HaCluster {
  nodes: HaNode[];
  /** postgres://postgres:postgres@h1,h2,h3/postgres?target_session_attrs=read-write, for `database`. */
  url(database?: string, attrs?: string): string;
  /** The node whose PostgreSQL is the primary now (asked of the nodes, not of Patroni). */
  primary(): Promise<HaNode | undefined>;
  /**
   * Kills the primary's postmaster with SIGKILL; returns the node. `host`: its Patroni too, as
   * when the whole host is lost (then the leader key must expire: ttl).
   */
  killPrimary(opts?: { host?: boolean }): Promise<HaNode>;
  /** Waits until a node other than `old` is primary and takes writes; returns it. */
  newPrimary(old: HaNode, timeoutMs?: number): Promise<HaNode>;
  /** The logs of every process, for a failure's message. */
  logs(): string;
  stop(): Promise<void>;
}

export function haToolsInstalled(): boolean {
  return existsSync("/usr/bin/patroni") && existsSync("/usr/bin/etcd") && existsSync(path.join(PG_BIN, "postgres"));
}

interface Proc { name: string; child: ChildProcess; out: string[]; exited: Promise<unknown> }

export async function startHaCluster(opts: { ttl?: number; log?: (line: string) => void } = {}): Promise<HaCluster> {
  if (!haToolsInstalled()) throw new Error("patroni, etcd or PostgreSQL 15 is not installed (apt-get install -y patroni etcd-server postgresql-15)");
  const ttl = opts.ttl ?? 10;
  const dir = tempDir("feira-patroni-");
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? postgresUser() : undefined;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  chmodSync(dir, 0o700);
  const procs: Proc[] = [];
  const start = (name: string, cmd: string, args: string[]) => {
    // A process group of its own (detached), so that stop() ends it and whatever it started.
    const argv = asRoot ? ["runuser", ["-u", "postgres", "--", cmd, ...args]] as const : [cmd, args] as const;
    const child = spawn(argv[0], [...argv[1]], { stdio: ["ignore", "pipe", "pipe"], detached: true, cwd: dir });
    const out: string[] = [];
    const keep = (c: Buffer) => {
      for (const line of c.toString().split("\n")) if (line) { out.push(line); if (out.length > 400) out.shift(); opts.log?.(`${name}: ${line}`); }
    };
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    procs.push({ name, child, out, exited: once(child, "exit") });
  };
  const writeOwned = (file: string, text: string) => {
    writeFileSync(file, text, { mode: 0o600 });
    if (owner) chownSync(file, owner.uid, owner.gid);
  };

  // Patroni first (each stops its PostgreSQL), then etcd, which they need until they are gone.
  const end = async (group: Proc[]) => {
    const signal = (p: Proc, sig: NodeJS.Signals) => {
      if (p.child.exitCode !== null || p.child.signalCode !== null || !p.child.pid) return;
      try { process.kill(-p.child.pid, sig); } catch { /* already gone */ }
    };
    for (const p of group) signal(p, "SIGTERM");
    const all = Promise.all(group.map((p) => p.exited));
    // Bounds, not waits: unreferenced, so that they keep no test process alive once all exited.
    if (await Promise.race([all.then(() => false), sleep(15_000, true, { ref: false })])) for (const p of group) signal(p, "SIGKILL");
    await Promise.race([all, sleep(5_000, undefined, { ref: false })]);
    // A PostgreSQL child may still hold the pipes Patroni was given: they are not waited for.
    for (const p of group) { p.child.stdout?.destroy(); p.child.stderr?.destroy(); }
  };
  const stop = async () => {
    await end(procs.filter((p) => p.name !== "etcd"));
    // A postmaster left by a Patroni that was killed: its pid file names it.
    for (const n of nodes) {
      const pid = postmasterPid(n);
      if (pid) { try { process.kill(pid, "SIGKILL"); } catch { /* gone */ } }
    }
    await end(procs.filter((p) => p.name === "etcd"));
    process.removeListener("exit", onExit);
    rmSync(dir, { recursive: true, force: true });
  };

  // A process that exits without stop() (a failed test, Ctrl-C) still ends what it started.
  const onExit = () => {
    for (const p of procs) if (p.child.pid) { try { process.kill(-p.child.pid, "SIGKILL"); } catch { /* gone */ } }
    for (const n of nodes) { const pid = postmasterPid(n); if (pid) { try { process.kill(pid, "SIGKILL"); } catch { /* gone */ } } }
  };
  process.once("exit", onExit);
  const nodes: HaNode[] = [];
  try {
    const etcdClient = await freePort();
    const etcdPeer = await freePort();
    start("etcd", "/usr/bin/etcd", [
      "--name", "feira", "--data-dir", path.join(dir, "etcd"),
      "--listen-client-urls", `http://127.0.0.1:${etcdClient}`, "--advertise-client-urls", `http://127.0.0.1:${etcdClient}`,
      "--listen-peer-urls", `http://127.0.0.1:${etcdPeer}`, "--initial-advertise-peer-urls", `http://127.0.0.1:${etcdPeer}`,
      "--initial-cluster", `feira=http://127.0.0.1:${etcdPeer}`, "--log-level", "warn",
    ]);
    await waitFor("etcd", async () => (await fetch(`http://127.0.0.1:${etcdClient}/health`).catch(() => null))?.ok === true, 30_000, procs);

    for (let i = 1; i <= 3; i++) {
      nodes.push({ name: `pg${i}`, port: await freePort(), restPort: await freePort(), dataDir: path.join(dir, `pg${i}`) });
    }
    for (const n of nodes) {
      const file = path.join(dir, `${n.name}.yml`);
      writeOwned(file, patroniConfig(n, etcdClient, ttl, dir));
      start(n.name, "/usr/bin/patroni", [file]);
      // The first node bootstraps the cluster; the others are cloned from it once it leads.
      if (n === nodes[0]) await waitFor("the first node to lead", async () => (await roleOf(n)) === "primary", 90_000, procs);
    }
    const cluster: HaCluster = {
      nodes,
      url: (database = "postgres", attrs = "read-write") =>
        `postgres://postgres:postgres@${nodes.map((n) => `127.0.0.1:${n.port}`).join(",")}/${database}?target_session_attrs=${attrs}`,
      primary: async () => {
        for (const n of nodes) if ((await roleOf(n)) === "primary") return n;
        return undefined;
      },
      killPrimary: async (how = {}) => {
        const p = await cluster.primary();
        if (!p) throw new Error("no primary to kill");
        const pid = postmasterPid(p);
        if (!pid) throw new Error(`no postmaster.pid in ${p.dataDir}`);
        const patroni = procs.find((x) => x.name === p.name)?.child.pid;
        if (how.host && patroni) process.kill(-patroni, "SIGKILL");
        process.kill(pid, "SIGKILL");
        return p;
      },
      newPrimary: async (old, timeoutMs = 60_000) => {
        let found: HaNode | undefined;
        await waitFor("a new primary", async () => {
          for (const n of nodes) if (n !== old && (await roleOf(n)) === "primary") { found = n; return true; }
          return false;
        }, timeoutMs, procs);
        return found!;
      },
      logs: () => procs.map((p) => `--- ${p.name}\n${p.out.slice(-60).join("\n")}`).join("\n"),
      stop,
    };
    // Every standby runs, and Patroni has named one synchronous (its /sync key): only then does
    // a failover have a standby to promote that has every acknowledged commit.
    await waitFor("two running standbys, one synchronous", async () => {
      const members = await clusterMembers(nodes[0]!);
      const standbys = members.filter((m) => m.role !== "leader" && m.state === "running");
      return standbys.length === 2 && standbys.some((m) => m.role === "sync_standby");
    }, 120_000, procs);
    return cluster;
  } catch (err) {
    const logs = procs.map((p) => `--- ${p.name}\n${p.out.slice(-40).join("\n")}`).join("\n");
    await stop();
    throw new Error(`${(err as Error).message}\n${logs}`);
  }
}

function patroniConfig(n: HaNode, etcdPort: number, ttl: number, dir: string): string {
  // loop_wait + 2 * retry_timeout must not exceed ttl (Patroni's rule).
  const loopWait = Math.max(1, Math.floor(ttl / 5));
  const retryTimeout = Math.max(1, Math.floor((ttl - loopWait) / 2));
  return `scope: feira-test
name: ${n.name}
restapi:
  listen: 127.0.0.1:${n.restPort}
  connect_address: 127.0.0.1:${n.restPort}
etcd3:
  hosts: 127.0.0.1:${etcdPort}
bootstrap:
  dcs:
    ttl: ${ttl}
    loop_wait: ${loopWait}
    retry_timeout: ${retryTimeout}
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    primary_start_timeout: 0
    postgresql:
      use_pg_rewind: true
      remove_data_directory_on_rewind_failure: true
      remove_data_directory_on_diverged_timelines: true
      parameters:
        max_connections: 100
        shared_buffers: 32MB
        wal_keep_size: 128MB
        fsync: "off"
        full_page_writes: "on"
        wal_log_hints: "on"
  initdb:
    - encoding: UTF8
    - auth-local: trust
    - auth-host: md5
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 md5
    - host replication replicator 127.0.0.1/32 md5
postgresql:
  listen: 127.0.0.1:${n.port}
  connect_address: 127.0.0.1:${n.port}
  data_dir: ${n.dataDir}
  bin_dir: ${PG_BIN}
  pgpass: ${path.join(dir, `${n.name}.pgpass`)}
  authentication:
    superuser:
      username: postgres
      password: postgres
    replication:
      username: replicator
      password: replicator
    rewind:
      username: postgres
      password: postgres
  parameters:
    unix_socket_directories: '${dir}'
tags:
  nofailover: false
  noloadbalance: false
`;
}

async function query<T>(n: HaNode, text: string): Promise<T[]> {
  const c = new pg.Client({ host: "127.0.0.1", port: n.port, user: "postgres", password: "postgres", database: "postgres", connectionTimeoutMillis: 2_000 });
  c.on("error", () => undefined);
  try {
    await c.connect();
    return (await c.query(text)).rows as T[];
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** Patroni's view of the members (its REST API, GET /cluster). */
export async function clusterMembers(n: HaNode): Promise<{ name: string; role: string; state: string; lag?: number | string }[]> {
  const res = await fetch(`http://127.0.0.1:${n.restPort}/cluster`).catch(() => null);
  if (!res?.ok) return [];
  return ((await res.json()) as { members?: { name: string; role: string; state: string }[] }).members ?? [];
}

/** What the node's PostgreSQL says it is now, or "down". */
async function roleOf(n: HaNode): Promise<"primary" | "standby" | "down"> {
  try {
    const [row] = await query<{ standby: boolean; ro: string }>(n, "select pg_is_in_recovery() as standby, current_setting('transaction_read_only') as ro");
    if (!row) return "down";
    return row.standby || row.ro === "on" ? "standby" : "primary";
  } catch {
    return "down";
  }
}

function postmasterPid(n: HaNode): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(n.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The postgres user's ids, which PostgreSQL and Patroni run as when the tests run as root. */
export function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
  const uid = id("-u");
  const gid = id("-g");
  if (!Number.isInteger(uid) || uid <= 0) throw new Error("running as root needs a postgres user to run Patroni as");
  return { uid, gid };
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, procs: Proc[]): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    const dead = procs.find((p) => p.child.exitCode !== null);
    if (dead) throw new Error(`${dead.name} exited while waiting for ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}
