import type pg from "pg";
import { isDatabaseUnavailable } from "./unavailable.js";

// DATABASE_REPLICA_URL (docs/deploy.md, "Read replicas"): lists and searches may read a standby,
// and never miss what the same caller wrote before. After every write request of a caller (its
// merchant and environment) the primary's WAL insert position is kept, in this process's memory;
// a list of that caller reads the standby only once the standby has replayed up to it
// (pg_last_wal_replay_lsn() >= the position), otherwise the primary. While a write of the caller
// is in flight its lists read the primary. A caller with no position kept needs the standby to
// have replayed the floor: the primary's position when the router first looked (so everything
// committed before this process served anyone), raised to every position forgotten to bound the
// memory. That holds while this process is the only one that takes the callers' writes; with
// WEB_CONCURRENCY > 1 (`perCaller` false), or for a caller whose position could not be read,
// the position is the primary's current one, asked at each list: safe whoever wrote, at the
// price of one small query to the primary. Money decisions (balances, payouts, idempotency)
// never come here: only the list reads do (readForList's callers), and a standby that fails a
// read sends it to the primary.

export interface ReplicaLag { bytes: number | null; seconds: number | null }
export interface ReplicaStats { replicaReads: number; primaryReads: number }

export interface ReadRouter<D = object> {
  /** A write request of `caller` begins: its lists read the primary until it is recorded. */
  writeBegan(caller: string): void;
  /** It ended (answered or failed): the primary's position now covers whatever it committed. */
  writeEnded(caller: string): Promise<void>;
  /** Runs a list read on the standby when it has replayed `caller`'s writes, else on the primary. */
  read<T>(caller: string | undefined, fn: (q: D) => Promise<T>): Promise<T>;
  lag(): Promise<ReplicaLag | undefined>;
  stats(): ReplicaStats;
  /** Write requests whose position is not kept yet (onResponse runs after the answer is sent). */
  writesInFlight(): number;
  close(): Promise<void>;
}

// The routers of open databases, found from the primary's Db the services already hold.
// Each router reads `D`s (the Db of the same drizzle schema), so what it hands a list is a `D`.
const routers = new WeakMap<object, ReadRouter<never>>();

/**
 * The caller whose writes a list must see: the merchant and environment a request acts for (which
 * covers each of its API keys and its panel session); undefined for a request without one.
 */
export function callerOf(scope: { merchantId?: string; environment?: string } | undefined): string | undefined {
  return scope?.merchantId ? `${scope.merchantId}:${scope.environment ?? ""}` : undefined;
}

/**
 * A list or search of `scope`'s caller: on the standby of `db` if there is one and it has replayed
 * the caller's writes, else on `db`. Only for reads shown to the caller, never for a decision.
 */
export function readForList<D extends object, T>(db: D, scope: { merchantId?: string; environment?: string }, fn: (q: D) => Promise<T>): Promise<T> {
  const router = routers.get(db) as ReadRouter<D> | undefined;
  return router ? router.read(callerOf(scope), fn) : fn(db);
}

export function readRouterOf(db: object): ReadRouter | undefined {
  return routers.get(db) as ReadRouter | undefined;
}

// Callers remembered per process; the oldest is forgotten past this (its next list pays one query).
const MAX_CALLERS = 100_000;

/**
 * `pool`/`replica`: the standbys' pool and its Db (made by src/db/client.ts); `forgetReplay` gets
 * the function to call when the replica URL's host changes (a position seen on another host does
 * not hold).
 */
