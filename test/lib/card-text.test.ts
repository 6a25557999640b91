import { test } from "node:test";
import assert from "node:assert/strict";
import { generateBoleto } from "@brazilian-utils/brazilian-utils/generate-boleto";
import { generateCnpj } from "@brazilian-utils/brazilian-utils/generate-cnpj";
import { generateCpf } from "@brazilian-utils/brazilian-utils/generate-cpf";
import { generatePhone } from "@brazilian-utils/brazilian-utils/generate-phone";
import { generateCep } from "@brazilian-utils/brazilian-utils/generate-cep";
import { formatBoleto } from "@brazilian-utils/brazilian-utils/format-boleto";
import { formatCnpj } from "@brazilian-utils/brazilian-utils/format-cnpj";
import { formatCpf } from "@brazilian-utils/brazilian-utils/format-cpf";
import { formatPhone } from "@brazilian-utils/brazilian-utils/format-phone";
import { holdsCardNumber } from "../../src/lib/card-text.js";
import { maskCardNumbers } from "../../src/lib/redact.js";
import { luhnValid } from "../../src/lib/cards.js";
import { buildBoleto } from "../../src/lib/boleto.js";

test("card numbers, bare, in text and with spaces, dots or dashes, are found", () => {
  for (const text of [
    "4111111111111111",
    "5555555555554444",
    "378282246310005", // Amex, 15 digits
    "36227206271667", // Diners, 14 digits
    "4222222222222", // 13 digits
    "6062828888666688", // Hipercard
    "6362970000457013", // Elo
    "4111 1111 1111 1111",
    "4111-1111-1111-1111",
    "4111.1111.1111.1111",
    "3782 822463 10005",
    "MARIA 4111111111111111 SILVA",
    "cartão: 4111 1111 1111 1111 123", // with its CVV
    "4111 1111 1111 1111 12 30", // with its expiry
    "ref 12 4111-1111-1111-1111",
    "tok4111111111111111x",
    "+55 11 4111 1111 1111 1111", // a "+" spares only the run's first group
    "+4111 1111 1111 1111", // 16 digits: no phone number is that long (E.164)
    "41 11 11 11 11 11 11 11", // in pairs
    "4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
    "joao.4111111111111111@example.com",
  ]) assert.equal(holdsCardNumber(text), true, text);
});

// Every way the groups of a number can be split, in every Unicode spelling of its digits: the
// detector reads the folded text (src/lib/text-fold.ts), so none of them hides the number.
const SEPARATORS = [" ", "\u00a0", "\t", "\n", "\r\n", "_", "/", ",", "+", "\u2014", "\u2013", ".", "-", ":", "\u3000", "\u00b7", "\u2028", "\ufe58"];
const INVISIBLE = ["\u200b", "\u200c", "\u2060", "\u00ad", "\ufeff", "\u200e", "\u0301"];
const GROUPINGS: [number: string, sizes: number[]][] = [
  ["4111111111111111", [4, 4, 4, 4]], ["4111111111111111", [2, 2, 2, 2, 2, 2, 2, 2]], ["5555555555554444", [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]],
  ["378282246310005", [4, 6, 5]], ["378282246310005", [3, 3, 3, 3, 3]], ["6011000990139424", [4, 4, 4, 4]], ["4222222222222", [4, 4, 4, 1]],
];
// Intl writes digits in other scripts; fullwide and mathbold are NFKC's, the others are Nd digits.
const SCRIPTS = ["latn", "fullwide", "arab", "arabext", "deva", "beng", "thai", "tibt", "mymr", "mathbold", "mathmono"];
const inScript = (digits: string, script: string) =>
  digits.replace(/\d/g, (d) => new Intl.NumberFormat(`en-u-nu-${script}`, { useGrouping: false }).format(Number(d)));
const spell = (number: string, sizes: number[], sep: string) => {
  const groups: string[] = [];
  let at = 0;
  for (const size of sizes) groups.push(number.slice(at, (at += size)));
  return groups.join(sep);
};

