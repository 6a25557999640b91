import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  currencyExponent,
  exactDecimal,
  formatMajor,
  maxAmountMinor,
  roundHalfUp,
  toMajor,
  toMinor,
} from "../../src/lib/money.js";

describe("currencyExponent", () => {
  const cases: Array<[string, number | undefined]> = [
    ["BRL", 2], ["USD", 2], ["EUR", 2], ["JPY", 0], ["KWD", 3], ["BHD", 3], ["CLF", 4],
    ["CLP", 0], ["ISK", 0], ["UYW", 4],
    ["XCG", 2], // missing from the package data, added by override
    ["XAU", undefined], ["XDR", undefined], ["XXX", undefined], ["XTS", undefined], // ISO "N.A."
    ["HRK", undefined], // withdrawn
    ["brl", undefined], ["Brl", undefined], ["BR", undefined], ["BRLX", undefined], [" BRL", undefined],
    ["ZZZ", undefined], ["", undefined], ["constructor", undefined], ["hasOwnProperty", undefined],
  ];
  for (const [code, expected] of cases) {
    test(`${JSON.stringify(code)} -> ${expected}`, () => {
      assert.equal(currencyExponent(code), expected);
    });
  }
});

describe("toMinor accepts", () => {
  const cases: Array<[unknown, string, number]> = [
    [10.1, "BRL", 1010],
    [0.29 + 1, "BRL", 129],
    [1.29, "BRL", 129],
    [19.99, "BRL", 1999], // 19.99 * 100 = 1998.9999999999998
    [1.15, "BRL", 115], // 1.15 * 100 = 114.99999999999999
    [4.35, "BRL", 435], // 4.35 * 100 = 434.99999999999994
    [1.3, "BRL", 130],
    [3.3, "BRL", 330], // while 1.1 + 2.2 is 3.3000000000000003 (see rejects)
    [1, "BRL", 100],
    [10, "BRL", 1000],
    [100, "JPY", 100],
    [1, "JPY", 1],
    [1.234, "KWD", 1234],
    [1.2345, "CLF", 12345],
    [9007199254740.99, "BRL", 900719925474099],
    [9007199254740991, "JPY", Number.MAX_SAFE_INTEGER],
    [90071992547409.9, "BRL", 9007199254740990],
    [1e10, "BRL", 1e12],
    [1.5e3, "USD", 150000],
  ];
  for (const [amount, currency, minor] of cases) {
    test(`${String(amount)} ${currency} -> ${minor}`, () => {
      assert.deepEqual(toMinor(amount, currency), { ok: true, minor });
    });
  }

  test("sub-unit amounts when the minimum allows them", () => {
    assert.deepEqual(toMinor(0.29, "BRL", { minUnits: 0 }), { ok: true, minor: 29 });
    // 0.3 is 30 cents, even though 0.1 + 0.2 is 0.30000000000000004 (see rejects)
    assert.deepEqual(toMinor(0.3, "BRL", { minUnits: 0 }), { ok: true, minor: 30 });
    assert.deepEqual(toMinor(0.07, "BRL", { minUnits: 0 }), { ok: true, minor: 7 }); // 0.07 * 100 = 7.000000000000001
    assert.deepEqual(toMinor(0.001, "KWD", { minUnits: 0 }), { ok: true, minor: 1 });
  });
  test("0.01 BRL with minUnits 0.01", () => {
    assert.deepEqual(toMinor(0.01, "BRL", { minUnits: 0.01 }), { ok: true, minor: 1 });
  });
  test("0 and -0 with minUnits 0 -> 0 (never -0)", () => {
    for (const v of [0, -0]) {
      const r = toMinor(v, "BRL", { minUnits: 0 });
      assert.deepEqual(r, { ok: true, minor: 0 });
      assert.ok(r.ok && Object.is(r.minor, 0));
    }
  });
});

