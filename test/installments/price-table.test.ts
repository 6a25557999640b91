import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_INSTALLMENT_TERMS, installmentParts, installmentPlan, installmentPlans, type InstallmentTerms } from "../../src/lib/price-table.js";

// The price table at its edges. Expected values were computed apart, with 50-digit decimals
// (PMT = P·i / (1 - (1+i)^-n), each rounded half up once), not with this code.

const terms = (maxInstallments: number, interestFreeInstallments: number, monthlyInterestBasisPoints: number): InstallmentTerms =>
  ({ maxInstallments, interestFreeInstallments, monthlyInterestBasisPoints });

test("plans with interest: installment, total and the last part, at the table's edges", () => {
  const cases: [amount: number, t: InstallmentTerms, n: number, installment: number, total: number, last: number][] = [
    [100_000, terms(12, 1, 199), 12, 9450, 113_402, 9452], // PMT 9450.153...: the last takes +2
    [100_000, terms(12, 1, 199), 2, 51_497, 102_995, 51_498], // PMT 51497.401...
    [10_000, terms(12, 3, 999), 12, 1467, 17_603, 1466], // the highest rate: the last takes -1
    [123_456, terms(12, 6, 250), 7, 19_444, 136_106, 19_442], // PMT 19443.755...: half up
    [100_000, terms(12, 1, 1), 12, 8339, 100_065, 8336], // the lowest rate, 0.01 % a month
    [5000, terms(3, 2, 999), 3, 2010, 6031, 2011], // n = max
    [99, terms(12, 1, 299), 12, 10, 119, 9], // a small price still gives whole cents
  ];
  for (const [amount, t, n, installment, total, last] of cases) {
    const plan = installmentPlan(amount, t, n);
    assert.deepEqual(plan, { installments: n, installmentAmount: installment, totalAmount: total, interestFree: false }, `${amount} in ${n}`);
    const parts = installmentParts(plan!);
    assert.equal(parts.at(-1), last);
    assert.equal(parts.reduce((s, p) => s + p, 0), total, "the parts sum to the total");
  }
});

test("interest-free plans: the price, split half up, the last part taking the difference", () => {
  assert.deepEqual(installmentPlan(10_000, DEFAULT_INSTALLMENT_TERMS, 3), { installments: 3, installmentAmount: 3333, totalAmount: 10_000, interestFree: true });
  assert.deepEqual(installmentParts(installmentPlan(10_000, DEFAULT_INSTALLMENT_TERMS, 3)!), [3333, 3333, 3334]);
  // 1,005 / 2 = 502.5: half a cent rounds up, the last pays 502.
  assert.deepEqual(installmentParts(installmentPlan(1005, DEFAULT_INSTALLMENT_TERMS, 2)!), [503, 502]);
  // Up to the interest-free count the rate does not apply; one more and it does.
  const t = terms(12, 3, 199);
  assert.equal(installmentPlan(100_000, t, 3)!.interestFree, true);
  assert.equal(installmentPlan(100_000, t, 3)!.totalAmount, 100_000);
  assert.equal(installmentPlan(100_000, t, 4)!.interestFree, false);
  // A zero rate is interest-free whatever the count.
  assert.deepEqual(installmentPlan(100_000, terms(12, 1, 0), 12), { installments: 12, installmentAmount: 8333, totalAmount: 100_000, interestFree: true });
  // One installment is the price.
  assert.deepEqual(installmentPlan(4990, terms(12, 1, 999), 1), { installments: 1, installmentAmount: 4990, totalAmount: 4990, interestFree: true });
});

test("what is not offered: past the maximum, below a cent a part, and bad input", () => {
  assert.equal(installmentPlan(100_000, terms(6, 6, 0), 7), null);
  assert.equal(installmentPlan(100_000, terms(6, 6, 0), 0), null);
  // 7 cents in 12: 1 cent each would leave the last at -4; 1 cent in 2 parts leaves none for the last.
  assert.equal(installmentPlan(7, DEFAULT_INSTALLMENT_TERMS, 12), null);
  assert.equal(installmentPlan(1, terms(12, 1, 100), 2), null);
  assert.deepEqual(installmentPlans(1, DEFAULT_INSTALLMENT_TERMS).map((p) => p.installments), [1]);
  assert.equal(installmentPlans(100_000, DEFAULT_INSTALLMENT_TERMS).length, 12);
  assert.equal(installmentPlans(100_000, terms(4, 2, 150)).length, 4);
  assert.throws(() => installmentPlan(0, DEFAULT_INSTALLMENT_TERMS, 1), RangeError);
  assert.throws(() => installmentPlan(10.5, DEFAULT_INSTALLMENT_TERMS, 1), RangeError);
});
