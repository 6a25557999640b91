import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  ENDPOINT_RETRY_DELAYS_SECONDS,
  honourRetryAfter,
  LEGACY_RETRY_DELAYS_SECONDS,
  longestDelayMs,
  maxAttempts,
  nextAttemptDelayMs,
  parseRetryAfterMs,
} from "../../src/modules/webhooks/retry-schedule.js";

const mid = () => 0.5; // jitter factor exactly 1
const low = () => 0; // jitter factor 0.9
const high = () => 0.999999; // jitter factor just under 1.1

function allDelays(kind: "endpoint" | "legacy", scale: number, random = mid): number[] {
  const out: number[] = [];
  for (let made = 0; ; made++) {
    const d = nextAttemptDelayMs(kind, made, scale, random);
    if (d === null) return out;
    out.push(d);
  }
}

describe("endpoint schedule", () => {
  it("is the Svix schedule", () => {
    assert.deepEqual(ENDPOINT_RETRY_DELAYS_SECONDS, [5, 300, 1800, 7200, 18000, 36000, 36000]);
  });

  it("has 8 attempts: immediately, then one after each delay", () => {
    assert.equal(maxAttempts("endpoint"), 8);
    assert.deepEqual(allDelays("endpoint", 1), [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
  });

  it("spans about 27.6 hours", () => {
    const hours = allDelays("endpoint", 1).reduce((a, b) => a + b, 0) / 3_600_000;
    assert.ok(hours > 27.5 && hours < 27.7, `${hours}`);
  });

  it("returns null once all attempts are made", () => {
    assert.equal(nextAttemptDelayMs("endpoint", 8, 1), null);
    assert.equal(nextAttemptDelayMs("endpoint", 100, 1), null);
  });

  it("jitters retries by at most 10% either way", () => {
    assert.equal(nextAttemptDelayMs("endpoint", 1, 1, low), 4_500);
    assert.equal(nextAttemptDelayMs("endpoint", 1, 1, high), 5_500);
    assert.equal(nextAttemptDelayMs("endpoint", 2, 1, low), 270_000);
    for (let i = 0; i < 200; i++) {
      const d = nextAttemptDelayMs("endpoint", 3, 1) ?? -1;
      assert.ok(d >= 1_620_000 && d <= 1_980_000, `${d}`);
    }
  });

  it("keeps the first attempt immediate whatever the jitter", () => {
    assert.equal(nextAttemptDelayMs("endpoint", 0, 1, high), 0);
  });
});

describe("legacy charge.updated schedule", () => {
  it("is exactly 3 attempts, after about 1 s, 2 s and 4 s", () => {
    assert.deepEqual(LEGACY_RETRY_DELAYS_SECONDS, [1, 2, 4]);
    assert.equal(maxAttempts("legacy"), 3);
    assert.deepEqual(allDelays("legacy", 1), [1_000, 2_000, 4_000]);
    assert.equal(nextAttemptDelayMs("legacy", 3, 1), null);
  });

  it("has no jitter", () => {
    assert.deepEqual(allDelays("legacy", 1, low), [1_000, 2_000, 4_000]);
    assert.deepEqual(allDelays("legacy", 1, high), [1_000, 2_000, 4_000]);
  });
});

describe("scale (WEBHOOK_RETRY_SCALE)", () => {
  it("multiplies every delay", () => {
    assert.deepEqual(allDelays("legacy", 0.001), [1, 2, 4]);
    assert.deepEqual(allDelays("endpoint", 0.001), [0, 5, 300, 1_800, 7_200, 18_000, 36_000, 36_000]);
    assert.deepEqual(allDelays("endpoint", 2).slice(0, 3), [0, 10_000, 600_000]);
  });

  it("does not change the number of attempts", () => {
    assert.equal(allDelays("endpoint", 0).length, 8);
    assert.equal(allDelays("legacy", 0).length, 3);
  });

  it("never yields a negative or non-finite delay", () => {
    assert.deepEqual(allDelays("legacy", -1), [0, 0, 0]);
    assert.deepEqual(allDelays("legacy", Number.NaN), [0, 0, 0]);
    assert.ok(allDelays("endpoint", 0, low).every((d) => d === 0));
  });
});

it("rejects a negative or fractional attemptsMade", () => {
  assert.throws(() => nextAttemptDelayMs("endpoint", -1, 1), RangeError);
  assert.throws(() => nextAttemptDelayMs("legacy", 1.5, 1), RangeError);
});

describe("Retry-After", () => {
  const now = Date.parse("2025-06-01T12:00:00.000Z");

  it("reads delta-seconds and the three HTTP-date forms", () => {
    assert.equal(parseRetryAfterMs("120", now), 120_000);
    assert.equal(parseRetryAfterMs("0", now), 0);
    assert.equal(parseRetryAfterMs("Sun, 01 Jun 2025 12:01:30 GMT", now), 90_000); // IMF-fixdate
    assert.equal(parseRetryAfterMs("Sunday, 01-Jun-25 12:01:30 GMT", now), 90_000); // RFC 850
    assert.equal(parseRetryAfterMs("Sun Jun  1 12:01:30 2025", now - new Date(now).getTimezoneOffset() * 60_000), 90_000); // asctime (local time in Date.parse)
  });

  it("reads a date in the past as now, and anything else as nothing", () => {
    assert.equal(parseRetryAfterMs("Sun, 01 Jun 2025 11:00:00 GMT", now), 0);
    for (const junk of ["", "soon", "1.5", "-5", "12 s", "Sun, 99 Foo 2025"]) assert.equal(parseRetryAfterMs(junk, now), null, junk);
  });

  it("is honoured within the schedule: at least the scheduled delay, at most its longest step", () => {
    assert.equal(longestDelayMs("endpoint", 1), 36_000_000);
    assert.equal(longestDelayMs("legacy", 1), 4_000);
    assert.equal(longestDelayMs("endpoint", 0.001), 36_000);
    assert.deepEqual(honourRetryAfter("endpoint", 5_000, "120", 1, now), { delayMs: 120_000, note: "next attempt in 120s (Retry-After: 120)" });
    assert.deepEqual(honourRetryAfter("endpoint", 5_000, "1", 1, now), {
      delayMs: 5_000, note: "next attempt in 5s (Retry-After: 1, raised to the retry schedule)",
    });
    assert.deepEqual(honourRetryAfter("endpoint", 5_000, "86400", 1, now), {
      delayMs: 36_000_000, note: "next attempt in 36000s (Retry-After: 86400, capped by the retry schedule)",
    });
    assert.equal(honourRetryAfter("legacy", 2_000, "60", 1, now)?.delayMs, 4_000);
    assert.equal(honourRetryAfter("endpoint", 5, "86400", 0.001, now)?.delayMs, 36_000);
    assert.equal(honourRetryAfter("endpoint", 5_000, "later", 1, now), null);
  });

  it("never undercuts a jittered step above the ceiling, nor yields NaN for a bad scale", () => {
    assert.equal(honourRetryAfter("endpoint", 39_000_000, "1", 1, now)?.delayMs, 39_000_000);
    assert.equal(honourRetryAfter("endpoint", 0, "60", Number.NaN, now)?.delayMs, 0);
  });

  it("logs only the start of a long header", () => {
    const note = honourRetryAfter("endpoint", 5_000, "9".repeat(500), 1, now)?.note ?? "";
    assert.ok(note.length < 150, note);
  });
});
