import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { queryRows, withTx, type Db, type Queryable, type Tx } from "./client.js";
import { listenerName } from "./listener.js";

// What every request reads and almost never changes (API keys, a merchant's row and fees, its
// Connect account and default split) is kept in memory for a few seconds per process. A change
// makes every process forget it all at once: the changing transaction NOTIFYs `feira_auth` (sent
// at commit; main.ts LISTENs in API and worker processes), and the changing process forgets
// directly after its commit. A read that was under way when a process forgot is answered but not kept.
// Only what lets a request through is kept (`keep`): a refusal (an inactive merchant, a blocked
// submerchant) is read again every time, so lifting it is seen at once by every process.
// A change answers only once every listening process has forgotten: each one, on hearing the
// change, forgets and then answers `ack:<token>` on the channel, and the change waits for as many
// answers as the channel has listening sessions (they name themselves: listenerName). PostgreSQL
// delivers a notification to each listener on its own, so without that wait a starved process
// answered a request or two from what it kept after the change had answered (seen in CI's run
// over two processes). The wait is bounded by the cache's life: past it, nothing kept before the
// change is served anyway (a listener that never answers delays the change, never fails it).
// Worker processes listen and answer too: they charge (renewals, retries) from what they keep.
export const CONFIG_CHANGED_CHANNEL = "feira_auth";

/** How long kept values live (createTtlCache's default), and so how long a change may wait. */
export const CONFIG_TTL_MS = 5_000;

const ACK = "ack:";

/** The sessions LISTENing on the channel now: every API and worker process (main.ts), this one included. */
export async function configListeners(db: Db): Promise<number> {
  const rows = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from pg_stat_activity
    where application_name = ${listenerName(CONFIG_CHANGED_CHANNEL)} and datname = current_database()`);
  return rows[0]?.n ?? 1;
}

export function createConfigChanges() {
  const forgetters: (() => void)[] = [];
  const waits = new Map<string, () => void>();
  let ackVia: Db | undefined;
  const forget = () => {
    for (const f of forgetters) f();
  };
  const announce = (q: Queryable, token = "") => q.execute(sql`select pg_notify(${CONFIG_CHANGED_CHANNEL}, ${token})`);

  /**
   * `all` resolves once the number given to `expect` of answers has come for `token`, or
   * CONFIG_TTL_MS after `expect` (called after the commit: the cache's life runs from there).
   */
  function answersTo(token: string) {
    let acked = 0;
    let want = Infinity;
    let timer: NodeJS.Timeout | undefined;
    let done: () => void = () => undefined;
    const all = new Promise<void>((resolve) => { done = resolve; });
    const check = () => { if (acked >= want) done(); };
    waits.set(token, () => { acked++; check(); });
    return {
      all,
      expect(n: number) {
        want = n;
        timer = setTimeout(done, CONFIG_TTL_MS);
        timer.unref();
        check();
      },
      cancel() { clearTimeout(timer); waits.delete(token); },
    };
  }

  return {
    /** In a transaction (or alone): every listening process forgets when it commits. */
    announce,
    /**
     * Runs `work` in a transaction that announces the change, then forgets here and, in a process
     * that listens, waits until every listening process has forgotten before returning.
     */
    async change<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
      const token = ackVia ? randomUUID() : "";
      const answers = token ? answersTo(token) : undefined;
      try {
        const out = await withTx(db, async (tx) => {
          const result = await work(tx);
          await announce(tx, token);
          return result;
        });
        forget();
        if (answers) {
          // Counted after the commit: a process that starts listening later kept nothing older.
          answers.expect(Math.max(1, await configListeners(db).catch(() => 1)));
          await answers.all;
        }
        return out;
      } finally {
        answers?.cancel();
      }
    },
    /** Forgets every cached value in this process. */
    forget,
    /** A notification on the channel (main.ts): a change's, forget and answer it; an answer, count it. */
    heard(payload: string): void {
      if (payload.startsWith(ACK)) {
        waits.get(payload.slice(ACK.length))?.();
        return;
      }
      forget();
      if (payload && ackVia) announce(ackVia, ACK + payload).catch(() => undefined);
    },
    /** This process LISTENs on the channel from now on: it answers changes, and its changes wait for every answer. */
    listened(db: Db): void {
      ackVia = db;
    },
    onForget(f: () => void): void {
      forgetters.push(f);
    },
  };
}

export type ConfigChanges = ReturnType<typeof createConfigChanges>;

/**
 * Values kept for `ttlMs` per key. Only found values are kept: a miss (an unknown key, a guess)
 * always reaches the database, so misses cannot fill the map. A found value that `keep` refuses
 * is returned without being kept.
 *
 * Under load a read waits behind every other statement in the pool's queue, so an expiry must not
 * send every request of a busy key there at once, nor make them wait: a kept value is read again
 * in the background by the first request of its second half of life (the others still get it,
 * never past its TTL), and requests that find it expired share the read under way. A read that a
 * clear() overtook is answered to its requests but not kept: it may predate the change.
 */
export function createTtlCache<V>(ttlMs = CONFIG_TTL_MS, maxEntries = 10_000, now = () => Date.now()) {
  const entries = new Map<string, { value: V; until: number }>();
  const reads = new Map<string, Promise<V | null | undefined>>();
  let generation = 0;

  function read(key: string, load: () => Promise<V | null | undefined>, keep: (value: V) => boolean, join = true) {
    const under = reads.get(key);
    if (under && join) return under;
    const started = generation;
    const p = load().then((value) => {
      if (started !== generation) return value;
      if (value === null || value === undefined || !keep(value)) entries.delete(key);
      else {
        if (entries.size >= maxEntries && !entries.has(key)) entries.clear();
        entries.set(key, { value, until: now() + ttlMs });
      }
      return value;
    }).finally(() => { if (reads.get(key) === p) reads.delete(key); });
    reads.set(key, p);
    return p;
  }

  return {
    async get(key: string, load: () => Promise<V | null | undefined>, keep: (value: V) => boolean = () => true): Promise<V | null> {
      const hit = entries.get(key);
      const t = now();
      if (hit && hit.until > t) {
        // One read at a time; a failed one is over, so the next request tries again.
        if (hit.until - t < ttlMs / 2 && !reads.has(key)) read(key, load, keep).catch(() => undefined);
        return hit.value;
      }
      // A read under way is shared when it finds a value to keep; a miss or a refusal is read
      // again by each request, as without the cache.
      const under = reads.get(key);
      if (under) {
        const value = await under.catch(() => undefined);
        if (value !== null && value !== undefined && keep(value)) return value;
        return (await read(key, load, keep, false)) ?? null;
      }
      return (await read(key, load, keep)) ?? null;
    },
    clear(): void {
      generation++;
      entries.clear();
    },
  };
}
