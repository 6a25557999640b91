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
import { luhnValid } from "../../src/lib/redact.js";
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
  ]) assert.equal(holdsCardNumber(text), true, text);
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
    "41 11 11 11 11 11 11 11", // groups of two digits are not how a card number is written
    "4111  1111 1111 1111", // a double space ends a run
    "11222000010204", // a CNPJ that passes Luhn
    "11.222.000/0102-04",
    "+55 11 91234-5678", "+5511912345678", "55 11 91234-5678", "5511912345678", "(11) 91234-5678",
    "tamanhos 36 38 40 42 44 46 48",
    "ch_01m83vqv3jkenw3273kvhefegv",
    "2026-11-22T10:00:00.000Z",
    "00020126580014br.gov.bcb.pix0136", "R$ 1.234.567,89",
    "",
  ]) assert.equal(holdsCardNumber(text), false, text);
});

test("the CNPJ that passes Luhn is an exception only as a CNPJ", () => {
  assert.equal(luhnValid("11222000010204"), true);
  // The same digits with one changed check digit are no CNPJ, and a Luhn-valid 14-digit number.
  assert.equal(luhnValid("11222000010212"), true);
  assert.equal(holdsCardNumber("11222000010212"), true);
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

test("feira's own boleto lines and barcodes pass, formatted or not", () => {
  for (let i = 0; i < 2000; i++) {
    const b = buildBoleto({ bankCode: "237", amountMinor: 1 + Math.floor(Math.random() * 9_999_999_999), dueDate: new Date("2026-12-24"), ourNumber: String(i).padStart(11, "0") });
    for (const text of [b.barcode, b.digitableLine, b.formattedLine]) assert.equal(holdsCardNumber(text), false, text);
  }
  // An NF-e access key (44 digits) written in groups of four.
  assert.equal(holdsCardNumber("3519 0612 3456 7800 0190 5500 1000 0000 0110 0000 0010"), false);
});
