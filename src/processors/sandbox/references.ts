import { createHash } from "node:crypto";
export { calendarDate, endOfDay } from "../calendar.js";

// Numbers printed on payment instructions: check digits, derived references, EMV TLVs and
// calendar days. Pure functions, so the same charge always gets the same instructions.

/**
 * `count` decimal digits derived from a purpose and a charge id (SHA-256, then mod 10^count).
 * Stable per charge, so building the instructions twice gives the same reference. Unique
 * only with high probability: a real processor assigns these from its own sequence, and the
 * simulator cannot (it has no storage). 15 digits collide at about 10^7.5 charges.
 */
export function derivedDigits(purpose: string, chargeId: string, count: number): string {
  if (!Number.isInteger(count) || count < 1 || count > 60) throw new RangeError(`count must be 1..60, got ${count}`);
  const hash = BigInt("0x" + createHash("sha256").update(`${purpose}:${chargeId}`).digest("hex"));
  return (hash % 10n ** BigInt(count)).toString().padStart(count, "0");
}

/** The digit that makes `digits + d` Luhn-valid (mod 10, doubling every second digit from the right). */
export function luhnCheckDigit(digits: string): string {
  if (!/^\d+$/.test(digits)) throw new Error("luhnCheckDigit takes decimal digits only");
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    // Position 0 from the right of `digits` is doubled: it becomes position 1 once the
    // check digit is appended.
    const d = Number(digits[digits.length - 1 - i]) * (i % 2 === 0 ? 2 : 1);
    sum += d > 9 ? d - 9 : d;
  }
  return String((10 - (sum % 10)) % 10);
}

/**
 * CLABE control digit (Banxico): weights 3, 7, 1 repeated over the first 17 digits, each
 * product taken mod 10, then (10 - sum mod 10) mod 10. Example: 03218000011835971 -> 9.
 */
export function clabeControlDigit(first17: string): string {
  if (!/^\d{17}$/.test(first17)) throw new Error("clabeControlDigit takes the first 17 digits of a CLABE");
  const weights = [3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (Number(first17[i]) * weights[i % 3]!) % 10;
  return String((10 - (sum % 10)) % 10);
}

export function isValidClabe(clabe: string): boolean {
  return /^\d{18}$/.test(clabe) && clabeControlDigit(clabe.slice(0, 17)) === clabe[17];
}

// STP (bank 646, plaza 180 Mexico City) issues the per-payer CLABEs that PSPs hand out for
// SPEI collection; the 11-digit account part is derived from the charge.
const SPEI_BANK = "646";
const SPEI_PLAZA = "180";

export function speiClabe(chargeId: string): string {
  const first17 = SPEI_BANK + SPEI_PLAZA + derivedDigits("spei-clabe", chargeId, 11);
  return first17 + clabeControlDigit(first17);
}

/**
 * OXXO payment reference: 15 digits derived from the charge and a Luhn check digit, 16 in
 * all, so that a mistyped digit at the till is caught. The same digits are the barcode.
 */
export function oxxoReference(chargeId: string): string {
  const body = derivedDigits("oxxo", chargeId, 15);
  return body + luhnCheckDigit(body);
}

/**
 * The static-Pix txid of a charge: 1-25 of [A-Za-z0-9] (BCB Manual de Padrões 2.6.2). A
 * feira id ("ch_" + 10 time chars + 16 random chars) has 28 such characters; the last 25
 * drop "ch" and the leading time character, which stays "0" until the year 3084.
 */
export function pixTxid(chargeId: string): string {
  const alnum = chargeId.replace(/[^A-Za-z0-9]/g, "");
  if (alnum.length === 0) throw new Error("charge id has no [A-Za-z0-9] characters for a Pix txid");
  return alnum.slice(-25);
}

/** Folds to printable ASCII (EMV free-text fields count characters but CRC bytes). */
export function asciiText(text: string, max: number, what: string): string {
  const folded = text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").replace(/[^\x20-\x7E]/g, "").trim();
  if (folded.length === 0) throw new Error(`${what} has no ASCII characters left`);
  return folded.slice(0, max).trim();
}

/** One EMV TLV object: 2-digit id, 2-digit length, value (at most 99 characters). */
export function tlv(id: string, value: string): string {
  if (!/^\d{2}$/.test(id)) throw new Error(`EMV id must be 2 digits, got ${id}`);
  if (value.length < 1 || value.length > 99) throw new Error(`EMV field ${id} must be 1-99 characters`);
  return id + String(value.length).padStart(2, "0") + value;
}

/**
 * Brazilian account check digit, mod 11 with weights 2..9 from the right; a result of 10
 * is written "X" and 11 is "0" (Banco do Brasil's rule for agência and conta).
 */
export function accountCheckDigit(digits: string): string {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += Number(digits[digits.length - 1 - i]) * ((i % 8) + 2);
  const dv = 11 - (sum % 11);
  return dv === 10 ? "X" : dv === 11 ? "0" : String(dv);
}

// Calendar days in a time zone, through Intl: Brazil has had no daylight saving time since
// 2019, but reading the offset from the tz database keeps this right if that changes.

export { isIsoDate } from "../../lib/calendar.js";