describe("toMinor rejects", () => {
  const cases: Array<[string, unknown, string, string]> = [
    ["3 decimals for BRL", 1.005, "BRL", "amount must have at most 2 decimal places for BRL"],
    ["3 decimals, > 1", 10.123, "BRL", "amount must have at most 2 decimal places for BRL"],
    ["0.1 + 0.2", 0.1 + 0.2, "BRL", "amount must be at least 1"],
    ["1.1 + 2.2 (float sum)", 1.1 + 2.2, "BRL", "amount must have at most 2 decimal places for BRL"],
    ["zero", 0, "BRL", "amount must be at least 1"],
    ["negative zero", -0, "BRL", "amount must be at least 1"],
    ["negative", -10, "BRL", "amount must be at least 1"],
    ["below one unit", 0.5, "BRL", "amount must be at least 1"],
    ["just below one unit", 0.99, "BRL", "amount must be at least 1"],
    ["1e-7", 1e-7, "BRL", "amount must be at least 1"],
    ["NaN", Number.NaN, "BRL", "amount must be a finite number"],
    ["Infinity (JSON 1e400)", JSON.parse("1e400") as number, "BRL", "amount must be a finite number"],
    ["-Infinity", -Infinity, "BRL", "amount must be a finite number"],
    ["numeric string", "10", "BRL", "amount must be a number"],
    ["empty string", "", "BRL", "amount must be a number"],
    ["true", true, "BRL", "amount must be a number"],
    ["false", false, "BRL", "amount must be a number"],
    ["null", null, "BRL", "amount must be a number"],
    ["undefined", undefined, "BRL", "amount must be a number"],
    ["object", { value: 10 }, "BRL", "amount must be a number"],
    ["array", [10], "BRL", "amount must be a number"],
    ["bigint", 10n, "BRL", "amount must be a number"],
    ["Number object", new Number(10), "BRL", "amount must be a number"],
    ["JPY fraction", 1.5, "JPY", "amount must be a whole number for JPY"],
    ["KWD 4 decimals", 1.2345, "KWD", "amount must have at most 3 decimal places for KWD"],
    ["1e21", 1e21, "BRL", "amount is too large"],
    ["1e300", 1e300, "BRL", "amount is too large"],
    ["just above safe minor units", 90071992547409.94, "BRL", "amount is too large"],
    ["2^53 JPY", 2 ** 53, "JPY", "amount is too large"],
    ["unknown currency", 10, "ZZZ", "currency ZZZ is not a supported ISO 4217 code"],
    ["lowercase currency", 10, "brl", "currency brl is not a supported ISO 4217 code"],
  ];
  for (const [name, amount, currency, message] of cases) {
    test(name, () => {
      assert.deepEqual(toMinor(amount, currency), { ok: false, message });
    });
  }

  test("1e-7 with minUnits 0 fails on decimals", () => {
    assert.deepEqual(toMinor(1e-7, "BRL", { minUnits: 0 }), {
      ok: false,
      message: "amount must have at most 2 decimal places for BRL",
    });
  });
  test("negative with minUnits 0 is still rejected", () => {
    assert.deepEqual(toMinor(-1, "BRL", { minUnits: 0 }), { ok: false, message: "amount must be at least 0" });
  });
  test("field name is used in messages", () => {
    assert.deepEqual(toMinor("1", "BRL", { field: "items[0].unit_price" }), {
      ok: false,
      message: "items[0].unit_price must be a number",
    });
  });
  test("an invalid minimum is a programming error", () => {
    assert.throws(() => toMinor(10, "BRL", { minUnits: -1 }), RangeError);
    assert.throws(() => toMinor(10, "BRL", { minUnits: Number.NaN }), RangeError);
  });
});

describe("exactDecimal", () => {
  const cases: Array<[number, bigint, number]> = [
    [3.99, 399n, -2], [100, 1n, 2], [1e21, 1n, 21], [1.5e-7, 15n, -8], [1e-7, 1n, -7],
    [-2.5, -25n, -1], [0, 0n, 0], [-0, 0n, 0], [0.1 + 0.2, 30000000000000004n, -17],
  ];
  for (const [n, coefficient, exponent] of cases) {
    test(`${String(n)}`, () => assert.deepEqual(exactDecimal(n), { coefficient, exponent }));
  }
  test("non-finite -> undefined", () => {
    assert.equal(exactDecimal(Number.NaN), undefined);
    assert.equal(exactDecimal(Infinity), undefined);
  });
});

