import path from "node:path";
import { fileURLToPath } from "node:url";
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { sql, type SQL } from "drizzle-orm";
import type { PgDatabase, PgTransaction } from "drizzle-orm/pg-core";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
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
  /** Calls `onNotify` for every NOTIFY on `channel`; returns the function that stops listening. */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

/**
 * PGlite (embedded, one process) when no URL is given, PostgreSQL otherwise. PGlite is imported
 * here, on use: a PostgreSQL process never loads it (tens of MB of JavaScript and WASM).
 */
export async function openDatabase(opts: { databaseUrl?: string; dataDir?: string; pglite?: PGlite }): Promise<Database> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl);
  const { openPglite } = await import("./pglite.js");
  return openPglite(opts);
}

function openPostgres(url: string): Database {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // A broken idle connection must not crash the process; the pool replaces it.
  pool.on("error", () => undefined);
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  return {
    db,
    kind: "postgres",
    migrate: async () => {
      // Several processes may start at once: the advisory lock lets one migrate at a time.
      const client = await pool.connect();
      try {
        await client.query("select pg_advisory_lock(727274)");
        await migratePg(drizzlePg(client, { schema }), { migrationsFolder: MIGRATIONS });
      } finally {
        await client.query("select pg_advisory_unlock(727274)").catch(() => undefined);
        client.release();
      }
    },
    listen: async (channel, onNotify) => {
      // A dedicated connection: LISTEN belongs to a session, and pooled ones come and go.
      const client = new pg.Client({ connectionString: url });
      client.on("error", () => undefined); // the worker's polling covers a lost listener
      client.on("notification", (n) => { if (n.channel === channel) onNotify(); });
      await client.connect();
      await client.query(`listen ${channel}`);
      return async () => { await client.end().catch(() => undefined); };
    },
    close: () => pool.end(),
  };
}

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
