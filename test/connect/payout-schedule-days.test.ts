import { test } from "node:test";
import assert from "node:assert/strict";
import { latestDueDay, nextDueAt, type PayoutSchedule } from "../../src/modules/connect/payout-schedule.js";

// The due days of payout schedules at fixed dates (the HTTP tests walk the test clock from
// today): 06:00 in Brasília is 09:00 UTC; ISO weekdays, 1 = Monday .. 7 = Sunday.

const daily: PayoutSchedule = { interval: "daily", weekDay: null, monthDay: null, minimumAmount: 0 };
const sunday: PayoutSchedule = { interval: "weekly", weekDay: 7, monthDay: null, minimumAmount: 0 };
const monday: PayoutSchedule = { interval: "weekly", weekDay: 1, monthDay: null, minimumAmount: 0 };
const month = (monthDay: number): PayoutSchedule => ({ interval: "monthly", weekDay: null, monthDay, minimumAmount: 0 });
const at = (iso: string) => new Date(iso);

test("06:00 Brasília is the boundary: before it the day is not yet due, at it the day is", () => {
  assert.equal(nextDueAt(daily, at("2026-12-07T08:59:59.999Z")).toISOString(), "2026-12-07T09:00:00.000Z");
  assert.equal(nextDueAt(daily, at("2026-12-07T09:00:00.000Z")).toISOString(), "2026-12-08T09:00:00.000Z");
  assert.equal(latestDueDay(daily, at("2026-12-07T08:59:59.999Z")), "2026-12-06");
  assert.equal(latestDueDay(daily, at("2026-12-07T09:00:00.000Z")), "2026-12-07");
  // 01:00 UTC on the 8th is still the 7th in Brasília (22:00).
  assert.equal(latestDueDay(daily, at("2026-12-08T01:00:00.000Z")), "2026-12-07");
});

test("weekly: weekDay 7 is Sunday, weekDay 1 Monday (2026-12-07 is a Monday)", () => {
  assert.equal(nextDueAt(sunday, at("2026-12-07T12:00:00Z")).toISOString(), "2026-12-13T09:00:00.000Z");
  assert.equal(nextDueAt(monday, at("2026-12-07T12:00:00Z")).toISOString(), "2026-12-14T09:00:00.000Z");
  assert.equal(latestDueDay(sunday, at("2026-12-12T23:00:00Z")), "2026-12-06");
});

test("monthly: across month ends, February and the year's end", () => {
  assert.equal(nextDueAt(month(28), at("2027-02-28T10:00:00Z")).toISOString(), "2027-03-28T09:00:00.000Z");
  assert.equal(nextDueAt(month(28), at("2027-02-27T10:00:00Z")).toISOString(), "2027-02-28T09:00:00.000Z");
  assert.equal(nextDueAt(month(1), at("2026-12-31T12:00:00Z")).toISOString(), "2027-01-01T09:00:00.000Z");
  assert.equal(latestDueDay(month(28), at("2027-03-01T12:00:00Z")), "2027-02-28");
  assert.equal(latestDueDay(month(15), at("2027-01-14T12:00:00Z")), "2026-12-15");
});
