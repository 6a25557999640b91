import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  ENDPOINT_RETRY_DELAYS_SECONDS,
  LEGACY_RETRY_DELAYS_SECONDS,
  maxAttempts,
  nextAttemptDelayMs,
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
  it("is the Svix schedule from CONTRACT 6", () => {
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
