import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { rmSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { openDatabase, type Database } from "../../src/db/client.js";
import { freshDatabase, migratedDataDir } from "./db.js";
import { feiraEntry } from "./feira-bundle.js";
import { basicAuth, childEnv, freePort, ROOT } from "./process.js";
import { holdsSocket, socketInodes, withDescendants } from "./proc-sockets.js";

// feira as real processes over a real database, for the crash tests and the crash benchmark:
// a fresh PostgreSQL database (DATABASE_URL set) or a PGlite data directory, shared secrets,
// processes started, killed with SIGKILL and restarted at will.

export interface Store {
  onPostgres: boolean;
  /** What every process of this store gets in its environment. */
  env: Record<string, string>;
  adminKey: string;
  /** The database, to look at once no process holds it (PGlite admits one). */
  inspect(): Promise<Database>;
  /** Lets go of what inspect() opened, so that a process may hold the database again. */
  release(): Promise<void>;
  /** Kills (SIGKILL) every process started on this store that still runs, then drops its data. */
  close(): Promise<void>;
}

// The processes started on each store. A test that fails or times out between a start and its
// stop leaves its process running, and the test file, which holds the process's pipes, would
// then never end: the store's close (in the file's `after`) ends them first.
const started = new WeakMap<Store, Set<ChildProcess>>();

async function killStarted(store: Store): Promise<void> {
  const children = [...(started.get(store) ?? [])].filter((c) => c.exitCode === null && c.signalCode === null);
  await Promise.all(children.map(async (c) => {
    const exited = once(c, "exit");
    c.kill("SIGKILL");
    await exited;
  }));
}

export async function makeStore(): Promise<Store> {
  const adminKey = `adm_${randomBytes(16).toString("hex")}`;
  const secrets = {
    ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    JWT_SECRET: randomBytes(32).toString("hex"),
    ADMIN_API_KEY: adminKey,
  };
  if (process.env.DATABASE_URL) {
    const fresh = await freshDatabase();
    const store: Store = {
      onPostgres: true, adminKey, env: { ...secrets, DATABASE_URL: fresh.url! },
      inspect: async () => fresh,
      release: async () => {},
      close: async () => {
        await killStarted(store);
        await fresh.close();
      },
    };
    return store;
  }
  // The migrated, empty database: the first start skips initdb and the migrations (db.ts).
  const dataDir = await migratedDataDir("feira-crash-");
  let open: Database | undefined;
  const store: Store = {
    onPostgres: false, adminKey, env: { ...secrets, DATA_DIR: dataDir },
    inspect: async () => (open ??= await openDatabase({ dataDir })),
    release: async () => {
      await open?.close();
      open = undefined;
    },
    close: async () => {
      await killStarted(store);
      await open?.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return store;
}

export interface FeiraProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  /** kill -9, and wait until it is gone. */
  kill(): Promise<void>;
  /** SIGTERM (graceful), and wait until it is gone. */
  stop(): Promise<void>;
  exited: Promise<unknown>;
}

/**
 * How long one start may take. A test that starts k processes is bounded at k times this (its
 * `timeout`): a loaded CI runner has taken 45 s for a crash test of three starts.
 */
export const START_LIMIT_MS = 180_000;

interface StartOptions {
  role?: "api" | "worker"; env?: Record<string, string>; port?: number;
  /** What node runs; by default the suite's bundle of src/main.ts (feira-bundle.ts). */
  entry?: string[];
}

/**
 * Starts `node src/main.ts [role]` and waits until it answers /health (workers: until started).
 * A port from freePort() is free when chosen, but another test file's server may bind it first:
 * the start then fails with EADDRINUSE and is made again on a new port.
 */
export async function startFeira(store: Store, opts: StartOptions = {}): Promise<FeiraProcess> {
  const entry = opts.entry ?? await feiraEntry();
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(store, opts, entry, opts.port ?? await freePort());
    } catch (err) {
      if (opts.port !== undefined || attempt >= 3 || !/EADDRINUSE/.test(String(err))) throw err;
    }
  }
}

/**
 * Whether the listening socket on `port` is held by a process other than `pid` and the processes
 * below it (cluster workers, a wrapper's node), read from Linux's /proc; undefined where it cannot
 * tell. A /health answered on a port taken by another test file's server is that server's.
 */
