import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { withTx, type Db, type Queryable, type Tx } from "./client.js";

// What every request reads and almost never changes (API keys, a merchant's row and fees, its
// Connect account and default split) is kept in memory for a few seconds per process. A change
// makes every process forget it all at once: the changing transaction NOTIFYs `feira_auth` (sent
// at commit; main.ts LISTENs in API processes), and the changing process forgets directly after
// its commit. The TTL bounds what a lost notification can keep; a read that was under way when a
// process forgot is answered but not kept.
// Only what lets a request through is kept (`keep`): a refusal (an inactive merchant, a blocked
// submerchant) is read again every time, so lifting it is seen at once by every process, even one
// the notification has not reached yet. Imposing one is seen when the notification arrives: the
// change answers only once its own notification has come back to its process (PostgreSQL signals
// every listener as the change commits), so the others have usually had it as long. Not always:
// each listener's backend delivers it on its own, so on a starved machine another process can
// answer a request or two from its cache first (seen in CI's topology run), never past the TTL.
export const CONFIG_CHANGED_CHANNEL = "feira_auth";

/** How long a change waits for its notification to come back before answering anyway. */
const ECHO_WAIT_MS = 1_000;

export function createConfigChanges() {
  const forgetters: (() => void)[] = [];
  const echoes = new Map<string, () => void>();
  let listening = false;
  const forget = () => {
    for (const f of forgetters) f();
  };
  const announce = (q: Queryable, token = "") => q.execute(sql`select pg_notify(${CONFIG_CHANGED_CHANNEL}, ${token})`);

  /** Resolves when `token` comes back, or after ECHO_WAIT_MS (a lost notification). */
  function echoOf(token: string): { heard: Promise<void>; cancel(): void } {
    let timer: NodeJS.Timeout | undefined;
    const heard = new Promise<void>((resolve) => {
      echoes.set(token, resolve);
      timer = setTimeout(resolve, ECHO_WAIT_MS);
      timer.unref();
    });
    return { heard, cancel: () => { clearTimeout(timer); echoes.delete(token); } };
  }

  return {
    /** In a transaction (or alone): every listening process forgets when it commits. */
    announce,
    /**
     * Runs `work` in a transaction that announces the change, then forgets here and, in a process
     * that listens, waits for the announcement to come back before returning.
     */
    async change<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
      const token = listening ? randomUUID() : "";
      const echo = token ? echoOf(token) : undefined;
      try {
        const out = await withTx(db, async (tx) => {
          const result = await work(tx);
          await announce(tx, token);
          return result;
        });
        forget();
        await echo?.heard;
        return out;
      } finally {
        echo?.cancel();
      }
    },
    /** Forgets every cached value in this process. */
    forget,
    /** A notification on the channel (main.ts): forget, and end the wait of the change that sent it. */
    heard(payload: string): void {
      forget();
      echoes.get(payload)?.();
    },
    /** This process LISTENs on the channel from now on, so its changes wait for their echo. */
    listened(): void {
      listening = true;
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
export function createTtlCache<V>(ttlMs = 5_000, maxEntries = 10_000, now = () => Date.now()) {
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
