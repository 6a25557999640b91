import path from "node:path";
import { fileURLToPath } from "node:url";
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { sql, type SQL } from "drizzle-orm";
import type { PgDatabase, PgTransaction } from "drizzle-orm/pg-core";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migratePostgres } from "./migrate-pg.js";
import { clientOptions, newClient, type PgHost } from "./hosts.js";
import { listenForever, listenerName } from "./listener.js";
import { openReadRouter, registerReadRouter } from "./replica.js";
import * as schema from "./schema.js";

export type Schema = typeof schema;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Db = PgDatabase<any, Schema>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Tx = PgTransaction<any, Schema, any>;
/** What a repo function runs on: the database for single statements, or a transaction. */
export type Queryable = Db | Tx;

export interface Database {
  db: Db;
  kind: "pglite" | "postgres";
  migrate(): Promise<void>;
  /**
   * Calls `onNotify` with the payload of every NOTIFY on `channel`; returns the function that stops listening.
   * Behind a transaction-mode pooler without a direct URL it does nothing (`listens` is false):
   * the callers' polling and TTLs cover what a notification would have hurried.
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  listens: boolean;
  /**
   * PostgreSQL with several hosts: the host connections go to now, and how many times the
   * primary changed and a lost LISTEN was made again (src/db/hosts.ts, src/db/listener.ts).
   */
  topology?(): DatabaseTopology;
  close(): Promise<void>;
}

export interface DatabaseTopology { primary?: string; switches: number; relistens: number }

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

/**
 * PGlite (embedded, one process) when no URL is given, PostgreSQL otherwise. PGlite is imported
 * here, on use: a PostgreSQL process never loads it (tens of MB of JavaScript and WASM).
 */
export async function openDatabase(opts: {
  databaseUrl?: string; dataDir?: string; pglite?: PGlite;
  /** PostgreSQL only: DATABASE_POOL_MODE and DATABASE_DIRECT_URL (see config.ts). */
  poolMode?: "session" | "transaction"; directUrl?: string;
  /** PostgreSQL only: GROUP_COMMIT (src/db/group-commit.ts). */
  groupCommit?: number;
  /**
   * DATABASE_REPLICA_URL: standbys that list reads may use (src/db/replica.ts); `replicaPerCaller`
   * false when other processes of this deployment take the same callers' writes (WEB_CONCURRENCY > 1).
   */
  replicaUrl?: string; replicaPerCaller?: boolean;
}): Promise<Database> {
  if (opts.databaseUrl) {
    const database = openPostgres(opts.databaseUrl, opts.poolMode ?? "session", opts.directUrl);
    if (opts.groupCommit) setGroupCommit(database.primaryPool, opts.groupCommit);
    return opts.replicaUrl ? withReplica(database, opts.replicaUrl, opts.replicaPerCaller ?? true) : database;
  }
  if (opts.replicaUrl) throw new Error("DATABASE_REPLICA_URL needs DATABASE_URL: the embedded database has no standbys");
  const { openPglite } = await import("./pglite.js");
  return openPglite(opts);
}

// Pools (and their connections) that go through a transaction-mode pooler. There, a named
// prepared statement is parsed on whichever server connection the pooler lent for that
// transaction, and the next use of the name may land on another one that never saw it
// ("prepared statement does not exist"), so statements go unnamed: parsed and planned each time.
// Each pool and client of such a pool maps to its pool.
const unnamedClients = new WeakMap<object, pg.Pool>();

/** `name` where named prepared statements may be used on `client` (a pg pool or client), else undefined. */
export function statementName(client: object, name: string | undefined): string | undefined {
  return unnamedClients.has(client) ? undefined : name;
}

// Pools whose concurrent inserts of new rows are grouped (GROUP_COMMIT, src/db/group-commit.ts):
// the number of statements of one shape in flight before the next ones wait to go together.
const groupLimits = new WeakMap<pg.Pool, number>();

/** Groups concurrent inserts of new rows sent on `pool` past `limit` in flight (0: never). */
export function setGroupCommit(pool: pg.Pool, limit: number): void {
  groupLimits.set(pool, limit);
}

/** The node-postgres pool under a database's drizzle handle (PostgreSQL), else undefined (PGlite). */
export function poolOf(db: Db): pg.Pool | undefined {
  const client = (db as unknown as { session: { client: unknown } }).session.client;
  return client instanceof pg.Pool ? client : undefined;
}

