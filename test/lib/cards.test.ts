import { test } from "node:test";
import assert from "node:assert/strict";
import creditCardType from "credit-card-type";
import { BRAND_PREFIX_DIGITS, inspectCard, luhnValid, type CardInput } from "../../src/lib/cards.js";

const NOW = new Date("2026-11-22T12:00:00Z");
const card = (over: Partial<CardInput>): CardInput => ({
  number: "4111111111111111",
  expirationMonth: "12",
  expirationYear: "2030",
  cvv: "123",
  now: NOW,
  ...over,
});

// The sandbox test card numbers (README.md, "Sandbox").
const SANDBOX: Array<[string, string]> = [
  ["4111111111111111", "visa"],
  ["5555555555554444", "mastercard"],
  ["4000000000000002", "visa"],
  ["4000000000009995", "visa"],
  ["4000000000000119", "visa"],
  ["4000000000000259", "visa"],
  ["4000000000003220", "visa"],
  ["4000000000000101", "visa"],
];

test("sandbox numbers are Luhn-valid and detected", () => {
  for (const [number, brand] of SANDBOX) {
    assert.equal(luhnValid(number), true, number);
    const result = inspectCard(card({ number }));
    assert.ok(result.ok, number);
    assert.equal(result.brand, brand);
    assert.equal(result.firstSix, number.slice(0, 6));
    assert.equal(result.lastFour, number.slice(-4));
    assert.equal(result.number, number);
  }
});

test("brands, Brazilian ones included, map to feira ids", () => {
  const cases: Array<[string, string, string]> = [
    ["6362970000457013", "elo", "123"],
    ["5066991111111118", "elo", "123"],
    ["6062825624254001", "hipercard", "123"],
    ["6370950000000005", "hiper", "123"],
    ["378282246310005", "amex", "1234"],
    ["30569309025904", "diners", "123"],
    ["6011111111111117", "discover", "123"],
    ["3530111333300000", "jcb", "123"],
    ["6200000000000005", "unionpay", "123"],
    ["6759649826438453", "maestro", "123"],
    ["2223000048400011", "mastercard", "123"],
  ];
  for (const [number, brand, cvv] of cases) {
    const result = inspectCard(card({ number, cvv }));
    assert.ok(result.ok, `${brand}: ${JSON.stringify(result)}`);
    assert.equal(result.brand, brand);
  }
});

test("amex needs a 4-digit CVV, others 3", () => {
  const amex = inspectCard(card({ number: "378282246310005", cvv: "123" }));
  assert.deepEqual(amex.ok ? null : amex.field, "cvv");
  const visa = inspectCard(card({ cvv: "1234" }));
  assert.deepEqual(visa.ok ? null : visa.field, "cvv");
  for (const cvv of ["", "12", "12a", "12345"]) {
    const result = inspectCard(card({ cvv }));
    assert.equal(result.ok, false);
    assert.equal(result.ok ? null : result.field, "cvv");
  }
});

test("spaces and dashes are stripped from the number", () => {
  const result = inspectCard(card({ number: "4111 1111-1111 1111" }));
  assert.ok(result.ok);
  assert.equal(result.number, "4111111111111111");
});

test("unknown brand is allowed when Luhn-valid with 13-19 digits", () => {
  const result = inspectCard(card({ number: "1234567812345670", cvv: "1234" }));
  assert.ok(result.ok);
  assert.equal(result.brand, "unknown");
  const short = inspectCard(card({ number: "123456789012" }));
  assert.equal(short.ok ? null : short.field, "number");
});

test("Luhn-invalid and malformed numbers fail on field number", () => {
  for (const number of ["4111111111111112", "", "4111-abcd-1111-1111", "4".repeat(20)]) {
    const result = inspectCard(card({ number }));
    assert.equal(result.ok, false, number);
    assert.equal(result.ok ? null : result.field, "number");
  }
  assert.equal(luhnValid("4111111111111112"), false);
  assert.equal(luhnValid(""), false);
});

test("expiry: month forms, 2- and 4-digit years, the current month is still valid", () => {
  const ok = (expirationMonth: string, expirationYear: string) => {
    const result = inspectCard(card({ expirationMonth, expirationYear }));
    assert.ok(result.ok, `${expirationMonth}/${expirationYear}`);
    return result;
  };
  const a = ok("1", "30");
  assert.equal(a.expirationMonth, "01");
  assert.equal(a.expirationYear, "2030");
  assert.equal(ok("01", "2030").expirationMonth, "01");
  assert.equal(ok("11", "2026").expirationMonth, "11");
  assert.equal(ok("11", "26").expirationYear, "2026");
});