test("every separator, invisible character and script of digits spells the same card number", () => {
  for (const script of SCRIPTS.slice(1)) assert.notEqual(inScript("4", script), "4", `Intl knows ${script}`);
  for (const [number, sizes] of GROUPINGS) {
    for (const script of SCRIPTS) {
      const digits = inScript(number, script);
      for (const sep of [...SEPARATORS, ...INVISIBLE]) {
        const text = `pague com ${spell(digits, sizes.map((n) => n * [...digits][0]!.length), sep)} obrigado`;
        assert.equal(holdsCardNumber(text), true, `${script} ${JSON.stringify(sep)}: ${text}`);
        assert.equal(maskCardNumbers(text), `pague com ${number.slice(0, 6)}${"*".repeat(number.length - 10)}${number.slice(-4)} obrigado`, text);
      }
    }
  }
  // Circled, superscript and parenthesized digits fold through NFKC too.
  for (const text of ["④①①① ①①①① ①①①① ①①①①", "⁴¹¹¹ ¹¹¹¹ ¹¹¹¹ ¹¹¹¹", "4111 1111 1111 1111".replace(/ /g, "\u200b\u200b")]) {
    assert.equal(holdsCardNumber(text), true, text);
  }
});

test("a card number sent as a JSON number is found; other numbers are not", () => {
  assert.equal(holdsCardNumber(4111111111111111), true);
  assert.equal(holdsCardNumber(5555555555554444), true);
  assert.equal(holdsCardNumber(4111111111111112), false);
  assert.equal(holdsCardNumber(99999999999.99), false);
  assert.equal(holdsCardNumber(1795425223677), false); // 13 digits, fails Luhn
  for (const v of [null, true, undefined, {}, [], 12.5, 0, -4111111111111111]) assert.equal(holdsCardNumber(v), false, String(v));
});

test("numbers that are not card numbers pass", () => {
  for (const text of [
    "4111111111111112", // fails Luhn
    "411111111111", // 12 digits
    "41111111111111111111", // 20 digits, unseparated
    "411111******1111", // masked
    "4111  1111 1111 1111", // a double space ends a run
    "11222000010204", // a CNPJ that passes Luhn
    "11.222.000/0102-04",
    "+55 11 91234-5678", "+5511912345678", "55 11 91234-5678", "5511912345678", "(11) 91234-5678",
    "tamanhos 36 38 40 42 44 46 48",
    "ch_01m83vqv3jkenw3273kvhefegv",
    "2026-11-22T10:00:00.000Z", "2026-11-22 10:00:00.123", "30/11/2026 10:00:00", "4/11/2026 10:00:00", "6/11/2026 10:00:00.123",
    // Millisecond timestamps that pass Luhn, bare and in an e-mail: no card number starts with 17.
    "1767225600140", "joao.1767225600231@example.com", "pedido_1767225600280",
    "+49 1512 3456789", "+4915123456789", "+62 812 3456 7890", "+1 (415) 555-2671", "0055 11 91234 5678",
    "1234567890123456789", // a snowflake id: no brand starts with 12
    "Pedido #2026-000123-4567", "NF-e 000.123.456, série 1", "192.168.100.200:8080",
    "00020126580014br.gov.bcb.pix0136", "R$ 1.234.567,89",
    "",
  ]) assert.equal(holdsCardNumber(text), false, text);
});

// Dates, times and timestamps in the usual formats, every 7 hours and a minute over seven years:
// none is a card number, though their digits pass Luhn one time in ten. (Microsecond timestamps,
// 16 digits, start with 1800 from 2027-01-15 to 2027-01-26, a JCB prefix: those few may be taken
// for card numbers.)
test("dates, times and timestamps are not card numbers", () => {
  const p2 = (n: number) => String(n).padStart(2, "0");
  for (let t = Date.UTC(2024, 0, 1); t < Date.UTC(2031, 0, 1); t += 7 * 3_600_000 + 61_007) {
    const d = new Date(t);
    const [Y, M, D, h, m, s] = [d.getUTCFullYear(), p2(d.getUTCMonth() + 1), p2(d.getUTCDate()), p2(d.getUTCHours()), p2(d.getUTCMinutes()), p2(d.getUTCSeconds())];
    const ms = String(d.getUTCMilliseconds()).padStart(3, "0");
    const [Dn, Mn] = [String(d.getUTCDate()), String(d.getUTCMonth() + 1)];
    for (const text of [
      `${D}/${M}/${Y} ${h}:${m}:${s}`, `${Dn}/${Mn}/${Y} ${h}:${m}:${s}`, `${Mn}/${Dn}/${Y} ${h}:${m}:${s}`, `${D}.${M}.${Y} ${h}:${m}:${s}`,
      `${Y}-${M}-${D} ${h}:${m}:${s}`, `${Y}-${M}-${D} ${h}:${m}:${s}.${ms}`, `${D}/${M}/${Y} ${h}:${m}:${s}.${ms}`, `${D}/${M}/${Y}, ${h}:${m}`,
      `${Y}${M}${D}${h}${m}${s}`, `${Y}${M}${D}${h}${m}${s}${ms}`, d.toISOString(),
      String(t), `user.${t}@example.com`, `${t}-${Math.floor(t / 1000)}`,
    ]) assert.equal(holdsCardNumber(text), false, text);
  }
});