describe("toMajor / formatMajor", () => {
  const cases: Array<[number, string, number, string]> = [
    [1050, "BRL", 10.5, "10.50"],
    [1010, "BRL", 10.1, "10.10"],
    [5, "BRL", 0.05, "0.05"],
    [0, "BRL", 0, "0.00"],
    [-5, "BRL", -0.05, "-0.05"],
    [-123456, "BRL", -1234.56, "-1234.56"],
    [100, "JPY", 100, "100"],
    [1234, "KWD", 1.234, "1.234"],
    [7, "CLF", 0.0007, "0.0007"],
    [900719925474099, "BRL", 9007199254740.99, "9007199254740.99"],
    [Number.MAX_SAFE_INTEGER, "BRL", 90071992547409.91, "90071992547409.91"],
  ];
  for (const [minor, currency, major, text] of cases) {
    test(`${minor} ${currency}`, () => {
      assert.equal(toMajor(minor, currency), major);
      assert.equal(formatMajor(minor, currency), text);
    });
  }
  test("toMajor never returns -0", () => assert.ok(Object.is(toMajor(-0, "BRL"), 0)));
  test("non-integers and unknown currencies throw", () => {
    assert.throws(() => toMajor(10.5, "BRL"), RangeError);
    assert.throws(() => formatMajor(2 ** 53, "BRL"), RangeError);
    assert.throws(() => toMajor(1, "ZZZ"), RangeError);
    assert.throws(() => formatMajor(1, "brl"), RangeError);
  });

  test("toMinor(toMajor(m)) === m below 10^15 minor units (seeded)", () => {
    let seed = 42;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 5000; i++) {
      const digits = 3 + Math.floor(next() * 13); // 3..15 digits
      const m = Math.floor(next() * 10 ** digits) + 100;
      for (const currency of ["BRL", "KWD", "JPY"]) {
        if (m >= 10 ** 15) continue;
        const back = toMinor(toMajor(m, currency), currency, { minUnits: 0 });
        assert.deepEqual(back, { ok: true, minor: m }, `${m} ${currency}`);
        assert.equal(Number(formatMajor(m, currency)), toMajor(m, currency));
      }
    }
  });
});

describe("roundHalfUp", () => {
  const cases: Array<[bigint, bigint, bigint]> = [
    [15n, 10n, 2n], [14n, 10n, 1n], [25n, 10n, 3n], [149n, 100n, 1n], [150n, 100n, 2n],
    [-15n, 10n, -2n], [-14n, 10n, -1n], [15n, -10n, -2n], [-15n, -10n, 2n],
    [0n, 7n, 0n], [7n, 7n, 1n], [1n, 3n, 0n], [2n, 3n, 1n], [1n, 2n, 1n],
  ];
  for (const [n, d, expected] of cases) {
    test(`${n}/${d} -> ${expected}`, () => assert.equal(roundHalfUp(n, d), expected));
  }
  test("zero denominator throws", () => assert.throws(() => roundHalfUp(1n, 0n), RangeError));
});

describe("toMinor with a ceiling (maxMinor)", () => {
  test("the maximum itself is accepted, exactly, in every exponent", () => {
    assert.deepEqual(toMinor(999_999.99, "BRL", { maxMinor: 99_999_999 }), { ok: true, minor: 99_999_999 });
    assert.deepEqual(toMinor(99_999_999, "JPY", { maxMinor: 99_999_999 }), { ok: true, minor: 99_999_999 });
    assert.deepEqual(toMinor(99_999.999, "KWD", { maxMinor: 99_999_999 }), { ok: true, minor: 99_999_999 });
    assert.deepEqual(toMinor(0.07, "BRL", { maxMinor: 7, minUnits: 0 }), { ok: true, minor: 7 });
  });
  test("one minor unit more, or anything larger, is marked tooLarge and names the field", () => {
    for (const [amount, currency, message] of [
      [1_000_000, "BRL", "amount must be at most 999999.99 BRL"],
      [999_999.991, "BRL", "amount must be at most 999999.99 BRL"],
      [99_999_999_999.99, "BRL", "amount must be at most 999999.99 BRL"],
      [1e300, "BRL", "amount must be at most 999999.99 BRL"],
      [100_000_000, "JPY", "amount must be at most 99999999 JPY"],
      [100_000, "KWD", "amount must be at most 99999.999 KWD"],
    ] as const) {
      assert.deepEqual(toMinor(amount, currency, { maxMinor: 99_999_999 }), { ok: false, message, tooLarge: true }, `${amount} ${currency}`);
    }
    assert.deepEqual(toMinor(0.08, "BRL", { maxMinor: 7, minUnits: 0, field: "price" }), { ok: false, message: "price must be at most 0.07 BRL", tooLarge: true });
  });
  test("maxAmountMinor reads the currency's override, else the default", () => {
    const limits = { defaultMaxMinor: 99_999_999, maxMinorByCurrency: { JPY: 1000 } };
    assert.equal(maxAmountMinor(limits, "JPY"), 1000);
    assert.equal(maxAmountMinor(limits, "BRL"), 99_999_999);
    assert.equal(maxAmountMinor(limits, "toString"), 99_999_999);
  });
});
