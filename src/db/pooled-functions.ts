import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import pg from "pg";

// Behind a transaction-mode pooler (DATABASE_POOL_MODE=transaction) statements go unnamed, so
// PostgreSQL parses, analyses and plans the charge's statement (eight inserts in data-modifying
// CTEs, 2 kB of text) on every call: 0.6 ms of its CPU per charge, most of what the pooler cost
// (bench/RESULTS.md, "Unnamed statements and PgBouncer"). A PL/pgSQL function keeps the plans of
// its statements per backend whatever the pooler does, so each hot-path statement shape gets one:
// learned from its first run, defined once per database, then called with every value in one
// text[] argument. The call is a few dozen bytes to parse; the body is planned once per backend.
//
// A function is named by the hash of its body and result columns, so processes of one build
// share it and a new build (another text, or a table with another column) defines its own;
// `feira_s_*` functions are safe to drop at any time (docs/deploy.md, "PgBouncer").

const pgUtils = createRequire(import.meta.url)("pg/lib/utils.js") as { prepareValue(value: unknown): unknown };

/** A statement text's function: its call once defined; none while being defined, or if it could not be (the text then stays unnamed). */
interface Shape { call?: string }

const MAX_SHAPES = 200;
// Per pool: a process may reach several databases (a test run does), each with its functions.
const byPool = new WeakMap<pg.Pool, Map<string, Shape>>();

/** The statement's body with value i written as `make`'s placeholder (Statement.make). */
export type BodyMaker = (p: (i: number) => string) => string;

/**
 * Runs the statement `text` (values `$1..$n`) with `values` on `client` behind a
 * transaction-mode pooler: through its function once one is defined, else as an unnamed
 * statement whose first run on a pool defines the function (in the background; until then, and
 * if it cannot be defined, the statement stays unnamed).
 */
export async function runPooled(
  pool: pg.Pool, client: pg.Pool | pg.Client, text: string, make: BodyMaker, values: unknown[],
): Promise<Record<string, unknown>[]> {
  let shapes = byPool.get(pool);
  if (!shapes) byPool.set(pool, (shapes = new Map()));
  const shape = shapes.get(text);
  if (shape?.call) {
    try {
      return (await client.query({ text: shape.call, values: [asArgument(values)] })).rows as Record<string, unknown>[];
    } catch (err) {
      // Dropped, or a table changed under it: learn it again from an unnamed run. Outside a
      // transaction the failed call changed nothing (one statement), so that run is this one.
      if (!isStale(err)) throw err;
      shapes.delete(text);
      if (client !== pool) throw err;
      return runPooled(pool, client, text, make, values);
    }
  }
  const result = await client.query({ text, values });
  if (!shape && shapes.size < MAX_SHAPES) {
    const learning: Shape = {};
    shapes.set(text, learning);
    define(pool, text, make, result.fields).then((call) => { learning.call = call; }, () => undefined);
  }
  return result.rows as Record<string, unknown>[];
}

/** Every value in one text[]: pg writes each element as it writes a parameter (dates, JSON, bytea). */
function asArgument(values: unknown[]): unknown[] {
  return values.map((v) => (Array.isArray(v) ? pgUtils.prepareValue(v) : v));
}

const STALE = new Set(["42883", "42804", "0A000"]);
function isStale(err: unknown): boolean {
  return STALE.has(String((err as { code?: unknown } | undefined)?.code));
}

let probes = 0;
// Part of every function's name: a change to how functions are defined names them anew.
const DEFINITION = "returns table, text[] argument";

/**
 * Defines the shape's function if no process has (one transaction, under an advisory lock on
 * its name) and answers the text that calls it. The values' types are PostgreSQL's own
 * inference for the statement (PREPARE), the result's columns those of its first run.
 */
async function define(pool: pg.Pool, text: string, make: BodyMaker, fields: pg.FieldDef[]): Promise<string> {
  const conn = await pool.connect();
  const probe = `feira_probe_${process.pid}_${++probes}`;
  let prepared = false;
  try {
    await conn.query("begin");
    await conn.query(`prepare ${probe} as ${text}`);
    prepared = true;
    const { rows: [typed] } = await conn.query<{ types: string[] }>(
      "select parameter_types::text[] as types from pg_prepared_statements where name = $1", [probe]);
    await conn.query(`deallocate ${probe}`);
    prepared = false;
    const { rows: columns } = await conn.query<{ type: string }>(
      "select format_type(oid, typmod) as type from unnest($1::oid[], $2::int[]) with ordinality as f(oid, typmod, n) order by n",
      [fields.map((f) => f.dataTypeID), fields.map((f) => f.dataTypeModifier)]);
    const types = typed?.types ?? [];
    const body = make((i) => `($1[${i + 1}]::${types[i]})`);
    const columnList = fields.map((f, k) => `"${f.name.replaceAll('"', '""')}" ${columns[k]!.type}`).join(", ");
    const name = `feira_s_${createHash("sha1").update(`${DEFINITION}\u0000${body}\u0000${columnList}`).digest("hex").slice(0, 24)}`;
    await conn.query("select pg_advisory_xact_lock(hashtext($1))", [name]);
    const { rows: [found] } = await conn.query<{ found: boolean }>("select to_regprocedure($1) is not null as found", [`${name}(text[])`]);
    if (!found?.found) {
      // The result's columns are the function's own (no column list to parse at each call); in
      // the body a name means the table's column, never the output variable of the same name.
      await conn.query(`create function ${name}(text[]) returns table(${columnList}) language plpgsql as $feira$ #variable_conflict use_column
        begin return query ${body}; end $feira$`);
    }
    await conn.query("commit");
    return `select * from ${name}($1::text[])`;
  } catch (err) {
    await conn.query("rollback").catch(() => undefined);
    if (prepared) await conn.query(`deallocate ${probe}`).catch(() => undefined);
    throw err;
  } finally {
    conn.release();
  }
}
