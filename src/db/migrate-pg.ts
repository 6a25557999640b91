import { readMigrationFiles } from "drizzle-orm/migrator";
import type pg from "pg";

// The migrations on PostgreSQL, as drizzle's migrator applies them (its journal, its
// drizzle.__drizzle_migrations table, the same rows), but in one transaction that first takes a
// transaction-scoped advisory lock. Several processes may start at once and only one may
// migrate; a session lock (pg_advisory_lock) does not work through a transaction-mode pooler,
// where the lock and the unlock can land on different server connections and the lock then
// stays held. A transaction keeps its server connection to the end, and the lock ends with it,
// on COMMIT, ROLLBACK or a lost connection alike. Every statement is sent without a name, so
// this runs the same on a direct connection and through PgBouncer in transaction mode.

const MIGRATION_LOCK = 727274;

export async function migratePostgres(client: pg.ClientBase, migrationsFolder: string): Promise<void> {
  const migrations = readMigrationFiles({ migrationsFolder });
  await client.query("begin");
  try {
    await client.query(`select pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await client.query(`create schema if not exists "drizzle"`);
    await client.query(`create table if not exists "drizzle"."__drizzle_migrations" (id serial primary key, hash text not null, created_at bigint)`);
    const { rows } = await client.query<{ created_at: string | null }>(
      `select created_at from "drizzle"."__drizzle_migrations" order by created_at desc limit 1`,
    );
    const last = rows[0] ? Number(rows[0].created_at) : undefined;
    for (const m of migrations) {
      if (last !== undefined && last >= m.folderMillis) continue;
      for (const statement of m.sql) if (statement.trim()) await client.query(statement);
      await client.query({ text: `insert into "drizzle"."__drizzle_migrations" ("hash", "created_at") values ($1, $2)`, values: [m.hash, m.folderMillis] });
    }
    await client.query("commit");
  } catch (err) {
    await client.query("rollback").catch(() => undefined);
    throw err;
  }
}
