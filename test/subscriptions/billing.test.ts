import { test } from "node:test";
import assert from "node:assert/strict";
import { boundary, nextRetryAt, nextRunAt, periodBounds, usesBillingDay } from "../../src/modules/subscriptions/billing.js";
import { assertTransition, canTransition } from "../../src/modules/subscriptions/subscription-status.js";

const d = (s: string) => new Date(s);
const month = { interval: "month" as const, intervalCount: 1 };

test("monthly boundaries fall on the billing day, clamped per month without sticking", () => {
  const anchor = d("2027-01-31T10:00:00Z");
  const days = [1, 2, 3, 4].map((k) => boundary(anchor, 31, month, k).toISOString());
  assert.deepEqual(days, ["2027-02-28T10:00:00.000Z", "2027-03-31T10:00:00.000Z", "2027-04-30T10:00:00.000Z", "2027-05-31T10:00:00.000Z"]);
  assert.equal(boundary(d("2028-01-30T00:00:00Z"), 30, month, 1).toISOString(), "2028-02-29T00:00:00.000Z", "leap year");
});

test("period 0 starts at the anchor and ends on the next billing day", () => {
  const p = periodBounds(d("2027-03-15T12:00:00Z"), 10, month, 0);
  assert.equal(p.start.toISOString(), "2027-03-15T12:00:00.000Z");
  assert.equal(p.end.toISOString(), "2027-04-10T12:00:00.000Z");
  const p3 = periodBounds(d("2027-03-15T12:00:00Z"), 10, month, 3);
  assert.equal(p3.start.toISOString(), "2027-06-10T12:00:00.000Z");
  assert.equal(p3.end.toISOString(), "2027-07-10T12:00:00.000Z");
});

test("day, week, quarterly and yearly cadences", () => {
  const a = d("2027-12-30T08:00:00Z");
  assert.equal(boundary(a, 30, { interval: "day", intervalCount: 3 }, 2).toISOString(), "2028-01-05T08:00:00.000Z");
  assert.equal(boundary(a, 30, { interval: "week", intervalCount: 1 }, 1).toISOString(), "2028-01-06T08:00:00.000Z");
  assert.equal(boundary(a, 30, { interval: "month", intervalCount: 3 }, 1).toISOString(), "2028-03-30T08:00:00.000Z");
  assert.equal(boundary(d("2028-02-29T00:00:00Z"), 29, { interval: "year", intervalCount: 1 }, 1).toISOString(), "2029-02-28T00:00:00.000Z");
  assert.equal(usesBillingDay({ interval: "week", intervalCount: 1 }), false);
  assert.equal(usesBillingDay({ interval: "year", intervalCount: 2 }), true);
});

test("retries count from the previous attempt and run out", () => {
  const at = d("2027-01-01T00:00:00Z");
  assert.equal(nextRetryAt(at, 1, [1, 3, 5])!.toISOString(), "2027-01-02T00:00:00.000Z");
  assert.equal(nextRetryAt(at, 3, [1, 3, 5])!.toISOString(), "2027-01-06T00:00:00.000Z");
  assert.equal(nextRetryAt(at, 4, [1, 3, 5]), null);
  assert.equal(nextRetryAt(at, 1, []), null);
});

test("the next run: period end, the open invoice's next attempt, the activation window, never when stopped", () => {
  const base = { createdAt: d("2027-01-01T00:00:00Z"), currentPeriodStart: d("2027-01-01T00:00:00Z"), currentPeriodEnd: d("2027-02-01T00:00:00Z"), cancelAtPeriodEnd: false, openInvoiceDueAt: null };
  assert.equal(nextRunAt({ ...base, status: "active" })!.toISOString(), "2027-02-01T00:00:00.000Z");
  assert.equal(nextRunAt({ ...base, status: "active", openInvoiceDueAt: d("2027-01-05T00:00:00Z") })!.toISOString(), "2027-01-05T00:00:00.000Z");
  assert.equal(nextRunAt({ ...base, status: "active", cancelAtPeriodEnd: true, openInvoiceDueAt: d("2027-03-05T00:00:00Z") })!.toISOString(), "2027-02-01T00:00:00.000Z");
  assert.equal(nextRunAt({ ...base, status: "pending_activation" })!.toISOString(), "2027-01-01T23:00:00.000Z");
  for (const status of ["paused", "cancelled", "expired"]) assert.equal(nextRunAt({ ...base, status }), null);
  // Pix Automático: no activation window (the mandate decides), and each period issued 5 days ahead.
  assert.equal(nextRunAt({ ...base, status: "pending_activation", pixAutomatico: true }), null);
  assert.equal(nextRunAt({ ...base, status: "active", pixAutomatico: true })!.toISOString(), "2027-01-27T00:00:00.000Z");
  assert.equal(nextRunAt({ ...base, status: "active", pixAutomatico: true, cancelAtPeriodEnd: true })!.toISOString(), "2027-02-01T00:00:00.000Z");
});

test("the transition table", () => {
  assert.ok(canTransition("pending_activation", "active"));
  assert.ok(canTransition("active", "paused"));
  assert.ok(canTransition("paused", "active"));
  assert.ok(!canTransition("cancelled", "active"));
  assert.ok(!canTransition("expired", "cancelled"));
  assert.ok(!canTransition("pending_activation", "paused"));
  assert.throws(() => assertTransition("sub_1", "cancelled", "paused"), /sub_1 is cancelled; cannot pause it/);
});
