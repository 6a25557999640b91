import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  computeChargeFees,
  computePayoutFee,
  feeFor,
  percentFor,
  selectFee,
  splitInstallments,
  type FeeDefinition,
  type FeeType,
} from "../../src/modules/ledger/fees.js";

function fee(
  feeType: FeeType,
  fixed: number,
  percentages: number[],
  over: Partial<Omit<FeeDefinition, "definition">> = {},
): FeeDefinition {
  return {
    feeType,
    paymentMethod: "credit_card",
    currencyCode: "BRL",
    brand: null,
    definition: { fixed, percentages },
    ...over,
  };
}

const CARD_SPREAD = fee("tx_spread", 30, [3.99, 4.49, 4.99, 5.49, 5.99, 6.49, 6.99, 7.49, 7.99, 8.49, 8.99, 9.49]);
const VISA_SPREAD = fee("tx_spread", 20, [2.99, 3.49], { brand: "Visa" });
const CARD_ANTICIPATION = fee("anticipation", 0, [0, 2.5, 3.5]);
const PIX_SPREAD = fee("tx_spread", 0, [0.99], { paymentMethod: "pix" });
const PIX_ANTICIPATION = fee("anticipation", 100, [5], { paymentMethod: "pix" });
const FEES = [CARD_SPREAD, VISA_SPREAD, CARD_ANTICIPATION, PIX_SPREAD, PIX_ANTICIPATION];

describe("selectFee", () => {
  const q = { feeType: "tx_spread", paymentMethod: "credit_card", currencyCode: "BRL" } as const;
  test("brand override wins over the default, whatever the order", () => {
    assert.equal(selectFee(FEES, { ...q, brand: "visa" }), VISA_SPREAD);
    assert.equal(selectFee([...FEES].reverse(), { ...q, brand: "VISA" }), VISA_SPREAD);
  });
  test("unknown brand, null or missing brand -> default", () => {
    assert.equal(selectFee(FEES, { ...q, brand: "mastercard" }), CARD_SPREAD);
    assert.equal(selectFee(FEES, { ...q, brand: null }), CARD_SPREAD);
    assert.equal(selectFee(FEES, q), CARD_SPREAD);
  });
  test("currency is case-insensitive, method is exact", () => {
    assert.equal(selectFee(FEES, { ...q, currencyCode: "brl" }), CARD_SPREAD);
    assert.equal(selectFee([fee("tx_spread", 0, [], { currencyCode: "brl" })], q)?.currencyCode, "brl");
    assert.equal(selectFee(FEES, { ...q, paymentMethod: "CREDIT_CARD" }), undefined);
  });
  test("other type, method or currency -> undefined", () => {
    assert.equal(selectFee(FEES, { ...q, feeType: "payout" }), undefined);
    assert.equal(selectFee(FEES, { ...q, paymentMethod: "boleto" }), undefined);
    assert.equal(selectFee(FEES, { ...q, currencyCode: "USD" }), undefined);
    assert.equal(selectFee([], q), undefined);
  });
  test("only a brand override and no default: other brands get nothing", () => {
    assert.equal(selectFee([VISA_SPREAD], { ...q, brand: "elo" }), undefined);
    assert.equal(selectFee([VISA_SPREAD], q), undefined);
  });
  test("pix selects the pix definition", () => {
    assert.equal(selectFee(FEES, { ...q, paymentMethod: "pix" }), PIX_SPREAD);
  });
});

describe("percentFor", () => {
  const cases: Array<[number[], number, number]> = [
    [[3.99, 4.49], 1, 3.99], [[3.99, 4.49], 2, 4.49], [[3.99, 4.49], 3, 4.49], [[3.99, 4.49], 12, 4.49],
    [[1.5], 12, 1.5], [[], 1, 0], [[], 12, 0],
  ];
  for (const [percentages, n, expected] of cases) {
    test(`${JSON.stringify(percentages)} at ${n}x -> ${expected}`, () => {
      assert.equal(percentFor(fee("tx_spread", 0, percentages), n), expected);
    });
  }
  test("installments below 1 or fractional throw", () => {
    assert.throws(() => percentFor(CARD_SPREAD, 0), RangeError);
    assert.throws(() => percentFor(CARD_SPREAD, 1.5), RangeError);
  });
});

