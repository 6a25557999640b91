import { createHash } from "node:crypto";
import pg from "pg";
import { getTableColumns, sql, type SQL, type SQLWrapper, type Table } from "drizzle-orm";
import { queryRows, type Queryable } from "./client.js";

// Writes that need no answer from the database (the outbox, the ledger, settlements) are
// collected and sent as one statement of data-modifying CTEs: one round trip, atomic without
// BEGIN and COMMIT, because a statement commits as a whole or not at all. The charge path is the
// reason (bench/RESULTS.md, issue 12): its cost is per round trip, and a paid charge with its
// events, ledger transaction, entries and settlements becomes one statement.
//
// The parts of one batch cannot see each other's rows (one snapshot), so a batch holds inserts
// of new rows, and at most one change of an existing row (the main statement). Foreign keys
// between the parts hold: PostgreSQL checks them at the end of the statement.

/** Where a module writes: a transaction or the database (sent at once), or a batch (sent later). */
export type Sink = Queryable | WriteBatch;

export class WriteBatch {
  private readonly parts: SQL[] = [];

  /** `q` builds the parts (drizzle builders are made from it, never awaited) and runs them. */
  constructor(readonly q: Queryable) {}

  add(...statements: SQLWrapper[]): void {
    for (const s of statements) this.parts.push(s.getSQL());
  }

  get size(): number {
    return this.parts.length;
  }

  /** Sends every part in one statement; nothing when empty. */
  async run(on: Queryable = this.q): Promise<void> {
    if (this.parts.length === 0) return;
    await send(on, this.parts.length === 1 ? this.parts[0]! : sql`with ${this.ctes()} select 1`);
  }

  /**
   * Sends `main` (an insert or update with RETURNING) and every part in one statement, and
   * answers main's rows mapped like drizzle's own (`table`'s columns: camelCase keys, Dates).
   */
  async runReturning<T extends Table>(on: Queryable, table: T, main: SQLWrapper): Promise<T["$inferSelect"][]> {
    const rows = await send(on, this.parts.length === 0 ? main.getSQL() : sql`with main as (${main.getSQL()}), ${this.ctes()} select * from main`);
    return rows.map((r) => fromDriver(table, r));
  }

  private ctes(): SQL {
    return sql.join(this.parts.map((p, i) => sql`${sql.raw(`w${i}`)} as (${p})`), sql`, `);
  }
}

// On PostgreSQL a batch is sent as a named prepared statement, named by its text: a charge's
// statement has a few shapes (events, entries and settlement rows per installment), each parsed
// and planned once per connection instead of on every charge. The names are bounded: past
// MAX_NAMED distinct texts, batches go unnamed. (PGlite's connection prepares every statement.)
const MAX_NAMED = 500;
const names = new Map<string, string>();

function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `feira_batch_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

interface DrizzleInternals { dialect: { sqlToQuery(q: SQL): { sql: string; params: unknown[] } }; session: { client: unknown } }

/**
 * Runs one statement, as a named prepared statement on PostgreSQL (the hot path's statements:
 * batches, the sandbox processor record, the charge's customer), and answers its raw rows.
 */
export async function send(on: Queryable, query: SQLWrapper): Promise<Record<string, unknown>[]> {
  const statement = query.getSQL();
  const { dialect, session } = on as unknown as DrizzleInternals;
  const client = session.client;
  if (client instanceof pg.Pool || client instanceof pg.Client) {
    const { sql: text, params } = dialect.sqlToQuery(statement);
    const result = await client.query({ name: nameOf(text), text, values: params });
    return result.rows as Record<string, unknown>[];
  }
  return queryRows<Record<string, unknown>>(on, statement);
}

/**
 * Adds the statements `build` makes to the batch, or sends them at once (one statement) when
 * the sink is a transaction or the database. `build` gets the Queryable to make builders from.
 */
export async function write(sink: Sink, build: (q: Queryable) => SQLWrapper[]): Promise<void> {
  if (sink instanceof WriteBatch) {
    sink.add(...build(sink.q));
    return;
  }
  const batch = new WriteBatch(sink);
  batch.add(...build(sink));
  await batch.run();
}

/** Runs a select of `table`'s rows (`select().from(table)`) through `send`, rows mapped like drizzle's. */
export async function selectRows<T extends Table>(on: Queryable, table: T, query: SQLWrapper): Promise<T["$inferSelect"][]> {
  return (await send(on, query)).map((r) => fromDriver(table, r));
}

/** A raw row (snake_case columns, driver values) as drizzle would answer it for `table`. */
function fromDriver<T extends Table>(table: T, raw: Record<string, unknown>): T["$inferSelect"] {
  const out: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = raw[column.name];
    out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return out as T["$inferSelect"];
}

/** PostgreSQL's unique_violation, through drizzle's error wrapper or not. */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === "23505") return true;
  }
  return false;
}
