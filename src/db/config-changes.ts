import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { withTx, type Db, type Queryable, type Tx } from "./client.js";

// What every request reads and almost never changes (API keys, a merchant's row and fees, its
// Connect account and default split) is kept in memory for a few seconds per process. A change
// makes every process forget it all at once: the changing transaction NOTIFYs `feira_auth` (sent
// at commit; main.ts LISTENs in API processes), and the changing process forgets directly after
// its commit. The TTL bounds what a lost notification, or a read racing the change, can keep.
// Only what lets a request through is kept (`keep`): a refusal (an inactive merchant, a blocked
// submerchant) is read again every time, so lifting it is seen at once by every process, even one
// the notification has not reached yet. Imposing one is seen when the notification arrives: the
// change answers only once its own notification has come back to its process (PostgreSQL signals
// every listener as the change commits), so the other processes have had it as long.
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
 */
export function createTtlCache<V>(ttlMs = 5_000, maxEntries = 10_000, now = () => Date.now()) {
  const entries = new Map<string, { value: V; until: number }>();
  return {
    async get(key: string, load: () => Promise<V | null | undefined>, keep: (value: V) => boolean = () => true): Promise<V | null> {
      const hit = entries.get(key);
      if (hit && hit.until > now()) return hit.value;
      const value = await load();
      if (value === null || value === undefined) {
        entries.delete(key);
        return null;
      }
      if (!keep(value)) entries.delete(key);
      else {
        if (entries.size >= maxEntries) entries.clear();
        entries.set(key, { value, until: now() + ttlMs });
      }
      return value;
    },
    clear(): void {
      entries.clear();
    },
  };
}