describe("feeFor (exact, half-up once)", () => {
  const cases: Array<[number, number, number, bigint, string]> = [
    [30, 3.99, 10000, 429n, "30 + 399.0"],
    [30, 4.49, 10000, 479n, "30 + 449.0"],
    [0, 1.5, 100, 2n, "1.5 -> 2 (tie rounds up)"],
    [0, 2.5, 1, 0n, "0.025 -> 0"],
    [0, 2.5, 20, 1n, "0.5 -> 1 (tie rounds up)"],
    [0, 2.5, 60, 2n, "1.5 -> 2"],
    [0, 3.99, 50, 2n, "1.995 -> 2"],
    [0, 3.99, 1253, 50n, "49.9947 -> 50"],
    [0, 0.0001, 5000000, 5n, "4 decimals: 5.0"],
    [0, 0.0001, 5000, 0n, "0.005 -> 0"],
    [0, 0.0001, 50000, 0n, "0.05 -> 0"],
    [0, 0.0001, 500000, 1n, "0.5 -> 1 (tie rounds up)"],
    [30, 0.5, 101, 31n, "30 + 0.505 -> 30.505 -> 31 (one rounding, not 30 + round(0.505))"],
    [0, 1.15, 3000, 35n, "34.5 -> 35 (floats give 34.49999999999999 -> 34)"],
    [0, 4.35, 3000, 131n, "130.5 -> 131 (floats give 130.49999999999997 -> 130)"],
    [0, 2.55, 3000, 77n, "76.5 -> 77 (floats give 76.49999999999999 -> 76)"],
    [0, 0.29, 50, 0n, "0.145 -> 0"],
    [0, 1.15, 200, 2n, "2.3 -> 2"],
    [0, 0, 10000, 0n, "zero percent"],
    [0, 100, 9999, 9999n, "100 %"],
    [0, 3.99, Number.MAX_SAFE_INTEGER, 359387250264166n, "no overflow at 2^53 - 1"],
  ];
  for (const [fixed, pct, amount, expected, why] of cases) {
    test(`${fixed} + ${amount} * ${pct}% = ${expected} (${why})`, () => {
      assert.equal(feeFor(fixed, pct, amount), expected);
    });
  }
  test("invalid definitions throw", () => {
    assert.throws(() => feeFor(-1, 1, 100), RangeError);
    assert.throws(() => feeFor(0, -1, 100), RangeError);
    assert.throws(() => feeFor(0, Number.NaN, 100), RangeError);
    assert.throws(() => feeFor(0, 1, 1.5), RangeError);
    assert.throws(() => feeFor(0, 1, -1), RangeError);
  });
});

describe("computeChargeFees", () => {
  const base = { amountMinor: 10000, currency: "BRL", paymentMethod: "credit_card", installments: 1 };
  const cases: Array<[string, FeeDefinition[], Partial<typeof base> & { brand?: string | null }, [number, number, number]]> = [
    ["card 1x: spread only (anticipation 0 %)", FEES, {}, [429, 0, 9571]],
    ["card 2x: spread 479 + anticipation 2.5 %", FEES, { installments: 2 }, [479, 250, 9271]],
    ["card 3x", FEES, { installments: 3 }, [529, 350, 9121]],
    ["card 12x: anticipation falls back to the last rate", FEES, { installments: 12 }, [979, 350, 8671]],
    ["visa override at 1x", FEES, { brand: "visa" }, [319, 0, 9681]],
    ["visa override at 5x falls back to its own last rate", FEES, { brand: "Visa", installments: 5 }, [369, 350, 9281]],
    ["pix: spread, never anticipation", FEES, { paymentMethod: "pix" }, [99, 0, 9901]],
    ["currency with no definitions -> 0 fees", FEES, { currency: "USD" }, [0, 0, 10000]],
    ["method with no definitions -> 0 fees", FEES, { paymentMethod: "boleto" }, [0, 0, 10000]],
    ["no definitions at all", [], { installments: 3 }, [0, 0, 10000]],
    ["half-up on each fee", [fee("tx_spread", 0, [1.5]), fee("anticipation", 0, [2.5])], { amountMinor: 100 }, [2, 3, 95]],
    ["currency match is case-insensitive", FEES, { currency: "brl" }, [429, 0, 9571]],
    ["zero amount: the fixed 30 is capped to 0", FEES, { amountMinor: 0 }, [0, 0, 0]],
    ["fixed fee larger than amount -> spread capped, net 0", FEES, { amountMinor: 20 }, [20, 0, 0]],
    [
      "spread + anticipation exceed the amount -> anticipation capped, net 0",
      [fee("tx_spread", 50, [0]), fee("anticipation", 80, [0])],
      { amountMinor: 100 },
      [50, 50, 0],
    ],
    [
      "fees exactly equal to the amount",
      [fee("tx_spread", 60, [0]), fee("anticipation", 40, [0])],
      { amountMinor: 100 },
      [60, 40, 0],
    ],
  ];
  for (const [name, fees, over, [spread, anticipationFee, net]] of cases) {
    test(name, () => {
      const r = computeChargeFees(fees, { ...base, ...over });
      assert.deepEqual(r, { spread, anticipationFee, net });
      assert.equal(r.spread + r.anticipationFee + r.net, over.amountMinor ?? base.amountMinor);
    });
  }
  test("invalid amounts throw", () => {
    assert.throws(() => computeChargeFees(FEES, { ...base, amountMinor: 10.5 }), RangeError);
    assert.throws(() => computeChargeFees(FEES, { ...base, amountMinor: -1 }), RangeError);
  });
  test("net is never negative and parts always sum to the amount (seeded)", () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 2000; i++) {
      const fees = [
        fee("tx_spread", Math.floor(next() * 500), [Math.round(next() * 20000) / 100]),
        fee("anticipation", Math.floor(next() * 500), [Math.round(next() * 1000000) / 10000]),
      ];
      const amountMinor = Math.floor(next() * 100000);
      const r = computeChargeFees(fees, { ...base, amountMinor, installments: 1 + Math.floor(next() * 12) });
      assert.ok(r.net >= 0 && r.spread >= 0 && r.anticipationFee >= 0, JSON.stringify(r));
      assert.equal(r.spread + r.anticipationFee + r.net, amountMinor);
    }
  });
});

