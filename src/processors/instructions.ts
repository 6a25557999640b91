import { formatDigitableLine } from "../lib/boleto.js";
import { qrCodeDataUrl } from "../lib/pix.js";
import { BRAZIL_TIME_ZONE, calendarDate, endOfDay } from "./calendar.js";
import type { InstrumentCheck } from "./processor.js";

// Payment instructions that real processors hand out, in the shape the sandbox gives them
// (paymentDetails of a pending Pix or boleto), so a client reads both the same way.

/**
 * A Pix: the provider's BR Code and expiry. The image is always drawn by feira from the BR Code:
 * one provider gives only an image URL, and a data URL never makes the payer's browser fetch
 * from the provider.
 */
export function pixDetails(brCode: string, expiresAt: Date, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { qrCode: brCode, qrCodeImage: qrCodeDataUrl(brCode), expiresAt: expiresAt.toISOString(), ...extra };
}

/** The 44-digit barcode inside a 47-digit digitable line (the check digits of each field dropped). */
export function digitableLineToBarcode(line: string): string {
  if (!/^\d{47}$/.test(line)) throw new Error("boleto digitable line must have 47 digits");
  return line.slice(0, 4) + line[32] + line.slice(33, 47) + line.slice(4, 9) + line.slice(10, 20) + line.slice(21, 31);
}

const digitsOnly = (v: unknown) => (typeof v === "string" ? v.replace(/\D/g, "") : "");

/**
 * A boleto: whichever of the digitable line and the barcode the provider gave (one provider's
 * `barcode` is an image URL, not digits), the other derived from it; the due date a day of
 * Brasília time, payable until its end.
 */
export function boletoDetails(input: {
  line: unknown; barcode: unknown; pdfUrl: string | null; url: string | null; dueAt: Date; extra?: Record<string, unknown>;
}): { details: Record<string, unknown>; expiresAt: Date } {
  let line = digitsOnly(input.line);
  let barcode = digitsOnly(input.barcode);
  if (line.length !== 47) line = "";
  if (barcode.length !== 44) barcode = line ? digitableLineToBarcode(line) : "";
  const dueDate = calendarDate(input.dueAt, BRAZIL_TIME_ZONE);
  const expiresAt = endOfDay(dueDate, BRAZIL_TIME_ZONE);
  return {
    expiresAt,
    details: {
      barcode: barcode || null,
      digitableLine: line || null,
      formattedLine: line ? formatDigitableLine(line) : null,
      dueDate,
      pdfUrl: input.pdfUrl,
      url: input.url,
      expiresAt: expiresAt.toISOString(),
      ...input.extra,
    },
  };
}

/** The due date to ask for: the requested day, or the day `now + expiresIn` falls on (Brasília). */
export function boletoDueDate(options: Record<string, unknown>, expiresIn: number, now: Date): string {
  const requested = options.dueDate;
  if (typeof requested === "string") return requested;
  return calendarDate(new Date(now.getTime() + expiresIn * 1000), BRAZIL_TIME_ZONE);
}

/** A phone as Brazilian providers take it: country code, two-digit area code, number. */
export function brazilianPhone(raw: string | null | undefined): { countryCode: string; areaCode: string; number: string } | null {
  let digits = digitsOnly(raw ?? "");
  if (digits.startsWith("55") && digits.length >= 12) digits = digits.slice(2);
  if (digits.length !== 10 && digits.length !== 11) return null;
  return { countryCode: "55", areaCode: digits.slice(0, 2), number: digits.slice(2) };
}

/** Minor units to a provider's decimal amount (two decimals, BRL). */
export const toDecimal = (minor: number): number => Number((minor / 100).toFixed(2));
/** A provider's decimal amount back to minor units; null when it is not one. */
export function fromDecimal(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? Math.round(value * 100) : null;
}

/** A provider's date-time (with any offset) as a Date; null when missing or unreadable. */
export function parseInstant(value: unknown): Date | null {
  if (typeof value !== "string") return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** Which of a boleto's or Pix's collection terms (docs/processors.md, "Collection terms") a processor carries. */
export interface ServedTerms {
  /** A Pix with a due date (the Central Bank's cobv). */
  pixDueDate: boolean;
  /** A boleto's fine, interest and discount: all (true), none (false), or the ones listed. */
  boletoTerms: boolean | readonly BoletoTerm[];
}

/** The terms a boleto may carry beyond its due date. */
export type BoletoTerm = "fine" | "interest" | "discount";

/**
 * The 422 naming the field and the processor when a charge's terms are more than its processor
 * carries, or null: a processor never drops a fine or a due date silently.
 */
export function unservedTerms(input: InstrumentCheck, processor: string, serves: ServedTerms): string | null {
  const o = input.options;
  if (input.method === "pix" && o.dueDate !== undefined && !serves.pixDueDate) {
    return `paymentMethod.dueDate: a Pix with a due date is not served by processor ${processor}`;
  }
  if (input.method === "boleto" && serves.boletoTerms !== true) {
    const served = serves.boletoTerms === false ? [] : serves.boletoTerms;
    const field = (["fine", "interest", "discount"] as const).find((f) => o[f] !== undefined && !served.includes(f));
    if (field) return `paymentMethod.${field}: a boleto's ${field} is not served by processor ${processor}`;
  }
  return null;
}

/**
 * The merchant's soft descriptor as a provider takes it: trimmed and cut to the provider's
 * documented length (docs/processors.md, "Soft descriptor"), or nothing when there is none. The
 * merchant's own rule (letters, digits, spaces) already keeps it inside every provider's alphabet.
 */
export function statementDescriptor(text: string | null | undefined, max: number): string | undefined {
  const cut = (text ?? "").trim().slice(0, max).trimEnd();
  return cut === "" ? undefined : cut;
}
