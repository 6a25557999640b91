import { lt } from "drizzle-orm";
import type { FastifyBaseLogger, FastifyReply, onRequestAsyncHookHandler } from "fastify";
import { RateLimiterDrizzle, RateLimiterMemory } from "rate-limiter-flexible";
import type { Config } from "../config.js";
import type { Db } from "../db/client.js";
import { rateLimits } from "../db/schema.js";
import type { ConfigChanges } from "../db/config-changes.js";
import type { RequestCtx } from "../core/context.js";
import { clientAddressKey } from "../lib/client-address.js";
import { createLockout, createLoginThrottle, retryAfterSeconds, tooManyRequests, type Limiter, type LimiterOptions, type Lockout, type LockoutPolicy, type LoginThrottle } from "./lockout.js";
import { createLeasedBudget, memoryLeases, postgresLeases, type LeaseStore, type Take } from "../core/key-limit.js";

// Three limits: requests per API key (leased tokens, key-limit.ts), and, counted by
// rate-limiter-flexible (the lockouts of lockout.ts), failed logins (per account from one
// address, per account from all of them, per address) and failed authentications per client
// address. On PostgreSQL the counters live in the rate_limits table, so every API process shares
// them; the embedded database has one process, whose memory is the store.

export type { LockoutPolicy, LoginThrottle } from "./lockout.js";

export interface RateLimitPolicies {
  /** One account from one address: where guessing is stopped. */
  loginPair: LockoutPolicy;
  /** One account from every address together: a distributed guesser is slowed. */
  loginAccount: LockoutPolicy;
  loginAddress: LockoutPolicy;
  failedAuthAddress: LockoutPolicy;
}

const HOUR = 3600;
export const DEFAULT_RATE_LIMIT_POLICIES: RateLimitPolicies = {
  // From one address, the 5th failure in a row locks that address out of that account for 1 s,
  // then 2 s, 4 s ... 15 min: about 110 guesses a day. Only that pair: the owner signing in from
  // an address that has not been failing is not refused (OWASP's advice against lockouts that
  // let anyone lock a merchant out).
  loginPair: { lockAfter: 5, firstLockSeconds: 1, maxLockSeconds: 15 * 60, windowSeconds: 24 * HOUR },
  // From all addresses together, a guesser with many addresses meets this one: from the 20th
  // failure a day, 1 s doubling up to 5 min (about 300 guesses a day against one account). Its
  // lock refuses everyone, the owner too, but for minutes at most, with Retry-After saying how long.
  loginAccount: { lockAfter: 20, firstLockSeconds: 1, maxLockSeconds: 5 * 60, windowSeconds: 24 * HOUR },
  // An office behind one NAT shares an address: a larger daily budget, spread over accounts
  // (about 135 guesses a day).
  loginAddress: { lockAfter: 100, firstLockSeconds: 1, maxLockSeconds: HOUR, windowSeconds: 24 * HOUR },
  // Keys are 32 random characters and cannot be guessed; this throttles scanners (about 60
  // failures an hour).
  failedAuthAddress: { lockAfter: 50, firstLockSeconds: 1, maxLockSeconds: 15 * 60, windowSeconds: HOUR },
};

/** Met by requests whose credentials failed, on every route that needs them (see auth.ts). */
export interface AuthFailureGuard {
  /** Throws a 429 (with Retry-After) while the address is locked out. */
  check(ip: string, reply: FastifyReply): Promise<void>;
  recordFailure(ip: string, reply: FastifyReply): Promise<void>;
}

/** The per-key limit: a token of the second's budget, else of the burst's. */
export interface PerKeyLimit {
  take(key: string): Promise<Take>;
}

export interface RateLimits {
  perKey: PerKeyLimit | undefined;
  perKeyLimit: number;
  failedAuth: AuthFailureGuard;
  login: LoginThrottle;
  /** Deletes counters that expired over an hour ago (PostgreSQL; memory entries expire alone). */
  sweepExpired: (() => Promise<unknown>) | undefined;
}

const BURST_MULTIPLIER = 2;
const BURST_WINDOW_SECONDS = 5;