describe("computePayoutFee", () => {
  const payout = (fixed: number, percentages: number[]) =>
    fee("payout", fixed, percentages, { paymentMethod: "pix" });
  const cases: Array<[number, number[], number, number, number]> = [
    [100, [1.5], 10000, 250, 9750],
    [100, [1.5, 9], 10000, 250, 9750], // only percentages[0] counts
    [0, [1.5], 100, 2, 98], // 1.5 -> 2
    [0, [2.5], 20, 1, 19], // 0.5 -> 1
    [150, [], 10000, 150, 9850],
    [0, [0], 1, 0, 1],
  ];
  for (const [fixed, percentages, amount, payoutFee, netAmount] of cases) {
    test(`${amount} with fixed ${fixed} and ${JSON.stringify(percentages)}`, () => {
      assert.deepEqual(computePayoutFee(payout(fixed, percentages), amount), { ok: true, payoutFee, netAmount });
    });
  }
  test("no payout fee configured -> error value", () => {
    assert.deepEqual(computePayoutFee(undefined, 10000), {
      ok: false,
      message: "no payout fee is configured for this submerchant",
    });
  });
  test("fee equal to or above the amount -> error value", () => {
    assert.deepEqual(computePayoutFee(payout(100, [0]), 100), {
      ok: false,
      message: "amount must be greater than the payout fee of 100 cents",
    });
    assert.equal(computePayoutFee(payout(100, [1.5]), 50).ok, false);
  });
  test("non-integer amount throws", () => {
    assert.throws(() => computePayoutFee(payout(100, [1]), 100.5), RangeError);
  });
});

describe("splitInstallments", () => {
  const cases: Array<[number, number, number[]]> = [
    [1000, 3, [334, 333, 333]],
    [1000, 1, [1000]],
    [1000, 4, [250, 250, 250, 250]],
    [100, 12, [12, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8]],
    [5, 12, [5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]],
    [0, 3, [0, 0, 0]],
    [Number.MAX_SAFE_INTEGER, 12, [750599937895089, ...Array<number>(11).fill(750599937895082)]],
  ];
  for (const [total, n, parts] of cases) {
    test(`${total} in ${n}`, () => assert.deepEqual(splitInstallments(total, n), parts));
  }
  test("invalid input throws", () => {
    assert.throws(() => splitInstallments(100, 0), RangeError);
    assert.throws(() => splitInstallments(100, 1.5), RangeError);
    assert.throws(() => splitInstallments(-1, 2), RangeError);
    assert.throws(() => splitInstallments(10.5, 2), RangeError);
  });
  test("parts sum to the total, first absorbs the remainder (seeded, 1..12)", () => {
    let seed = 2024;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 3000; i++) {
      const total = Math.floor(next() * 10 ** (1 + Math.floor(next() * 15)));
      for (let n = 1; n <= 12; n++) {
        const parts = splitInstallments(total, n);
        assert.equal(parts.length, n);
        assert.equal(parts.reduce((a, b) => a + b, 0), total, `${total} in ${n}`);
        const [first = 0, ...rest] = parts;
        const other = rest[0] ?? first;
        assert.ok(rest.every((p) => p === other && p >= 0));
        assert.ok(first >= other && first - other < n, `${total} in ${n}: ${parts.join(",")}`);
      }
    }
  });
});
