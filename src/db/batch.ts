import { createHash } from "node:crypto";
import pg from "pg";
import { getTableColumns, getTableName, sql, type Column, type SQL, type SQLWrapper, type Table } from "drizzle-orm";
import { groupCommitLimit, pooledThrough, queryRows, statementName, type Queryable, type Tx } from "./client.js";
import { GroupCommit, single } from "./group-commit.js";
import { runPooled } from "./pooled-functions.js";

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
export type Sink = Tx | WriteBatch;

/**
 * A statement written as text, for the hot path (a charge and what it writes): its text is made
 * once per shape and kept, so a call costs only its values. drizzle's query building, which
 * walks the whole tree of a statement on every call, was the largest part of a charge's server
 * CPU once the charge was one statement (bench/RESULTS.md). Values are driver values (what
 * drizzle's columns map them to: JSON text for jsonb, ISO text for timestamps).
 */
export class Statement {
  /**
   * `shape` names the text: two statements of one shape have the same text and number of
   * values. `make` writes the text, with `p(i)` where value i goes; it runs once per shape.
   */
  constructor(readonly shape: string, readonly make: (p: (i: number) => string) => string, readonly values: unknown[]) {}

  /** As a drizzle SQL, for a batch that also holds drizzle parts, and for PGlite. */
  toSQL(): SQL {
    const pieces = this.make((i) => `\u0001${i}\u0001`).split(/\u0001(\d+)\u0001/);
    return sql.join(pieces.map((piece, k) => (k % 2 === 0 ? sql.raw(piece) : sql.param(this.values[Number(piece)]))));
  }
}

type Part = SQLWrapper | Statement;

interface TableInfo { name: string; columns: [string, Column][] }
const tables = new WeakMap<Table, TableInfo>();
function tableInfo(table: Table): TableInfo {
  let info = tables.get(table);
  if (!info) {
    info = { name: getTableName(table), columns: Object.entries(getTableColumns(table)) };
    tables.set(table, info);
  }
  return info;
}

/**
 * INSERT of `rows` into `table` (drizzle's insert without its query building): the columns a
 * row leaves undefined take their default, and values are mapped by the columns as drizzle maps
 * them. `tail` follows the VALUES (ON CONFLICT, RETURNING).
 */
export function insertInto<T extends Table>(table: T, rows: T["$inferInsert"][], tail = ""): Statement {
  const { name, columns } = tableInfo(table);
  const used = columns.filter(([key]) => rows.some((r) => (r as Record<string, unknown>)[key] !== undefined));
  const values: unknown[] = [];
  let shape = `insert ${name} ${tail}`;
  for (const row of rows) {
    shape += ";";
    for (const [key, column] of used) {
      const v = (row as Record<string, unknown>)[key];
      if (v === undefined) { shape += "d"; continue; }
      shape += key.length + key;
      values.push(v === null ? null : column.mapToDriverValue(v));
    }
  }
  return new Statement(shape, (p) => {
    let i = 0;
    const tuples = rows.map((row) => `(${used.map(([key]) => ((row as Record<string, unknown>)[key] === undefined ? "default" : p(i++))).join(", ")})`);
    return `insert into "${name}" (${used.map(([, c]) => `"${c.name}"`).join(", ")}) values ${tuples.join(", ")}${tail ? ` ${tail}` : ""}`;
  }, values);
}

export class WriteBatch {
  private readonly parts: Part[] = [];

  /** `q` builds the parts (drizzle builders are made from it, never awaited) and runs them. */
  constructor(readonly q: Queryable) {}

  add(...statements: Part[]): void {
    this.parts.push(...statements);
  }

  get size(): number {
    return this.parts.length;
  }

  /** Sends every part in one statement; nothing when empty. */
  async run(on: Queryable = this.q): Promise<void> {
    if (this.parts.length === 0) return;
    await send(on, this.parts.length === 1 ? this.parts[0]! : this.compose(undefined));
  }

  /**
   * Sends `main` (an insert or update with RETURNING) and every part in one statement, and
   * answers main's rows mapped like drizzle's own (`table`'s columns: camelCase keys, Dates).
   */
  async runReturning<T extends Table>(on: Queryable, table: T, main: Part): Promise<T["$inferSelect"][]> {
    const all = [main, ...this.parts];
    const group = this.parts.length > 0 && all.every((p): p is Statement => p instanceof Statement) ? groupCommitOf(on) : undefined;
    const rows = group ? await group.run(all as Statement[]) : await send(on, this.parts.length === 0 ? main : this.compose(main));
    return rows.map((r) => fromDriver(table, r));
  }

  /** `with main as (main), w0 as (part 0), ... select * from main` (or `select 1`). */
  private compose(main: Part | undefined): Part {
    const all = main ? [main, ...this.parts] : this.parts;
    if (all.every((p): p is Statement => p instanceof Statement)) {
      if (main) {
        const one = single(all);
        return new Statement(one.shape, one.make, one.values);
      }
      const offsets: number[] = [];
      let n = 0;
      for (const p of all) { offsets.push(n); n += p.values.length; }
      return new Statement(`with ${all.map((p) => p.shape).join("\u0002")}`, (p) => {
        const ctes = all.map((s, k) => `w${k} as (${s.make((i) => p(offsets[k]! + i))})`);
        return `with ${ctes.join(", ")} select 1`;
      }, all.flatMap((p) => p.values));
    }
    const ctes = sql.join(this.parts.map((p, i) => sql`${sql.raw(`w${i}`)} as (${asSQL(p)})`), sql`, `);
    return main ? sql`with main as (${asSQL(main)}), ${ctes} select * from main` : sql`with ${ctes} select 1`;
  }
}

