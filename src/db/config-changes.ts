import { sql } from "drizzle-orm";
import type { Queryable } from "./client.js";

// What every request reads and almost never changes (API keys, a merchant's row and fees, its
// Connect account and default split) is kept in memory for a few seconds per process. A change
// makes every process forget it all at once: the changing transaction NOTIFYs `feira_auth` (sent
// at commit; main.ts LISTENs in API processes), and the changing process forgets directly after
// its commit. The TTL bounds what a lost notification, or a read racing the change, can keep.
// Only what lets a request through is kept (`keep`): a refusal (an inactive merchant, a blocked
// submerchant) is read again every time, so lifting it is seen at once by every process, even one
// the notification has not reached yet. Imposing one waits for the notification, a few ms.
export const CONFIG_CHANGED_CHANNEL = "feira_auth";

export function createConfigChanges() {
  const forgetters: (() => void)[] = [];
  return {
    /** In the changing transaction: every process forgets when it commits. */
    announce: (tx: Queryable) => tx.execute(sql`select pg_notify(${CONFIG_CHANGED_CHANNEL}, '')`),
    /** Forgets every cached value in this process (after a commit, or on a notification). */
    forget(): void {
      for (const f of forgetters) f();
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
