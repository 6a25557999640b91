import path from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite, TransactionAbortedError, parse, protocol, type Results, type Transaction, type messages } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import type { Database, Db } from "./client.js";
import * as schema from "./schema.js";

// The embedded engine. This module is imported only when no DATABASE_URL is set (client.ts),
// so a PostgreSQL process never loads PGlite's JavaScript or its WASM.
//
// Why not hand the PGlite instance straight to drizzle: PGlite's `query` runs every statement
// as six separate protocol exchanges (Parse, Describe, Bind, Describe, Execute, Sync), parses
// and plans it again each time, and merges drizzle's type parsers into a fresh copy of its
// whole parser table (several hundred entries) on every call. A profile of charges on PGlite
// (bench/RESULTS.md, "Embedded database") put those at about half of the process's CPU.
// `PgliteConnection` offers drizzle the same `query`/`transaction` surface and instead:
// - keeps named prepared statements (Parse and plan once per statement text, bounded LRU);
// - sends Bind, Describe, Execute and Sync in one exchange;
// - merges drizzle's parsers once.
// Locking is PGlite's own: transactions hold its transaction mutex and each exchange its query
// mutex, so PGlite's own `query`, `exec` and `listen` still interleave safely with this code.

const { serialize } = protocol;
type BackendMessage = messages.BackendMessage;

/** drizzle's per-query options, of which only these are used. */
interface QueryOptions {
  rowMode?: "array" | "object";
  parsers?: Record<number, (value: string) => unknown>;
}

interface Prepared {
  name: string;
  paramTypes: number[];
  /** The statement's RowDescription (none for a statement without rows), put before each answer. */
  rowDescription?: BackendMessage;
}

// Messages that never change, serialized once.
const BEGIN = serialize.query("BEGIN");
const BIND_UNNAMED = serialize.bind({});
const DESCRIBE_PORTAL = serialize.describe({ type: "P" });
const EXECUTE = serialize.execute({});
const SYNC = serialize.sync();

/** Distinct statement texts kept prepared; a charge uses a few dozen, the whole API a few hundred. */
const STATEMENT_CACHE_SIZE = 1000;
let connections = 0;

