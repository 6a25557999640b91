// Brazilian tax ids as the providers' fakes check them (fake-pagarme-model.ts,
// fake-mercadopago-model.ts). Written from the Receita Federal's rule, not from feira's
// src/lib/documents.ts, so that a fault in feira's own check cannot hide behind the fake.
//
// CPF: 11 digits, two mod-11 check digits, the eleven-equal-digit numbers refused.
// CNPJ: 14 characters; since July 2026 the first 12 may be [0-9A-Z] (the alphanumeric CNPJ of
// Instrução Normativa RFB 2.229/2024), the last two stay digits. Each character counts as its
// ASCII code minus 48 (0-9 -> 0-9, A-Z -> 17-42); weights 2..9 from the right, repeating.

function checkDigit(values: number[], firstWeight: number, maxWeight: number): number {
  let weight = firstWeight;
  let sum = 0;
  for (const v of values) {
    sum += v * weight;
    weight = weight === 2 ? maxWeight : weight - 1;
  }
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}

export function validCpf(value: string): boolean {
  if (!/^\d{11}$/.test(value) || /^(\d)\1{10}$/.test(value)) return false;
  const d = [...value].map(Number);
  return checkDigit(d.slice(0, 9), 10, 10) === d[9] && checkDigit(d.slice(0, 10), 11, 11) === d[10];
}

export function validCnpj(value: string): boolean {
  if (!/^[0-9A-Z]{12}\d{2}$/.test(value) || /^(\d)\1{13}$/.test(value)) return false;
  const v = [...value].map((c) => c.charCodeAt(0) - 48);
  return checkDigit(v.slice(0, 12), 5, 9) === v[12] && checkDigit(v.slice(0, 13), 6, 9) === v[13];
}

export type TaxIdProblem = "type" | "number" | null;

/** What is wrong with a CPF or CNPJ sent with its type (as the providers name them), if anything. */
export function taxIdProblem(type: unknown, number: unknown): TaxIdProblem {
  if (type !== "CPF" && type !== "CNPJ") return "type";
  if (typeof number !== "string") return "number";
  return (type === "CPF" ? validCpf(number) : validCnpj(number)) ? null : "number";
}