export function openReadRouter<D extends object>(
  sides: { primary: D; primaryPool: pg.Pool; replica: D; pool: pg.Pool },
  opts: { perCaller: boolean; forgetReplay(forget: () => void): void },
): ReadRouter<D> {
  const { primary, primaryPool, replica, pool } = sides;
  opts.forgetReplay(() => { replayed = 0n; });
  const written = new Map<string, bigint>();
  // Callers whose last write's position could not be read: held to the primary's current one.
  const unsure = new Set<string>();
  let floor: Promise<bigint> | undefined;
  let raised = 0n;
  const inFlight = new Map<string, number>();
  // The standby's replay position last seen: it only moves forward, so a position at or below it
  // needs no new question. Forgotten when the replica URL's host changes.
  let replayed = 0n;
  const stats: ReplicaStats = { replicaReads: 0, primaryReads: 0 };

  const primaryPosition = async (): Promise<bigint> => {
    const { rows } = await primaryPool.query<{ lsn: string }>("select (pg_current_wal_insert_lsn() - '0/0')::text as lsn");
    return BigInt(rows[0]!.lsn);
  };
  const caughtUp = async (target: bigint): Promise<boolean> => {
    if (replayed >= target) return true;
    const { rows } = await pool.query<{ lsn: string | null }>("select (pg_last_wal_replay_lsn() - '0/0')::text as lsn");
    const lsn = rows[0]?.lsn;
    // null: not a standby (a promoted one, or a primary named by mistake); read the primary.
    if (lsn == null) return false;
    const now = BigInt(lsn);
    if (now > replayed) replayed = now;
    return now >= target;
  };
  // The position the standby must have replayed for `caller`'s list.
  const targetOf = async (caller: string | undefined): Promise<bigint> => {
    if (!opts.perCaller || caller === undefined || unsure.has(caller)) return primaryPosition();
    const known = written.get(caller);
    if (known !== undefined) return known;
    floor ??= primaryPosition().catch((err: unknown) => { floor = undefined; throw err; });
    const base = await floor;
    return base > raised ? base : raised;
  };
  const onPrimary = <T>(fn: (q: D) => Promise<T>) => { stats.primaryReads++; return fn(primary); };

  return {
    writeBegan(caller) { inFlight.set(caller, (inFlight.get(caller) ?? 0) + 1); },
    async writeEnded(caller) {
      try {
        const lsn = await primaryPosition();
        written.delete(caller);
        if (written.size >= MAX_CALLERS) {
          // The oldest is forgotten; the floor covers its writes from now on.
          const [oldest, at] = written.entries().next().value!;
          written.delete(oldest);
          if (at > raised) raised = at;
        }
        written.set(caller, lsn);
        unsure.delete(caller);
      } catch {
        written.delete(caller);
        unsure.add(caller); // unknown now: its lists ask the primary until its next write is kept
      } finally {
        const n = (inFlight.get(caller) ?? 1) - 1;
        if (n > 0) inFlight.set(caller, n); else inFlight.delete(caller);
      }
    },
    async read(caller, fn) {
      if (caller !== undefined && inFlight.has(caller)) return onPrimary(fn);
      let target: bigint;
      try {
        target = await targetOf(caller);
        if (!await caughtUp(target)) return await onPrimary(fn);
      } catch (err) {
        if (!isDatabaseUnavailable(err)) throw err;
        return onPrimary(fn); // the standby (or the primary's position) did not answer
      }
      try {
        const result = await fn(replica);
        stats.replicaReads++;
        return result;
      } catch (err) {
        // A standby lost, or a read cancelled by replay (40001, a conflict with recovery).
        if (!isDatabaseUnavailable(err) && !isRecoveryConflict(err)) throw err;
        return onPrimary(fn);
      }
    },
    async lag() {
      try {
        const { rows } = await pool.query<{ replayed: string | null; seconds: number | null }>(`
          select (pg_last_wal_replay_lsn() - '0/0')::text as replayed,
                 extract(epoch from now() - pg_last_xact_replay_timestamp())::float8 as seconds`);
        const row = rows[0];
        if (!row?.replayed) return undefined;
        const primaryNow = await primaryPosition();
        const behind = primaryNow - BigInt(row.replayed);
        // Seconds since the last transaction replayed, which grow on an idle primary too: 0 when caught up.
        return { bytes: Number(behind > 0n ? behind : 0n), seconds: behind > 0n ? row.seconds : 0 };
      } catch {
        return undefined;
      }
    },
    stats: () => ({ ...stats }),
    writesInFlight: () => [...inFlight.values()].reduce((a, b) => a + b, 0),
    close: () => pool.end(),
  };
}

export function registerReadRouter<D extends object>(db: D, router: ReadRouter<D>): void {
  routers.set(db, router as ReadRouter<never>);
}

function isRecoveryConflict(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === "40001") return true;
  }
  return false;
}