export function createRateLimits(deps: { config: Config; db: Db; policies?: Partial<RateLimitPolicies>; configChanges?: ConfigChanges }): RateLimits {
  const { config } = deps;
  const policies = { ...DEFAULT_RATE_LIMIT_POLICIES, ...deps.policies };
  const shared = Boolean(config.databaseUrl);
  // The table comes from the migrations (0002); the library never creates it. Its own
  // expiry sweep is off: sweepExpiredCounters runs one per process and stops it on close.
  const make = (opts: LimiterOptions): Limiter =>
    shared
      ? new RateLimiterDrizzle({ ...opts, storeClient: deps.db, schema: rateLimits, clearExpiredByTimeout: false })
      : new RateLimiterMemory(opts);

  const n = config.rateLimitPerKey;
  // Per second n requests, and when those are spent a burst bucket of 2n per 5 s: a client may
  // peak at 3n in one second and sustain about 1.4n. Counted in leases (key-limit.ts): a
  // request reaches the database only when its process's lease for the key runs out, and a key
  // spent everywhere is refused from memory until its window ends.
  const perKey = n > 0 ? createPerKeyLimit(n, shared ? postgresLeases(deps.db) : memoryLeases()) : undefined;

  const failedAuthAddress = createLockout(make, "auth_ip", policies.failedAuthAddress);
  // Read on every failed authentication (auth.ts; valid credentials never meet it). Each
  // process remembers what it read (see knownLocks), so a locked-out scanner's flood is refused
  // from memory without a round trip per request.
  const locks = shared
    ? knownLocks(failedAuthAddress, deps.configChanges, (policies.failedAuthAddress.rememberSeconds ?? 5) * 1000)
    : { lockedFor: (key: string) => failedAuthAddress.lockedFor(key), locked: () => undefined };
  const failedAuth: AuthFailureGuard = {
    // Fails open: authentication itself still runs, and keys cannot be guessed anyway.
    async check(ip, reply) {
      const waitMs = await locks.lockedFor(clientAddressKey(ip)).catch((err: unknown) => storeFailed(reply.log, err, 0));
      if (waitMs > 0) throw tooManyRequests(reply, waitMs, "Too many failed authentications from this address; retry later");
    },
    async recordFailure(ip, reply) {
      const key = clientAddressKey(ip);
      const seconds = await failedAuthAddress.recordFailure(key).catch((err: unknown) => storeFailed(reply.log, err, 0));
      if (seconds > 0) {
        locks.locked(key, seconds);
        // Every other process forgets what it knew, so the lock holds there from its next request.
        if (shared) await deps.configChanges?.announce(deps.db).catch((err: unknown) => storeFailed(reply.log, err, undefined));
      }
    },
  };

  // A success clears its pair's count only: the owner signing in must not hand a distributed
  // guesser a fresh account budget, nor an address a fresh one.
  const login = createLoginThrottle(
    createLockout(make, "login_pair", policies.loginPair, { clearOnSuccess: true }),
    createLockout(make, "login_acct", policies.loginAccount, { clearOnSuccess: false }),
    createLockout(make, "login_ip", policies.loginAddress, { clearOnSuccess: false }),
  );
  const sweepExpired = shared
    ? () => deps.db.delete(rateLimits).where(lt(rateLimits.expire, new Date(Date.now() - HOUR * 1000)))
    : undefined;
  return { perKey, perKeyLimit: n, failedAuth, login, sweepExpired };
}

function createPerKeyLimit(n: number, store: LeaseStore): PerKeyLimit {
  const second = createLeasedBudget(store, { prefix: "lease_key", points: n, durationMs: 1000 });
  const burst = createLeasedBudget(store, { prefix: "lease_key_burst", points: BURST_MULTIPLIER * n, durationMs: BURST_WINDOW_SECONDS * 1000 });
  return {
    async take(key) {
      const first = await second.take(key);
      if (first.allowed) return first;
      const extra = await burst.take(key);
      // Served from the burst: the second's budget is what the headers report (0 left).
      return { allowed: extra.allowed, remaining: 0, msBeforeNext: extra.allowed ? Math.min(first.msBeforeNext, extra.msBeforeNext) : first.msBeforeNext };
    },
  };
}