// Group commit (group-commit.ts): one per pool whose database asked for it (GROUP_COMMIT), for
// the statements of new rows sent on the pool itself, never in a transaction.
const groups = new WeakMap<object, GroupCommit>();
/** The group commit of `on`'s pool, if it has one (its counts of statements and members). */
export function groupCommitOf(on: Queryable): GroupCommit | undefined {
  const client = (on as unknown as DrizzleInternals).session.client;
  if (!(client instanceof pg.Pool)) return undefined;
  let group = groups.get(client);
  if (!group) {
    const limit = groupCommitLimit(client);
    if (!limit) return undefined;
    group = new GroupCommit(limit, (s) => send(on, new Statement(s.shape, s.make, s.values)));
    groups.set(client, group);
  }
  return group;
}

const asSQL = (p: Part): SQL => (p instanceof Statement ? p.toSQL() : p.getSQL());

// On PostgreSQL the hot path's statements go as named prepared statements, each parsed and
// planned once per connection instead of on every charge. A Statement is named by its shape
// (its text is made once, then kept with its name); a drizzle statement by its text. Both are
// bounded: past MAX_NAMED distinct shapes and texts, statements go unnamed and texts are made
// each time. (PGlite's connection prepares every statement itself.) Behind a transaction-mode
// pooler (DATABASE_POOL_MODE=transaction) every statement goes unnamed (see statementName), and
// a Statement's shape runs through a function of its own after its first run (pooled-functions.ts).
const MAX_NAMED = 500;
const names = new Map<string, string>();
const byShape = new Map<string, { text: string; name: string | undefined }>();

function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `feira_batch_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

function textOf(s: Statement): { text: string; name: string | undefined } {
  let known = byShape.get(s.shape);
  if (!known) {
    const text = s.make((i) => `$${i + 1}`);
    known = { text, name: nameOf(text) };
    if (byShape.size < MAX_NAMED) byShape.set(s.shape, known);
  }
  return known;
}

interface DrizzleInternals { dialect: { sqlToQuery(q: SQL): { sql: string; params: unknown[] } }; session: { client: unknown } }

/** PGlite's connection or one of its transactions (src/db/pglite.ts): drizzle's client there. */
interface PgliteClient { query(text: string, params: unknown[], options: object): Promise<{ rows: Record<string, unknown>[] }> }
// The rows drizzle's PGlite session asks for: objects, with dates, timestamps and intervals (and
// arrays of them, numeric[] too) kept as text for the columns to map (PGlite's type OIDs).
const keepText = (value: string) => value;
const PGLITE_RAW_ROWS = {
  rowMode: "object",
  parsers: Object.fromEntries([1114, 1184, 1186, 1082, 1231, 1115, 1185, 1187, 1182].map((oid) => [oid, keepText])),
};

/**
 * Runs one statement, as a named prepared statement on PostgreSQL (the hot path's statements:
 * batches, the sandbox processor record, the charge's customer), and answers its raw rows.
 */
export async function send(on: Queryable, query: Part): Promise<Record<string, unknown>[]> {
  const { dialect, session } = on as unknown as DrizzleInternals;
  const client = session.client;
  if (client instanceof pg.Pool || client instanceof pg.Client) {
    if (query instanceof Statement) {
      const { text, name } = textOf(query);
      // Behind a transaction-mode pooler a named statement cannot be kept: a function is.
      const pool = pooledThrough(client);
      if (name !== undefined && pool) return runPooled(pool, client, text, query.make, query.values);
      return (await client.query({ name, text, values: query.values })).rows as Record<string, unknown>[];
    }
    const { sql: text, params } = dialect.sqlToQuery(query.getSQL());
    const result = await client.query({ name: statementName(client, nameOf(text)), text, values: params });
    return result.rows as Record<string, unknown>[];
  }
  // PGlite: a Statement's kept text goes as it is too (PgliteConnection prepares it once).
  // Through drizzle it would be split into pieces and built again on every call, which was
  // a tenth of a card charge's CPU on PGlite (bench/RESULTS.md, "Embedded database").
  if (query instanceof Statement) return (await (client as PgliteClient).query(textOf(query).text, query.values, PGLITE_RAW_ROWS)).rows;
  return queryRows<Record<string, unknown>>(on, asSQL(query));
}

/**
 * Adds the statements `build` makes to the batch, or sends them at once (one statement) when
 * the sink is a transaction or the database. `build` gets the Queryable to make builders from.
 */
export async function write(sink: Sink, build: (q: Queryable) => Part[]): Promise<void> {
  if (sink instanceof WriteBatch) {
    sink.add(...build(sink.q));
    return;
  }
  const batch = new WriteBatch(sink);
  batch.add(...build(sink));
  await batch.run();
}

/**
 * Runs a select of `table`'s rows (`select().from(table)`) through `send`, rows mapped like
 * drizzle's. `grouped`: a read of the hot path (the charge's customer), which concurrent requests
 * may share as one statement (group-commit.ts); a read changes nothing, so members cannot collide.
 */
export async function selectRows<T extends Table>(on: Queryable, table: T, query: Part, grouped = false): Promise<T["$inferSelect"][]> {
  const group = grouped && query instanceof Statement ? groupCommitOf(on) : undefined;
  const rows = group ? await group.run([query as Statement]) : await send(on, query);
  return rows.map((r) => fromDriver(table, r));
}

/** A raw row (snake_case columns, driver values) as drizzle would answer it for `table`. */
export function fromDriver<T extends Table>(table: T, raw: Record<string, unknown>): T["$inferSelect"] {
  const out: Record<string, unknown> = {};
  for (const [key, column] of tableInfo(table).columns) {
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