function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The answer to what followed a BEGIN sent in front (BEGIN's CommandComplete and ReadyForQuery cut off). */
function afterBegin(begin: Uint8Array[], messages: BackendMessage[]): BackendMessage[] {
  return begin.length === 0 ? messages : messages.slice(messages.findIndex((m) => m.name === "readyForQuery") + 1);
}

export class PgliteConnection {
  private readonly prefix = `feira_${++connections}_`;
  private next = 0;
  private readonly prepared = new Map<string, Prepared>();
  /** Statements evicted from the cache, closed in the next exchange. */
  private readonly toClose: string[] = [];
  private readonly mergedParsers = new Map<string, Record<number, (value: string) => unknown>>();
  /** BEGIN not sent yet: it goes out with the transaction's first statement. */
  private beginPending = false;

  constructor(readonly pg: PGlite) {}

  /** One statement in its own transaction (autocommit). */
  query<T>(text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> {
    return this.pg._runExclusiveTransaction(async () => {
      const result = await this.run<T>(text, params, options);
      await this.pg.syncToFs();
      return result;
    });
  }

  /** What drizzle's PGlite session calls for `db.transaction`; savepoints run through `query`. */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.pg._runExclusiveTransaction(async () => {
      // BEGIN travels with the first statement (one exchange less per transaction); a
      // transaction that sends no statement sends neither BEGIN nor COMMIT.
      this.beginPending = true;
      let closed = false;
      const end = async (command: "COMMIT" | "ROLLBACK") => {
        closed = true;
        if (this.beginPending) {
          this.beginPending = false;
          return undefined;
        }
        return (await this.simple(command))[0];
      };
      const tx = {
        query: <R>(text: string, params?: unknown[], options?: QueryOptions) => {
          if (closed) throw new Error("Transaction is closed");
          return this.run<R>(text, params ?? [], options);
        },
        rollback: async () => {
          if (closed) throw new Error("Transaction is closed");
          await end("ROLLBACK");
        },
        get closed() {
          return closed;
        },
      } as unknown as Transaction;
      try {
        const result = await fn(tx);
        if (!closed) {
          const done = await end("COMMIT");
          // COMMIT of a transaction that failed earlier answers ROLLBACK: nothing was written.
          if (done?.command === "ROLLBACK") throw new TransactionAbortedError();
        }
        await this.pg.syncToFs();
        return result;
      } catch (err) {
        if (!closed) await end("ROLLBACK");
        throw err;
      } finally {
        this.beginPending = false;
      }
    });
  }

  private exchange(parts: Uint8Array[]): Promise<BackendMessage[]> {
    if (this.toClose.length > 0) {
      parts = [...this.toClose.splice(0).map((name) => serialize.close({ type: "S", name })), ...parts];
    }
    return this.pg.execProtocolStream(concat(parts), { syncToFs: false });
  }

  private simple(text: string): Promise<Results[]> {
    return this.pg.runExclusive(async () => parse.parseResults(await this.exchange([serialize.query(text)]), this.pg.parsers));
  }

  private run<T>(text: string, params: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this.pg.runExclusive(async () => {
      // A pending BEGIN is a simple query in front of the statement; its answer (CommandComplete,
      // ReadyForQuery) comes first and is cut off below.
      let begin = this.beginPending ? [BEGIN] : [];
      this.beginPending = false;
      let messages: BackendMessage[];
      let rowDescription: BackendMessage | undefined;
      if (params.length === 0) {
        // Nothing to type: parse, bind and run in one exchange, unnamed (DDL, savepoints).
        messages = afterBegin(begin, await this.exchange([...begin, serialize.parse({ text }), BIND_UNNAMED, DESCRIBE_PORTAL, EXECUTE, SYNC]));
      } else {
        const statement = await this.prepare(text, begin);
        if (statement.begun) begin = [];
        const values = params.map((param, i) => {
          if (param === null || param === undefined) return null;
          const serializer = this.pg.serializers[statement.paramTypes[i]!];
          return serializer ? serializer(param) : String(param);
        });
        // The row description was read when the statement was prepared: no Describe per run.
        messages = afterBegin(begin, await this.exchange([...begin, serialize.bind({ statement: statement.name, values }), EXECUTE, SYNC]));
        rowDescription = statement.rowDescription;
      }
      if (rowDescription) messages.unshift(rowDescription);
      const rowMode = options?.rowMode;
      return parse.parseResults(messages, this.parsers(options?.parsers), rowMode ? { rowMode } : undefined)[0] as Results<T>;
    });
  }

  /**
   * The named statement for `text`, parsed (its parameter and row types read) on first use.
   * A first use also sends `begin`, if any, and says so in `begun`.
   */
  private async prepare(text: string, begin: Uint8Array[]): Promise<Prepared & { begun?: boolean }> {
    const known = this.prepared.get(text);
    if (known) {
      // Most recently used last, so eviction takes the least recently used.
      this.prepared.delete(text);
      this.prepared.set(text, known);
      return known;
    }
    const name = `${this.prefix}${++this.next}`;
    const described = afterBegin(begin, await this.exchange([...begin, serialize.parse({ name, text }), serialize.describe({ type: "S", name }), SYNC]));
    // A statement that fails to parse throws above and is not kept. A prepared statement is
    // not transactional: it outlives the rollback of the transaction that parsed it.
    const statement: Prepared = {
      name,
      paramTypes: parse.parseDescribeStatementResults(described),
      rowDescription: described.find((m) => m.name === "rowDescription"),
    };
    this.prepared.set(text, statement);
    if (this.prepared.size > STATEMENT_CACHE_SIZE) {
      const [oldest, evicted] = this.prepared.entries().next().value!;
      this.prepared.delete(oldest);
      this.toClose.push(evicted.name);
    }
    return { ...statement, begun: begin.length > 0 };
  }

  /** PGlite's parsers with drizzle's overrides (dates kept as text), merged once per set. */
  private parsers(overrides?: QueryOptions["parsers"]): Record<number, (value: string) => unknown> {
    if (!overrides) return this.pg.parsers;
    const key = Object.keys(overrides).join(",");
    let merged = this.mergedParsers.get(key);
    if (!merged) {
      merged = { ...this.pg.parsers, ...overrides };
      this.mergedParsers.set(key, merged);
    }
    return merged;
  }
}

/** The extensions the migrations create (pg_trgm: 0023); every PGlite that opens feira's data needs them. */
export const PGLITE_EXTENSIONS = { pg_trgm };

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

/** The embedded database in `dataDir` (in memory when absent), or on a PGlite the caller made. */
export async function openPglite(opts: { dataDir?: string; pglite?: PGlite }): Promise<Database> {
  const client = opts.pglite ?? (await PGlite.create(opts.dataDir, { extensions: PGLITE_EXTENSIONS }));
  const connection = new PgliteConnection(client);
  const db = drizzle(connection as unknown as PGlite, { schema }) as unknown as Db;
  return {
    db,
    kind: "pglite",
    migrate: async () => migrate(db as never, { migrationsFolder: MIGRATIONS }),
    listens: true,
    listen: async (channel, onNotify) => client.listen(channel, onNotify),
    close: async () => {
      if (!client.closed) await client.close();
    },
  };
}
