// Delivery schedules. Two kinds:
// - "endpoint": merchant webhook endpoints and the standard-envelope postbacks to a charge's
//   postback_url (they receive the same standard events as endpoints, so they get the same care).
// - "legacy": the camelCase charge.updated postback.
//
// A schedule is read as "wait, then attempt". nextAttemptDelayMs(kind, attemptsMade) answers
// how long to wait before the next attempt, including the first one (attemptsMade = 0), so
// the worker asks one question for every attempt and never special-cases the first.
export type RetryKind = "endpoint" | "legacy";

// The Svix schedule (docs/guarantees.md): the first attempt is immediate, then after each
// failure these delays (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). 1 + 7 = 8 attempts,
// the last about 27.6 h after the first; then the delivery is marked failed.
export const ENDPOINT_RETRY_DELAYS_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000];

// Legacy charge.updated: "3 attempts with exponential backoff of about 1 s, 2 s, 4 s between
// attempts" (the rule the legacy channel is promised with). Three attempts have only
// two gaps between them, so one of the three numbers must fall outside those gaps. We read
// the three delays as one per attempt: wait 1 s, attempt 1; on failure wait 2 s, attempt 2;
// on failure wait 4 s, attempt 3; then give up. So attempts happen about 1 s, 3 s and 7 s
// after the change (about 7 s in all, as docs/guarantees.md states), exactly 3
// in all, and every number of the rule is used with the doubling it describes.
// The alternative ("immediately, +1 s, +2 s") would drop the 4 s. The 1 s before the first
// attempt also helps the legacy integrators it exists for: a block-flow or 3DS refusal
// happens inside the request that creates the charge, and the short wait lets the caller
// receive and store the HTTP response before a postback about that charge arrives.
export const LEGACY_RETRY_DELAYS_SECONDS: readonly number[] = [1, 2, 4];

// Delay before the first attempt, then delays before each retry, per kind.
function scheduleSeconds(kind: RetryKind): readonly number[] {
  return kind === "endpoint" ? [0, ...ENDPOINT_RETRY_DELAYS_SECONDS] : LEGACY_RETRY_DELAYS_SECONDS;
}

export function maxAttempts(kind: RetryKind): number {
  return scheduleSeconds(kind).length;
}

// Endpoint retries get +-10% jitter so that a receiver coming back from an outage is not hit
// by every queued delivery in the same second (Standard Webhooks 2.3 asks for jitter). The
// legacy schedule is seconds long and specified as fixed values, so it has none.
const ENDPOINT_JITTER = 0.1;

/**
 * Milliseconds to wait before the next attempt, or null when all attempts are used.
 * `attemptsMade` counts attempts already made (0 before the first). `scale` is
 * WEBHOOK_RETRY_SCALE (1 in production, 0.001 in tests). `random` returns [0, 1).
 */
export function nextAttemptDelayMs(
  kind: RetryKind,
  attemptsMade: number,
  scale: number,
  random: () => number = Math.random,
): number | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 0) throw new RangeError("attemptsMade must be a non-negative integer");
  const seconds = scheduleSeconds(kind)[attemptsMade];
  if (seconds === undefined) return null;
  const jitter = kind === "endpoint" ? 1 + (random() * 2 - 1) * ENDPOINT_JITTER : 1;
  const ms = Math.round(seconds * 1000 * scale * jitter);
  // A negative or NaN scale (bad config) must not produce a negative or NaN timer.
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

// ---- Retry-After.
//
// A receiver answering 429 or 503 may say when to come back (RFC 9110 10.2.3: delta-seconds
// or an HTTP-date). We honour it within the schedule's bounds: never sooner than the schedule
// would retry anyway (a "Retry-After: 0" must not turn the backoff into a hot loop), never
// later than the schedule's longest step (a receiver cannot park a delivery for a month and so
// outlive its endpoint's 5-day disabling rule or the event's retention). It is still one
// attempt, so the number of attempts, and therefore the end of the schedule, is unchanged.

/** The longest wait between two attempts of a kind: 10 h for endpoints, 4 s for legacy (times scale). */
export function longestDelayMs(kind: RetryKind, scale: number): number {
  const ms = Math.round(Math.max(...scheduleSeconds(kind)) * 1000 * scale);
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

/** Milliseconds a Retry-After value asks for, or null when it is neither form. */
export function parseRetryAfterMs(value: string, now: number = Date.now()): number | null {
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Date.parse accepts nearly anything ("1.5" is a date in 2001); an HTTP-date always names
  // its weekday or month in letters, so require some.
  if (!/[a-z]{3}/i.test(value)) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

const showMs = (ms: number) => (ms < 1000 ? `${ms}ms` : `${Math.round(ms / 1000)}s`);

/**
 * The next delay when the receiver sent Retry-After with a failed attempt that will be
 * retried after `scheduledMs`, and a note for the delivery log; null when the header is
 * unusable (the schedule's own delay stands).
 */
export function honourRetryAfter(
  kind: RetryKind,
  scheduledMs: number,
  header: string,
  scale: number,
  now: number = Date.now(),
): { delayMs: number; note: string } | null {
  const asked = parseRetryAfterMs(header, now);
  if (asked === null) return null;
  // The ceiling never undercuts the scheduled delay (jitter may put a 10 h step slightly above 10 h).
  const ceiling = Math.max(scheduledMs, longestDelayMs(kind, scale));
  const delayMs = Math.min(Math.max(asked, scheduledMs), ceiling);
  const bound = asked < scheduledMs ? ", raised to the retry schedule" : asked > ceiling ? ", capped by the retry schedule" : "";
  // The header is the receiver's text: only a short piece of it goes into the log.
  return { delayMs, note: `next attempt in ${showMs(delayMs)} (Retry-After: ${header.slice(0, 64)}${bound})` };
}