/** The group commit limit of `pool` (0 or undefined: none). */
export function groupCommitLimit(pool: pg.Pool): number | undefined {
  return groupLimits.get(pool);
}

/** The pool behind a transaction-mode pooler that `client` (the pool or one of its clients) belongs to. */
export function pooledThrough(client: object): pg.Pool | undefined {
  return unnamedClients.get(client);
}

function openPostgres(url: string, poolMode: "session" | "transaction", directUrl: string | undefined): Database & { primaryPool: pg.Pool } {
  const stats = { switches: 0, relistens: 0 };
  const events = { onSwitch: () => { stats.switches++; } };
  const pooled = clientOptions(url, events);
  // Connections that died with their server (a failover) leave the pool when they fail; an idle
  // one the server closed is dropped by its error event. keepAlive finds a host that vanished
  // without closing its sockets.
  const pool = new pg.Pool({ ...pooled.config, max: 10, keepAlive: true });
  // A broken idle connection must not crash the process; the pool replaces it.
  pool.on("error", () => undefined);
  if (poolMode === "transaction") {
    unnamedClients.set(pool, pool);
    pool.on("connect", (client) => { unnamedClients.set(client, pool); });
  }
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  // LISTEN needs a session of its own: the direct URL when there is one, the pooled URL when it
  // keeps sessions, nothing behind a transaction-mode pooler.
  const sessionUrl = directUrl ?? (poolMode === "session" ? url : undefined);
  const session = sessionUrl === undefined ? undefined
    : sessionUrl === url ? pooled.locator : clientOptions(sessionUrl, events).locator;
  const connectSession = (applicationName?: string) => newClient(sessionUrl ?? url, session, applicationName);
  return {
    db,
    kind: "postgres",
    migrate: async () => {
      // Straight to PostgreSQL when a direct URL is given; otherwise through DATABASE_URL, which
      // is safe behind a pooler too (one transaction, a transaction-scoped lock: migrate-pg.ts).
      if (directUrl) {
        const client = connectSession();
        await client.connect();
        try {
          await migratePostgres(client, MIGRATIONS);
        } finally {
          await client.end().catch(() => undefined);
        }
        return;
      }
      const client = await pool.connect();
      try {
        await migratePostgres(client, MIGRATIONS);
      } finally {
        client.release();
      }
    },
    listens: sessionUrl !== undefined,
    // A dedicated connection: LISTEN belongs to a session, and pooled ones come and go. It is
    // made again on the new primary when it is lost (src/db/listener.ts).
    listen: async (channel, onNotify) => {
      if (!sessionUrl) return async () => undefined;
      return listenForever(() => connectSession(listenerName(channel)), channel, onNotify, { onRelisten: () => { stats.relistens++; } });
    },
    topology: () => ({ primary: describe(pooled.locator?.host()), ...stats }),
    close: () => pool.end(),
    primaryPool: pool,
  };
}

/** Adds the read router of DATABASE_REPLICA_URL to an open PostgreSQL database. */
function withReplica(database: Database & { primaryPool: pg.Pool }, replicaUrl: string, perCaller: boolean): Database {
  let forget = () => undefined as void;
  const options = clientOptions(replicaUrl, { onSwitch: () => forget() });
  const pool = new pg.Pool({ ...options.config, max: 10, keepAlive: true });
  pool.on("error", () => undefined); // a standby's idle connection lost: the pool replaces it
  const replica = drizzlePg(pool, { schema }) as unknown as Db;
  const router = openReadRouter(
    { primary: database.db, primaryPool: database.primaryPool, replica, pool },
    { perCaller, forgetReplay: (f) => { forget = f; } },
  );
  registerReadRouter(database.db, router);
  const close = database.close;
  return { ...database, close: async () => { await router.close().catch(() => undefined); await close(); } };
}

const describe = (h: PgHost | undefined) => (h ? `${h.host}:${h.port}` : undefined);

/**
 * Runs fn in one transaction. Inside, use only `tx`: on PGlite the outer `db` waits for the
 * transaction to finish and so deadlocks. Never call the network from inside fn.
 */
export function withTx<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(fn);
}

/** Rows of a raw `execute`, whose result shape differs between the two drivers. */
export async function queryRows<T>(q: Queryable, query: SQL): Promise<T[]> {
  const result = (await q.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

export { sql };