test("expired dates and bad months fail on the right field", () => {
  const field = (expirationMonth: string, expirationYear: string) => {
    const result = inspectCard(card({ expirationMonth, expirationYear }));
    return result.ok ? null : result.field;
  };
  assert.equal(field("10", "2026"), "expirationMonth");
  assert.equal(field("12", "2025"), "expirationYear");
  assert.equal(field("12", "25"), "expirationYear");
  assert.equal(field("13", "2030"), "expirationMonth");
  assert.equal(field("0", "2030"), "expirationMonth");
  assert.equal(field("", "2030"), "expirationMonth");
  assert.equal(field("1.5", "2030"), "expirationMonth");
  assert.equal(field("12", "203"), "expirationYear");
  assert.equal(field("12", "abcd"), "expirationYear");
});

test("the first day of a month, in UTC, decides expiry", () => {
  const dec1 = new Date("2026-12-01T00:00:00Z");
  const result = inspectCard(card({ expirationMonth: "11", expirationYear: "2026", now: dec1 }));
  assert.equal(result.ok ? null : result.field, "expirationMonth");
  const nov30 = new Date("2026-11-30T23:59:59Z");
  assert.ok(inspectCard(card({ expirationMonth: "11", expirationYear: "2026", now: nov30 })).ok);
});

test("messages never contain the card number or the CVV", () => {
  const inputs: Array<Partial<CardInput>> = [
    { number: "4111111111111112" },
    { number: "4111 1111 1111 1112" },
    { number: "41111111111" },
    { cvv: "98" },
    { cvv: "98765" },
    { number: "378282246310005", cvv: "987" },
    { expirationMonth: "13" },
    { expirationYear: "2020" },
  ];
  for (const over of inputs) {
    const input = card(over);
    const result = inspectCard(input);
    assert.equal(result.ok, false);
    if (result.ok) continue;
    const digits = input.number.replace(/\D/g, "");
    assert.ok(!result.message.includes(digits), result.message);
    assert.ok(!result.message.includes(input.number), result.message);
    assert.ok(!result.message.includes(digits.slice(-4)), result.message);
    assert.ok(!result.message.includes(input.cvv), result.message);
  }
});

test("brands are kept per prefix and length: no pattern of credit-card-type reads past the prefix", () => {
  // detectBrand keeps the library's answer per (first BRAND_PREFIX_DIGITS digits, length). That is
  // only right while every pattern of the library's table is at most that long: a version that
  // adds a longer one must fail here, not answer another card's brand.
  const longest = Math.max(...Object.values(creditCardType.types).flatMap((type) =>
    creditCardType.getTypeInfo(type).patterns.map((p) => String(Array.isArray(p) ? p[1] : p).length)));
  assert.ok(longest <= BRAND_PREFIX_DIGITS, `a pattern of ${longest} digits`);

  // The kept answer is the library's: numbers that share their first digits, with every length,
  // checked one after the other (the first of each fills the map, the others read it).
  const direct = (n: string) => {
    const type = creditCardType(n).find((c) => c.lengths.includes(n.length))?.type ?? "unknown";
    return ({ "american-express": "amex", "diners-club": "diners" } as Record<string, string>)[type] ?? type;
  };
  const luhnComplete = (body: string) => {
    for (let d = 0; d <= 9; d++) if (luhnValid(body + d)) return body + d;
    throw new Error("unreachable");
  };
  let seed = 7;
  const digits = (n: number) => Array.from({ length: n }, () => String((seed = (seed * 1103515245 + 12345) % 2 ** 31) % 10)).join("");
  let compared = 0;
  for (const prefix of ["41111111", "51051051", "22230000", "37828224", "30569309", "60111111", "35301113", "62000000", "67596498", "63629700", "50669911", "60628256", "63709500", "65165200"]) {
    for (let length = 13; length <= 19; length++) {
      for (let k = 0; k < 4; k++) {
        const number = luhnComplete(prefix + digits(length - prefix.length - 1));
        const result = inspectCard(card({ number, cvv: "1234" }));
        const brand = result.ok ? result.brand : /for (\w+)/.exec(result.message)?.[1] ?? "unknown";
        assert.equal(brand, direct(number), number);
        compared++;
      }
    }
  }
  assert.equal(compared, 14 * 7 * 4);
});