function heldByAnother(pid: number, port: number): boolean | undefined {
  const sockets = socketInodes(port, { listening: true });
  if (!sockets || sockets.size === 0) return undefined;
  // A process whose descriptors cannot be read holds nothing: the child that failed to bind has
  // exited (a zombie's are gone) while its exit is not yet seen here.
  return !withDescendants(pid).some((p) => holdsSocket(p, sockets) === true);
}

async function startOnce(store: Store, opts: StartOptions, entry: string[], port: number): Promise<FeiraProcess> {
  const child = spawn(process.execPath, [...entry, ...(opts.role ? [opts.role] : [])], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: childEnv({
      // The worker says it started at info level; the API is watched through /health.
      ...store.env, PORT: String(port), LOG_LEVEL: opts.role === "worker" ? "info" : "warn", WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_RETRY_SCALE: "0.001",
      // The processes count whole tables: no demo history beside what a test makes.
      RATE_LIMIT_PER_KEY: "0", DEMO_HISTORY: "false", ...opts.env,
    }),
  });
  const mine = started.get(store) ?? new Set<ChildProcess>();
  started.set(store, mine);
  mine.add(child);
  child.once("exit", () => mine.delete(child));
  let out = "";
  child.stdout!.on("data", (c: Buffer) => { out += c.toString(); });
  child.stderr!.on("data", (c: Buffer) => { out += c.toString(); });
  const exited = once(child, "exit");
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const url = `http://127.0.0.1:${port}`;
  // A bound to report a start that hangs, not a wait: a first start on a loaded 2-core runner
  // (initdb of the embedded database, migrations, key hashing) once took over 60 s.
  const deadline = Date.now() + START_LIMIT_MS;
  for (;;) {
    if (gone()) throw new Error(`feira exited while starting:\n${out}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`feira did not start within ${START_LIMIT_MS / 1000} s:\n${out}`);
    }
    if (opts.role === "worker") {
      if (/feira started/.test(out)) break;
    } else {
      const ok = await fetch(`${url}/health`).then((r) => r.status === 200, () => false);
      // Answered by another server on this port: this child is failing to bind (EADDRINUSE),
      // and exits when it tries, which after a slow first start can be 45 s away. Never taken
      // for this child's answer however long that takes: /proc tells whose socket it is.
      if (ok && heldByAnother(child.pid!, port) !== true) break;
    }
    await sleep(50);
  }
  const end = async (signal: NodeJS.Signals) => {
    if (!gone()) child.kill(signal);
    await exited;
  };
  return { child, url, output: () => out, kill: () => end("SIGKILL"), stop: () => end("SIGTERM"), exited };
}

/** A merchant made through the admin API of a running process. */
export async function createMerchant(p: FeiraProcess, store: Store): Promise<{ id: string; sandboxKey: string; productionKey: string }> {
  const res = await fetch(`${p.url}/v1/admin/merchants`, {
    method: "POST",
    headers: { authorization: basicAuth(store.adminKey), "content-type": "application/json" },
    body: JSON.stringify({ name: "Crash Loja", email: `crash-${randomBytes(4).toString("hex")}@example.com`, password: "correct horse battery" }),
  });
  if (res.status !== 201) throw new Error(`merchant: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { id: string; apiKeys: { sandbox: string; production: string } };
  return { id: body.id, sandboxKey: body.apiKeys.sandbox, productionKey: body.apiKeys.production };
}

export interface Answer { status: number; body: Record<string, unknown> }

/** One POST; null when the connection broke (the process died under it). */
export async function postJson(url: string, key: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer | null> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { authorization: basicAuth(key), "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } catch {
    return null;
  }
}

/**
 * A client's retry of a POST under its Idempotency-Key after the process that held the key died:
 * sent again while the dead one's claim lasts (409) or no answer comes, up to 10 s; the last answer.
 */
export async function retryTakenOver(url: string, key: string, body: unknown, headers: Record<string, string>): Promise<Answer | null> {
  let answer: Answer | null = null;
  for (let i = 0; i < 100 && (!answer || answer.status === 409); i++) {
    answer = await postJson(url, key, body, headers);
    if (!answer || answer.status === 409) await sleep(100);
  }
  return answer;
}

export { sleep };