function storeFailed<T>(log: FastifyBaseLogger, err: unknown, fallback: T): T {
  log.warn({ err }, "rate-limit store failed; the limit is not applied to this request");
  return fallback;
}

const KNOWN_LOCKS_MAX = 10_000;

/**
 * A shared lockout's gate as this process last read it, per key, for a few seconds: a key with
 * no lock is read again after `ttlMs`, a locked one when its lock ends. A lock taken
 * by this process is known at once; one taken by another process is announced (configChanges),
 * which empties this map, and a read that was under way when an announcement came is not kept.
 * What a lost announcement costs is bounded: a process that had read "no lock" lets that address
 * try again for at most the TTL, and its first failure there re-locks it from this process's own
 * count, so a scanner gains at most one guess per process per lock.
 */
function knownLocks(lockout: Lockout, changes: ConfigChanges | undefined, ttlMs: number, now = () => Date.now()) {
  const known = new Map<string, { lockedUntil: number; until: number }>();
  let generation = 0;
  changes?.onForget(() => {
    generation++;
    known.clear();
  });
  const remember = (key: string, lockedUntil: number, until: number) => {
    if (known.size >= KNOWN_LOCKS_MAX) known.clear();
    known.set(key, { lockedUntil, until });
  };
  return {
    async lockedFor(key: string): Promise<number> {
      const t = now();
      const hit = known.get(key);
      if (hit && hit.until > t) return Math.max(hit.lockedUntil - t, 0);
      const seen = generation;
      const waitMs = await lockout.lockedFor(key);
      if (seen === generation) remember(key, t + waitMs, waitMs > 0 ? t + waitMs : t + ttlMs);
      return waitMs;
    },
    /** This process has just locked `key` for `seconds`. */
    locked(key: string, seconds: number): void {
      const until = now() + seconds * 1000;
      remember(key, until, until);
    },
  };
}

/** onRequest (src/http/hooks.ts), after authentication: the per-key limit and its headers. */
export function limitPerKey(limits: RateLimits): onRequestAsyncHookHandler | undefined {
  const { perKey, perKeyLimit } = limits;
  if (!perKey) return undefined;
  return async (req, reply) => {
    const key = limitKey(req.ctx);
    if (!key) return;
    let res: Take;
    try {
      res = await perKey.take(key);
    } catch (err) {
      return void storeFailed(req.log, err, undefined); // fails open
    }
    setHeaders(reply, perKeyLimit, res);
    if (!res.allowed) throw tooManyRequests(reply, res.msBeforeNext, `Too many requests for this API key: the limit is ${perKeyLimit} per second`);
  };
}

/** Starts the sweep of expired counters; answers the onClose hook that stops it. */
export function sweepExpiredCounters(log: FastifyBaseLogger, limits: RateLimits): (() => Promise<void>) | undefined {
  const { sweepExpired } = limits;
  if (!sweepExpired) return undefined;
  // Rows of keys that went quiet; every process sweeps, and the deletes are idempotent.
  const sweep = setInterval(() => {
    sweepExpired().catch((err: unknown) => log.warn({ err }, "rate-limit sweep failed"));
  }, 5 * 60_000);
  sweep.unref();
  return async () => clearInterval(sweep);
}

/** Merchant requests are counted per API key, or per merchant and environment for a JWT. */
function limitKey(ctx: RequestCtx | undefined): string | undefined {
  if (ctx?.actor.type === "api_key") return ctx.actor.id;
  if (ctx?.actor.type === "jwt") return `jwt:${ctx.merchantId}:${ctx.environment}`;
  return undefined; // public routes, the admin key, unknown routes
}

function setHeaders(reply: FastifyReply, limit: number, res: Take): void {
  reply.header("ratelimit-limit", String(limit));
  reply.header("ratelimit-remaining", String(Math.max(0, res.remaining)));
  reply.header("ratelimit-reset", String(retryAfterSeconds(res.msBeforeNext)));
}
