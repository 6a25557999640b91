import type { Db } from "../db/client.js";
import { send, Statement } from "../db/batch.js";

// The per-key limit, counted in leases. Every API process shares one count per key and window
// (a rate_limits row on PostgreSQL), but a process does not write it per request: it takes a
// lease of several tokens in one statement and spends them from memory. A request costs a
// database round trip only when its process's lease for that key runs out, so at the default
// limit of 100/s a busy key costs a few statements a second per process instead of one per
// request (the upsert per request cost about a third of the charge throughput).
//
// Windows are fixed and aligned to the epoch (second 0 to 1, 1 to 2, ... by each process's
// clock), so processes agree on the window without asking. Within a window the shared count only
// grows, and a lease is granted only the part of its size that keeps the count at the limit or
// under: all processes together are granted at most `points` tokens per window, exactly. Tokens
// not spent when the window ends are dropped, never carried over. What leases cost is the other
// way: a token leased by one process and not spent is refused to the others, so a key can be
// refused a little before the limit when its requests are spread over processes. Leases are kept
// small for that reason: an eighth of the limit at first, and, as the shared count nears the
// limit, a quarter of what is left (one token at the end).

/** Where leases are counted: PostgreSQL's rate_limits table, or this process's memory. */
export interface LeaseStore {
  /**
   * Adds `size` to the count of `key` in the window ending at `windowEnd` (a new window starts
   * from nothing) and answers the count after it.
   */
  lease(key: string, size: number, windowEnd: number): Promise<number>;
}

export function postgresLeases(db: Db): LeaseStore {
  return {
    async lease(key, size, windowEnd) {
      // One statement: the row of an earlier window starts over; a process whose clock is
      // behind (an earlier windowEnd) adds to the newer window, so it is counted, never lost.
      const rows = await send(db, new Statement("rate_limit_lease", (p) => `
        insert into rate_limits (key, points, expire) values (${p(0)}, ${p(1)}, ${p(2)})
        on conflict (key) do update set
          points = case when rate_limits.expire is null or rate_limits.expire < excluded.expire
            then excluded.points else rate_limits.points + excluded.points end,
          expire = greatest(rate_limits.expire, excluded.expire)
        returning points`, [key, size, new Date(windowEnd).toISOString()]));
      return Number(rows[0]!.points);
    },
  };
}

const MEMORY_KEYS_MAX = 10_000;

export function memoryLeases(now = () => Date.now()): LeaseStore {
  const counts = new Map<string, { points: number; expire: number }>();
  return {
    async lease(key, size, windowEnd) {
      const current = counts.get(key);
      if (current && current.expire >= windowEnd) {
        current.points += size;
        return current.points;
      }
      if (counts.size >= MEMORY_KEYS_MAX) {
        const t = now();
        for (const [k, v] of counts) if (v.expire <= t) counts.delete(k);
        if (counts.size >= MEMORY_KEYS_MAX) counts.clear();
      }
      counts.set(key, { points: size, expire: windowEnd });
      return size;
    },
  };
}

export interface Take {
  allowed: boolean;
  /** Tokens of the window not yet spent, as far as this process knows (its lease's included). */
  remaining: number;
  /** Until the window ends. */
  msBeforeNext: number;
}

interface Local {
  window: number;
  /** Leased and not spent. */
  tokens: number;
  /** The shared count as the last lease answered it. */
  total: number;
  pending: Promise<void> | undefined;
}

const LOCAL_KEYS_MAX = 10_000;

/** `points` per window of `durationMs`, per key, shared through `store` by leases. */
export function createLeasedBudget(store: LeaseStore, opts: { prefix: string; points: number; durationMs: number; now?: () => number }) {
  const { prefix, points, durationMs } = opts;
  const now = opts.now ?? (() => Date.now());
  const local = new Map<string, Local>();
  const firstLease = Math.max(1, Math.floor(points / 8));
  const leaseSize = (s: Local) => Math.max(1, Math.min(firstLease, Math.floor((points - s.total) / 4)));

  function stateOf(key: string, window: number): Local {
    let s = local.get(key);
    if (s && s.window === window) return s;
    if (!s && local.size >= LOCAL_KEYS_MAX) {
      for (const [k, v] of local) if (v.window < window) local.delete(k);
      if (local.size >= LOCAL_KEYS_MAX) local.clear();
    }
    s = { window, tokens: 0, total: 0, pending: undefined };
    local.set(key, s);
    return s;
  }

  return {
    /**
     * Spends one token of `key`, leasing more first when this process has none left. A request
     * is counted in the window it arrived in, even when the lease it waited for answers after
     * that window ended: the lease's tokens were counted there.
     */
    async take(key: string): Promise<Take> {
      const arrived = now();
      const window = Math.floor(arrived / durationMs);
      const end = (window + 1) * durationMs;
      const s = stateOf(key, window);
      const left = () => Math.max(0, end - now());
      for (;;) {
        if (s.tokens > 0) {
          s.tokens -= 1;
          return { allowed: true, remaining: Math.max(0, points - s.total + s.tokens), msBeforeNext: left() };
        }
        // Spent in every process (as far as the last lease said): refused from memory, so a
        // flood past the limit costs no round trip until the window ends.
        if (s.total >= points) return { allowed: false, remaining: 0, msBeforeNext: left() };
        // One lease at a time per key: requests that arrive meanwhile wait for it, then look again.
        if (!s.pending) {
          const size = leaseSize(s);
          s.pending = store.lease(`${prefix}:${key}`, size, end)
            .then((total) => {
              const granted = Math.min(size, Math.max(0, points - (total - size)));
              s.tokens += granted;
              s.total = Math.max(s.total, total);
            })
            .finally(() => { s.pending = undefined; });
        }
        await s.pending;
      }
    },
  };
}

export type LeasedBudget = ReturnType<typeof createLeasedBudget>;
