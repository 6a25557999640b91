import { test } from "node:test";
import assert from "node:assert/strict";
import { normalizeDocument, type DocumentType } from "../../src/lib/documents.js";

const accepts = (type: DocumentType, input: string, expected: string) => {
  assert.deepEqual(normalizeDocument(type, input), { ok: true, value: expected }, `${type} ${input}`);
};
const rejects = (type: DocumentType, input: string, message: RegExp) => {
  const result = normalizeDocument(type, input);
  assert.equal(result.ok, false, `${type} ${input}`);
  if (!result.ok) assert.match(result.message, message);
};

// Check digits worked by hand (mod 11, DV 0 when the remainder is below 2): 529.982.247-25, 11.222.333/0001-81.
test("CPF", () => {
  accepts("cpf", "529.982.247-25", "52998224725");
  accepts("cpf", "52998224725", "52998224725");
  accepts("cpf", "123.456.789-09", "12345678909");
  accepts("cpf", " 529.982.247-25 ", "52998224725");
  rejects("cpf", "529.982.247-24", /^documentId is not a valid CPF$/);
  rejects("cpf", "111.111.111-11", /valid CPF/);
  rejects("cpf", "000.000.000-00", /valid CPF/);
  rejects("cpf", "5299822472", /valid CPF/);
  rejects("cpf", "529982247250", /valid CPF/);
  rejects("cpf", "529/982/247-25", /valid CPF/);
  rejects("cpf", "529 982 247 25", /valid CPF/);
  rejects("cpf", "", /valid CPF/);
});

test("CNPJ, numeric and alphanumeric", () => {
  accepts("cnpj", "11.222.333/0001-81", "11222333000181");
  accepts("cnpj", "11222333000181", "11222333000181");
  accepts("cnpj", "12.ABC.345/01DE-35", "12ABC34501DE35");
  accepts("cnpj", "12.abc.345/01de-35", "12ABC34501DE35");
  rejects("cnpj", "11.222.333/0001-80", /^documentId is not a valid CNPJ$/);
  rejects("cnpj", "12.ABC.345/01DE-36", /valid CNPJ/);
  rejects("cnpj", "00.000.000/0000-00", /valid CNPJ/);
  rejects("cnpj", "12.ABC.345/01DE-3A", /valid CNPJ/);
  rejects("cnpj", "1122233300018", /valid CNPJ/);
  rejects("cnpj", "52.998.224/725", /valid CNPJ/);
});

test("passport", () => {
  accepts("passport", "ab123456", "AB123456");
  accepts("passport", "X1234", "X1234");
  accepts("passport", "A".repeat(20), "A".repeat(20));
  rejects("passport", "A123", /valid passport/);
  rejects("passport", "A".repeat(21), /valid passport/);
  rejects("passport", "AB-123456", /valid passport/);
  rejects("passport", "AB 123456", /valid passport/);
});

test("RG", () => {
  accepts("rg", "12.345.678-9", "123456789");
  accepts("rg", "12.345.678-x", "12345678X");
  accepts("rg", "12345", "12345");
  accepts("rg", "1".repeat(14), "1".repeat(14));
  rejects("rg", "1234", /valid RG/);
  rejects("rg", "1".repeat(15), /valid RG/);
  rejects("rg", "12X45678", /valid RG/);
  rejects("rg", "MG-12.345.678", /valid RG/);
});
