// Boleto bancário (cobrança) barcode and linha digitável, per Carta-Circular BCB 2.926/2000.
// Generated here by hand; tests check the output with @brazilian-utils' independent validator.
//
// Barcode, 44 digits:  bank(3) currency(1) DV(1) factor(4) amount(10) campo livre(25)
// Linha, 47 digits:    [bank+currency+CL 1-5 | DV10] [CL 6-15 | DV10] [CL 16-25 | DV10]
//                      [general DV] [factor + amount]

export interface BoletoInput {
  bankCode: string;
  amountMinor: number;
  dueDate: Date;
  ourNumber: string;
}

export interface Boleto {
  barcode: string;
  digitableLine: string;
  formattedLine: string;
  dueDate: string;
}

const DAY_MS = 86_400_000;
// Factor = days since 1997-10-07, so 1000 = 2000-07-03 and 9999 = 2025-02-21. FEBRABAN
// restarted the count at 1000 on 2025-02-22; that cycle ends at 9999 = 2049-10-13. No rule
// for later dates is published, so they are refused rather than guessed.
const FACTOR_BASE = Date.UTC(1997, 9, 7);
const FACTOR_MIN_DAYS = 1000;
const FACTOR_CYCLE = 9000;
const LAST_DAY = FACTOR_MIN_DAYS + 2 * FACTOR_CYCLE - 1;
const MAX_AMOUNT_MINOR = 9_999_999_999;

// The due date is a calendar day: we read the Date's UTC year/month/day (an ISO date such
// as new Date("2026-03-15") is UTC midnight).
function utcDay(date: Date): number {
  if (Number.isNaN(date.getTime())) throw new Error("boleto dueDate is not a valid date");
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
}

export function dueDateFactor(date: Date): string {
  const days = Math.round((utcDay(date) - FACTOR_BASE) / DAY_MS);
  if (days < FACTOR_MIN_DAYS || days > LAST_DAY) {
    throw new Error("boleto dueDate must be between 2000-07-03 and 2049-10-13 (FEBRABAN factor cycles)");
  }
  return String(((days - FACTOR_MIN_DAYS) % FACTOR_CYCLE) + FACTOR_MIN_DAYS);
}

// Field DV: weights 2,1,2,1... from the right; products above 9 add their two digits.
function mod10(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    const product = Number(digits[digits.length - 1 - i]) * (i % 2 === 0 ? 2 : 1);
    sum += product > 9 ? product - 9 : product;
  }
  return (10 - (sum % 10)) % 10;
}

// General DV over the 43 barcode digits without position 5: weights 2..9 repeating from
// the right; 11 - (sum mod 11), and 0, 10 or 11 become 1 (a DV of 0 is never written).
function mod11General(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    sum += Number(digits[digits.length - 1 - i]) * ((i % 8) + 2);
  }
  const dv = 11 - (sum % 11);
  return dv === 0 || dv === 10 || dv === 11 ? 1 : dv;
}

export function barcodeToDigitableLine(barcode: string): string {
  if (!/^\d{44}$/.test(barcode)) throw new Error("boleto barcode must have 44 digits");
  const field1 = barcode.slice(0, 4) + barcode.slice(19, 24);
  const field2 = barcode.slice(24, 34);
  const field3 = barcode.slice(34, 44);
  return (
    field1 + mod10(field1) +
    field2 + mod10(field2) +
    field3 + mod10(field3) +
    barcode[4] +
    barcode.slice(5, 19)
  );
}

// "00190.00009 01149.718601 68524.522114 6 75860000102656"
export function formatDigitableLine(line: string): string {
  if (!/^\d{47}$/.test(line)) throw new Error("boleto digitable line must have 47 digits");
  return [
    `${line.slice(0, 5)}.${line.slice(5, 10)}`,
    `${line.slice(10, 15)}.${line.slice(15, 21)}`,
    `${line.slice(21, 26)}.${line.slice(26, 32)}`,
    line.slice(32, 33),
    line.slice(33),
  ].join(" ");
}

export function buildBoleto(input: BoletoInput): Boleto {
  const { bankCode, amountMinor, dueDate, ourNumber } = input;
  if (!/^\d{3}$/.test(bankCode)) throw new Error("boleto bankCode must be 3 digits");
  if (!Number.isSafeInteger(amountMinor) || amountMinor < 1 || amountMinor > MAX_AMOUNT_MINOR) {
    throw new Error(`boleto amountMinor must be an integer from 1 to ${MAX_AMOUNT_MINOR} (10 digits)`);
  }
  if (!/^\d{1,25}$/.test(ourNumber)) throw new Error("boleto ourNumber must be 1 to 25 digits");

  const factor = dueDateFactor(dueDate);
  // Campo livre is bank-specific; without a bank agreement we left-pad "nosso número".
  const campoLivre = ourNumber.padStart(25, "0");
  const withoutDv = bankCode + "9" + factor + String(amountMinor).padStart(10, "0") + campoLivre;
  const barcode = withoutDv.slice(0, 4) + mod11General(withoutDv) + withoutDv.slice(4);
  const digitableLine = barcodeToDigitableLine(barcode);
  return {
    barcode,
    digitableLine,
    formattedLine: formatDigitableLine(digitableLine),
    dueDate: new Date(utcDay(dueDate)).toISOString().slice(0, 10),
  };
}
