import { test } from "node:test";
import assert from "node:assert/strict";
import { isValidBoleto } from "@brazilian-utils/brazilian-utils/is-valid-boleto";
import { getBoletoInfo } from "@brazilian-utils/brazilian-utils/get-boleto-info";
import { barcodeToDigitableLine, buildBoleto, dueDateFactor, formatDigitableLine } from "../../src/lib/boleto.js";

// A Banco do Brasil boleto from brazilian-utils' own tests, its check digits recomputed independently.
const FIXTURE_LINE = "00190000090114971860168524522114675860000102656";
const FIXTURE_BARCODE = "00196758600001026560000001149718606852452211";

// linha -> barcode, the inverse permutation (brazilian-utils CONVERT_POSITIONS).
const lineToBarcode = (l: string): string => l.slice(0, 4) + l.slice(32, 47) + l.slice(4, 9) + l.slice(10, 20) + l.slice(21, 31);

// getBoletoInfo builds local-time dates; read them back with local getters.
const localIso = (d: Date): string =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;

test("barcode -> linha digitável reproduces the verified fixture", () => {
  assert.equal(barcodeToDigitableLine(FIXTURE_BARCODE), FIXTURE_LINE);
  assert.equal(lineToBarcode(FIXTURE_LINE), FIXTURE_BARCODE);
  assert.equal(formatDigitableLine(FIXTURE_LINE), "00190.00009 01149.718601 68524.522114 6 75860000102656");
  assert.throws(() => barcodeToDigitableLine("123"), /44 digits/);
  // Negative case: field 1's DV changed to 2 fails mod 10.
  assert.equal(isValidBoleto("00190000020114971860168524522114675860000102656"), false);
});

test("rebuilding the fixture from its parts gives the same barcode and line", () => {
  const boleto = buildBoleto({
    bankCode: "001",
    amountMinor: 102_656,
    dueDate: new Date("2018-07-15"),
    ourNumber: FIXTURE_BARCODE.slice(19),
  });
  assert.equal(boleto.barcode, FIXTURE_BARCODE);
  assert.equal(boleto.digitableLine, FIXTURE_LINE);
  assert.equal(boleto.dueDate, "2018-07-15");
});

test("due-date factor, including the 2025-02-22 restart", () => {
  assert.equal(dueDateFactor(new Date("2000-07-03")), "1000");
  assert.equal(dueDateFactor(new Date("2018-07-15")), "7586");
  assert.equal(dueDateFactor(new Date("2025-02-21")), "9999");
  assert.equal(dueDateFactor(new Date("2025-02-22")), "1000");
  assert.equal(dueDateFactor(new Date("2025-02-23")), "1001");
  assert.equal(dueDateFactor(new Date("2026-02-22")), "1365");
  assert.equal(dueDateFactor(new Date("2026-12-01")), "1647");
  assert.equal(dueDateFactor(new Date("2043-03-06")), "7586");
  assert.equal(dueDateFactor(new Date("2049-10-13")), "9999");
  // The time of day does not move the calendar day (UTC).
  assert.equal(dueDateFactor(new Date("2025-02-22T23:59:59Z")), "1000");
  assert.throws(() => dueDateFactor(new Date("2000-07-02")), /dueDate/);
  assert.throws(() => dueDateFactor(new Date("2049-10-14")), /dueDate/);
  assert.throws(() => dueDateFactor(new Date("not a date")), /valid date/);
});

test("generated boletos pass the library validator and decode to the same data", () => {
  const cases = [
    { bankCode: "001", amountMinor: 1, dueDate: "2026-12-01", ourNumber: "1" },
    { bankCode: "237", amountMinor: 15_990, dueDate: "2026-12-24", ourNumber: "20260000000042" },
    { bankCode: "341", amountMinor: 9_999_999_999, dueDate: "2027-01-31", ourNumber: "9".repeat(25) },
    { bankCode: "104", amountMinor: 123_456, dueDate: "2025-02-22", ourNumber: "0" },
  ];
  for (const c of cases) {
    const boleto = buildBoleto({ ...c, dueDate: new Date(c.dueDate) });
    assert.match(boleto.barcode, /^\d{44}$/);
    assert.match(boleto.digitableLine, /^\d{47}$/);
    assert.equal(lineToBarcode(boleto.digitableLine), boleto.barcode);
    assert.equal(boleto.formattedLine.replace(/[ .]/g, ""), boleto.digitableLine);
    assert.equal(boleto.dueDate, c.dueDate);
    assert.equal(isValidBoleto(boleto.digitableLine), true, JSON.stringify(c));
    assert.equal(isValidBoleto(boleto.formattedLine), true);
    const info = getBoletoInfo(boleto.digitableLine, { referenceDate: new Date("2026-11-22") });
    assert.ok(info);
    assert.equal(info.amount, c.amountMinor);
    assert.equal(info.bankCode, c.bankCode);
    assert.ok(info.expirationDate);
    assert.equal(localIso(info.expirationDate), c.dueDate);
  }
});

test("many random boletos stay valid (mod 10 and mod 11 over all digit patterns)", () => {
  let seed = 42;
  const next = (n: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % n;
  };
  for (let i = 0; i < 500; i++) {
    const boleto = buildBoleto({
      bankCode: String(next(1000)).padStart(3, "0"),
      amountMinor: 1 + next(2_000_000_000),
      dueDate: new Date(Date.UTC(2025, 1, 22 + next(8000))),
      ourNumber: String(next(2 ** 31)) + String(next(2 ** 31)),
    });
    assert.equal(isValidBoleto(boleto.digitableLine), true, boleto.digitableLine);
  }
});

test("amounts that do not fit 10 digits, and bad inputs, throw", () => {
  const base = { bankCode: "001", amountMinor: 100, dueDate: new Date("2026-12-01"), ourNumber: "1" };
  assert.throws(() => buildBoleto({ ...base, amountMinor: 10_000_000_000 }), /amountMinor/);
  assert.throws(() => buildBoleto({ ...base, amountMinor: 0 }), /amountMinor/);
  assert.throws(() => buildBoleto({ ...base, amountMinor: 10.5 }), /amountMinor/);
  assert.throws(() => buildBoleto({ ...base, bankCode: "1" }), /bankCode/);
  assert.throws(() => buildBoleto({ ...base, ourNumber: "1".repeat(26) }), /ourNumber/);
  assert.throws(() => buildBoleto({ ...base, ourNumber: "12a" }), /ourNumber/);
});
