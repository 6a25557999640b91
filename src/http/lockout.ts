import type { FastifyBaseLogger, FastifyReply } from "fastify";
import { RateLimiterRes, type RateLimiterDrizzle, type RateLimiterMemory } from "rate-limiter-flexible";
import { sha256Hex } from "../lib/crypto.js";
import { clientAddressKey } from "../lib/client-address.js";
import { AppError } from "../core/errors.js";

// A lockout (failures counted per key, then a lock that doubles) and the login throttle built of
// three of them; the limiters and their store are rate-limit.ts's.

/** Failures allowed, then a lockout that doubles with each further failure. */
export interface LockoutPolicy {
  /** The failure that reaches this count locks for firstLockSeconds; the ones before it are free. */
  lockAfter: number;
  firstLockSeconds: number;
  maxLockSeconds: number;
  /** Failures are counted over this window, fixed from the first one. */
  windowSeconds: number;
  /**
   * PostgreSQL, failed authentication only: how long a process keeps having read "no lock" for
   * an address before reading it again (default 5; see knownLocks).
   */
  rememberSeconds?: number;
}

export interface LoginThrottle {
  /**
   * Runs `checkPassword` unless the account from this address, the account from everywhere or
   * the address is locked out (then 429, and the password is never looked at). An
   * `unauthorized` error from it counts as a failure of all three.
   */
  attempt<T>(who: { email: string; ip: string }, reply: FastifyReply, checkPassword: () => Promise<T>): Promise<T>;
}

export type Limiter = RateLimiterMemory | RateLimiterDrizzle;
export interface LimiterOptions {
  keyPrefix: string;
  points: number;
  duration: number;
}

export const retryAfterSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** A 429 with Retry-After (whole seconds, at least 1). */
export function tooManyRequests(reply: FastifyReply, ms: number, message: string): AppError {
  reply.header("retry-after", String(retryAfterSeconds(ms)));
  return new AppError("rate_limited", message);
}

/** What one login attempt holds: kept if the password was wrong, released otherwise. */
interface Reservation {
  succeeded(): Promise<void>;
  abandoned(): Promise<void>;
}

export type Lockout = ReturnType<typeof createLockout>;

/**
 * A failure counter and a lock (the "gate") per key. The n-th failure, from `lockAfter` on, closes
 * the gate for firstLockSeconds * 2^(n - lockAfter), up to maxLockSeconds.
 */
export function createLockout(make: (o: LimiterOptions) => Limiter, name: string, policy: LockoutPolicy, opts = { clearOnSuccess: false }) {
  const failures = make({ keyPrefix: `${name}_fail`, points: policy.lockAfter, duration: policy.windowSeconds });
  const gate = make({ keyPrefix: `${name}_lock`, points: 1, duration: policy.maxLockSeconds });
  const lockSeconds = (n: number) =>
    n < policy.lockAfter ? 0 : Math.min(policy.firstLockSeconds * 2 ** (n - policy.lockAfter), policy.maxLockSeconds);

  return {
    /** Milliseconds the key must still wait; 0 when it may try. */
    async lockedFor(key: string): Promise<number> {
      const res = await gate.get(key);
      return res && res.consumedPoints > 0 ? Math.max(res.msBeforeNext, 0) : 0;
    },

    /**
     * Counts a failure that has happened (failed authentication: cheap, checked after the fact).
     * Returns the seconds of the lock it earned, 0 for none.
     */
    async recordFailure(key: string): Promise<number> {
      const seconds = lockSeconds((await failures.penalty(key)).consumedPoints);
      if (seconds > 0) await gate.block(key, seconds);
      return seconds;
    },

    /**
     * Counts the attempt as a failure before the password is checked, and, from the lockAfter-th
     * on, takes the gate with the lock this attempt earns if it fails. Taking the gate is
     * one atomic upsert: of many attempts sent at once, one runs and the others get the wait
     * in milliseconds, so parallel guesses gain nothing.
     */
    async reserve(key: string): Promise<Reservation | number> {
      const seconds = lockSeconds((await failures.penalty(key)).consumedPoints);
      if (seconds > 0) {
        try {
          await gate.consume(key, 1, { customDuration: seconds });
        } catch (err) {
          await failures.reward(key);
          if (err instanceof RateLimiterRes) return Math.max(err.msBeforeNext, 1);
          throw err;
        }
      }
      const undo = async () => {
        await failures.reward(key);
        if (seconds > 0) await gate.delete(key);
      };
      return {
        succeeded: opts.clearOnSuccess ? async () => { await Promise.all([failures.delete(key), gate.delete(key)]); } : undo,
        abandoned: undo,
      };
    },
  };
}

/**
 * Login fails closed: when the counters cannot be read or written it answers 503 rather than
 * check a password without counting. They live in the database that holds the password hashes,
 * so an outage that breaks them almost always breaks login anyway; keys keep working.
 */
export function createLoginThrottle(pair: Lockout, account: Lockout, address: Lockout): LoginThrottle {
  const unavailable = (log: FastifyBaseLogger, err: unknown) => {
    log.error({ err }, "login rate-limit store failed; login refused");
    return new AppError("unavailable", "Login is temporarily unavailable; retry later");
  };
  const locked = (reply: FastifyReply, ms: number) => tooManyRequests(reply, ms, "Too many failed login attempts; retry later");

  async function attempt<T>(who: { email: string; ip: string }, reply: FastifyReply, checkPassword: () => Promise<T>): Promise<T> {
    // The e-mail is hashed: the counters table needs no personal data to tell accounts apart.
    const accountKey = sha256Hex(who.email.trim().toLowerCase());
    const addressKey = clientAddressKey(who.ip);
    const keys: [Lockout, string][] = [
      [pair, `${accountKey}:${addressKey}`],
      [account, accountKey],
      [address, addressKey],
    ];
    const held: Reservation[] = [];
    const undo = () => Promise.all(held.map((r) => r.abandoned())).catch((err: unknown) => reply.log.warn({ err }, "login counter not released"));
    try {
      // A locked key is refused before anything is counted, so waiting never extends a lock.
      const waitMs = Math.max(...(await Promise.all(keys.map(([l, k]) => l.lockedFor(k)))));
      if (waitMs > 0) throw locked(reply, waitMs);
      for (const [lockout, key] of keys) {
        const r = await lockout.reserve(key);
        if (typeof r === "number") throw locked(reply, r);
        held.push(r);
      }
    } catch (err) {
      await undo();
      throw err instanceof AppError ? err : unavailable(reply.log, err);
    }

    let result: T;
    try {
      result = await checkPassword();
    } catch (err) {
      // A wrong password keeps its reservations: that is the counted failure.
      if (!(err instanceof AppError && err.code === "unauthorized")) await undo();
      throw err;
    }
    await Promise.all(held.map((r) => r.succeeded())).catch((err: unknown) => reply.log.warn({ err }, "login counter not cleared"));
    return result;
  }
  return { attempt };
}
