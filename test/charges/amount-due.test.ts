import { test } from "node:test";
import assert from "node:assert/strict";
import { daysBetween } from "../../src/lib/calendar.js";
import { amountDueOn, type DueTerms } from "../../src/modules/charges/amount-due.js";

// The amount a boleto or Pix with a due date asks on a day (CONTRACT.md section 13): table tests
// at the edges. Interest is simple, pro rata die: monthly percent / 30 per calendar day after the
// due date; the fine once; each part rounded half up to the cent on its own.

const terms = (t: Partial<DueTerms> = {}): DueTerms => ({ dueDate: "2026-01-31", payableUntil: "2026-03-31", ...t });
const due = (amount: number, t: DueTerms | null, day: string) => {
  const { principal, discount, fine, interest, total } = amountDueOn(amount, t, day);
  return [principal, discount, fine, interest, total];
};

test("calendar days between two dates: month ends, leap and common years", () => {
  const table: [string, string, number][] = [
    ["2026-01-31", "2026-01-31", 0],
    ["2026-01-31", "2026-02-01", 1],
    ["2026-01-31", "2026-03-01", 29], // 2026: February has 28 days
    ["2028-01-31", "2028-03-01", 30], // 2028: a leap year, 29 days in February
    ["2028-02-28", "2028-02-29", 1],
    ["2028-02-29", "2028-03-01", 1],
    ["2100-02-28", "2100-03-01", 1], // 2100: divisible by 100, not by 400: no leap day
    ["2000-02-28", "2000-03-01", 2], // 2000: divisible by 400: a leap day
    ["2026-12-31", "2027-01-01", 1],
    ["2026-02-01", "2026-01-31", -1],
  ];
  for (const [from, to, days] of table) assert.equal(daysBetween(from, to), days, `${from} -> ${to}`);
});

test("the due date itself asks the amount; the next day adds the fine once and a day of interest", () => {
  const t = terms({ fineBp: 200, interestMonthlyBp: 100 });
  // [principal, discount, fine, interest, total]
  assert.deepEqual(due(10_000, t, "2026-01-30"), [10_000, 0, 0, 0, 10_000]);
  assert.deepEqual(due(10_000, t, "2026-01-31"), [10_000, 0, 0, 0, 10_000], "on the due date: the amount");
  // 1 % a month of R$ 100.00 = R$ 1.00 / 30 a day = 3.33... cents -> 3
  assert.deepEqual(due(10_000, t, "2026-02-01"), [10_000, 0, 200, 3, 10_203]);
  assert.deepEqual(due(10_000, t, "2026-02-02"), [10_000, 0, 200, 7, 10_207], "6.67 cents -> 7: interest of the whole period, rounded once");
  // Across February's end (28 days in 2026): 29 days late on March 1st.
  assert.deepEqual(due(10_000, t, "2026-03-01"), [10_000, 0, 200, 97, 10_297]);
  // 30 days late: exactly the month's 1 %.
  assert.deepEqual(due(10_000, t, "2026-03-02"), [10_000, 0, 200, 100, 10_300]);
});

test("a leap year's February 29th counts as a day late", () => {
  const t = terms({ dueDate: "2028-02-28", payableUntil: "2028-04-30", interestMonthlyBp: 100 });
  assert.deepEqual(due(30_000, t, "2028-02-29"), [30_000, 0, 0, 10, 30_010]);
  assert.deepEqual(due(30_000, t, "2028-03-01"), [30_000, 0, 0, 20, 30_020]);
  const common = terms({ dueDate: "2027-02-28", payableUntil: "2027-04-30", interestMonthlyBp: 100 });
  assert.deepEqual(due(30_000, common, "2027-03-01"), [30_000, 0, 0, 10, 30_010], "no 29th in 2027: March 1st is one day late");
});

test("half a cent rounds up, less than half down, for the fine, the interest and the discount", () => {
  // 2 % of 25 cents = 0.5 -> 1; 2 % of 24 cents = 0.48 -> 0
  assert.deepEqual(due(25, terms({ fineBp: 200 }), "2026-02-01"), [25, 0, 1, 0, 26]);
  assert.deepEqual(due(24, terms({ fineBp: 200 }), "2026-02-01"), [24, 0, 0, 0, 24]);
  // 1.5 % of 1,234,567 cents = 18,518.505 -> 18,519
  assert.deepEqual(due(1_234_567, terms({ fineBp: 150 }), "2026-02-01"), [1_234_567, 0, 18_519, 0, 1_253_086]);
  // 1 % a month over 15 days of 100 cents = 0.5 -> 1; 14 days = 0.4667 -> 0
  const i = terms({ interestMonthlyBp: 100 });
  assert.deepEqual(due(100, i, "2026-02-15"), [100, 0, 0, 1, 101]);
  assert.deepEqual(due(100, i, "2026-02-14"), [100, 0, 0, 0, 100]);
  // 2.5 % off 1,001 cents = 25.025 -> 25; off 1,002 = 25.05 -> 25; off 1,020 = 25.5 -> 26
  const d = (amount: number) => due(amount, terms({ discount: { bp: 250, until: "2026-01-20" } }), "2026-01-20");
  assert.deepEqual(d(1_001), [1_001, 25, 0, 0, 976]);
  assert.deepEqual(d(1_020), [1_020, 26, 0, 0, 994]);
});

test("the discount applies up to and on its until day, never after; never after the due date either", () => {
  const t = terms({ fineBp: 200, interestMonthlyBp: 100, discount: { amountMinor: 500, until: "2026-01-20" } });
  assert.deepEqual(due(10_000, t, "2026-01-01"), [10_000, 500, 0, 0, 9_500]);
  assert.deepEqual(due(10_000, t, "2026-01-20"), [10_000, 500, 0, 0, 9_500], "on its until day");
  assert.deepEqual(due(10_000, t, "2026-01-21"), [10_000, 0, 0, 0, 10_000]);
  const toDue = terms({ fineBp: 200, discount: { bp: 1000, until: "2026-01-31" } });
  assert.deepEqual(due(10_000, toDue, "2026-01-31"), [10_000, 1_000, 0, 0, 9_000]);
  assert.deepEqual(due(10_000, toDue, "2026-02-01"), [10_000, 0, 200, 0, 10_200]);
});

test("no terms: the amount on any day; large amounts long overdue stay exact", () => {
  assert.deepEqual(due(10_000, null, "2030-01-01"), [10_000, 0, 0, 0, 10_000]);
  // R$ 90 billion, 1 % a month, 10,000 days late: amount x bp x days passes 2^53.
  const big = 9_000_000_000_000;
  const r = amountDueOn(big, terms({ interestMonthlyBp: 100, payableUntil: "2060-01-01" }), "2053-06-18");
  assert.equal(r.interest, 30_000_000_000_000, "9e12 x 1 % x 10,000 / 30: exactly 3e13 cents");
  assert.equal(daysBetween("2026-01-31", "2053-06-18"), 10_000);
});
