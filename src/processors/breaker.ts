// A circuit breaker per processor, with the clock given (tests move it by hand). After
// `failureThreshold` failures in a row the processor is skipped for `openMs`; then one call is
// let through (half open): its success closes the breaker, its failure opens it again. A
// trial that never reports back (its process died) stops blocking after another `openMs`.

export type BreakerStatus = "closed" | "open" | "half_open";

export interface BreakerOptions {
  failureThreshold: number;
  openMs: number;
}

export const DEFAULT_BREAKER: BreakerOptions = { failureThreshold: 5, openMs: 30_000 };

export interface BreakerView {
  status: BreakerStatus;
  /** Since when the breaker has had this status (epoch ms); null while it has always been closed. */
  since: number | null;
  consecutiveFailures: number;
  /** Every failure this process has recorded since it started (a Prometheus counter). */
  failures: number;
  /** The last failure (epoch ms), or null. */
  lastFailureAt: number | null;
  /** When an open breaker lets a trial through (epoch ms), else null. */
  retryAt: number | null;
}

export interface Breaker {
  /** Whether a call may go to the processor now; in half open, true for one trial at a time. */
  allow(): boolean;
  record(outcome: "success" | "failure"): void;
  view(): BreakerView;
}

export function createBreaker(now: () => number, opts: BreakerOptions = DEFAULT_BREAKER): Breaker {
  let failures = 0;
  let openedAt: number | null = null;
  let trialSince: number | null = null;
  let closedAt: number | null = null;
  let failuresTotal = 0;
  let lastFailureAt: number | null = null;

  const status = (): BreakerStatus => {
    if (openedAt === null) return "closed";
    return now() - openedAt >= opts.openMs ? "half_open" : "open";
  };

  return {
    allow() {
      const s = status();
      if (s === "closed") return true;
      if (s === "open") return false;
      if (trialSince !== null && now() - trialSince < opts.openMs) return false;
      trialSince = now();
      return true;
    },
    record(outcome) {
      trialSince = null;
      if (outcome === "success") {
        failures = 0;
        if (openedAt !== null) closedAt = now();
        openedAt = null;
        return;
      }
      failures++;
      failuresTotal++;
      lastFailureAt = now();
      // A failed trial reopens at once; a closed breaker opens at the threshold.
      if (openedAt !== null || failures >= opts.failureThreshold) openedAt = now();
    },
    view() {
      const s = status();
      const retryAt = s === "closed" ? null : openedAt! + opts.openMs;
      // Half open begins when the open period ends.
      const since = s === "closed" ? closedAt : s === "open" ? openedAt : retryAt;
      return { status: s, since, consecutiveFailures: failures, failures: failuresTotal, lastFailureAt, retryAt };
    },
  };
}