test("the CNPJ that passes Luhn is an exception only as a CNPJ", () => {
  // 36... is a Diners prefix, and Diners numbers have 14 digits, as a CNPJ.
  assert.equal(luhnValid("36049380000104"), true);
  assert.equal(holdsCardNumber("36049380000104"), false);
  assert.equal(holdsCardNumber("36.049.380/0001-04"), false);
  // The same digits with other check digits are no CNPJ, and a Luhn-valid Diners number.
  assert.equal(luhnValid("36049380000112"), true);
  assert.equal(holdsCardNumber("36049380000112"), true);
});

// Random valid documents, phones, postal codes and bills, in every usual format: none is a card
// number, whatever digits it drew (a CNPJ passes Luhn about once in ten).
test("valid CPFs, CNPJs, phones, CEPs and boleto lines always pass", () => {
  let luhnCnpjs = 0;
  for (let i = 0; i < 3000; i++) {
    const cnpj = generateCnpj();
    if (luhnValid(cnpj)) luhnCnpjs++;
    const cpf = generateCpf();
    const mobile = generatePhone("mobile");
    const landline = generatePhone("landline");
    const bank = generateBoleto();
    const utility = generateBoleto({ type: "arrecadacao" });
    for (const text of [
      cnpj, formatCnpj(cnpj), `CNPJ ${cnpj}`, cpf, formatCpf(cpf), `${formatCpf(cpf)} ${formatCpf(generateCpf())}`,
      mobile, formatPhone(mobile), `+55${mobile}`, `55${mobile}`, `+55 ${formatPhone(mobile)}`, `55 ${mobile.slice(0, 2)} ${mobile.slice(2, 7)}-${mobile.slice(7)}`,
      landline, `+55${landline}`, `55${landline}`,
      generateCep(), `${generateCep().slice(0, 5)}-${generateCep().slice(5)}`,
      bank, formatBoleto(bank), utility, formatBoleto(utility),
    ]) assert.equal(holdsCardNumber(text), false, text);
  }
  assert.ok(luhnCnpjs > 100, "the sample had CNPJs that pass Luhn");
});

// A UUID (an order id in metadata, a test's e-mail) is hex in 8-4-4-4-12 groups; about one in a
// few thousand random ones has digit-only groups that a card's shape and Luhn accept. CI's run
// met one ("legacy-<uuid>@example.com" refused as a card number).
test("UUIDs are no card numbers, whatever digits they drew", () => {
  const digitOnly = "41111111-1111-4111-8111-111111111111";
  assert.equal(luhnValid("4111111111111111"), true);
  for (const text of [digitOnly, digitOnly.toUpperCase(), `legacy-${digitOnly}@example.com`, `order ${digitOnly}.`, `{${digitOnly}}`]) {
    assert.equal(holdsCardNumber(text), false, text);
  }
  // Only partly hex: the digit runs between its letters are still part of the UUID.
  assert.equal(holdsCardNumber("a4111111-1111-1111-1111-111111111111"), false);
  // A card number beside a UUID is still found, and one in UUID-like groups that are not a UUID.
  assert.equal(holdsCardNumber(`4111111111111111 ${digitOnly}`), true);
  assert.equal(holdsCardNumber("4111 1111 1111 1111-1111-4111-8111-111111111111"), true);
  assert.equal(maskCardNumbers(`id ${digitOnly}`), `id ${digitOnly}`);
  for (let i = 0; i < 20000; i++) {
    const id = crypto.randomUUID();
    assert.equal(holdsCardNumber(`x-${id}@example.com`), false, id);
  }
});

test("feira's own boleto lines and barcodes pass, formatted or not", () => {
  for (let i = 0; i < 2000; i++) {
    const b = buildBoleto({ bankCode: "237", amountMinor: 1 + Math.floor(Math.random() * 9_999_999_999), dueDate: new Date("2026-12-24"), ourNumber: String(i).padStart(11, "0") });
    for (const text of [b.barcode, b.digitableLine, b.formattedLine]) assert.equal(holdsCardNumber(text), false, text);
  }
  // An NF-e access key (44 digits) written in groups of four.
  assert.equal(holdsCardNumber("3519 0612 3456 7800 0190 5500 1000 0000 0110 0000 0010"), false);
});
