// Card input checks before a charge reaches a processor. The number and the CVV are never
// echoed in messages: those can end up in logs and API responses, where card data never goes.
import cardValidator from "card-validator";
import creditCardType from "credit-card-type";

export interface CardInput {
  number: string;
  expirationMonth: string;
  expirationYear: string;
  /** Checked whenever it is not empty. */
  cvv: string;
  /**
   * False where no CVV is taken: a card saved to the vault (a CVV may never be stored) or a
   * charge with a saved card or wallet token. An empty cvv is then accepted. Default true.
   */
  requireCvv?: boolean;
  now: Date;
}

export type CardField = "number" | "expirationMonth" | "expirationYear" | "cvv";

export type CardInspection =
  | {
      ok: true;
      brand: string;
      firstSix: string;
      lastFour: string;
      number: string;
      expirationMonth: string;
      expirationYear: string;
    }
  | { ok: false; field: CardField; message: string };

// credit-card-type ids -> feira brand ids; ids not listed pass through unchanged
// (visa, mastercard, elo, hiper, hipercard, discover, jcb, unionpay, maestro, mir, ...).
const BRAND_IDS: Readonly<Record<string, string>> = {
  "american-express": "amex",
  "diners-club": "diners",
};

const DIGITS = /^\d+$/;

// card-validator's public number() refuses numbers whose brand it cannot tell and skips Luhn for
// UnionPay; every number gets a plain Luhn check here. The card-number detector of free text
// (card-text.ts) calls it for every window of digits it reads, so it allocates nothing.
export function luhnValid(digits: string): boolean {
  if (!DIGITS.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

interface Brand {
  readonly id: string;
  readonly cvvSizes: readonly number[];
}

// First match whose lengths allow this number (the library orders matches best first).
// A Luhn-valid number no brand claims is still accepted as "unknown" (README.md "Sandbox": any
// Luhn-valid number is chargeable in sandbox), with either CVV size.
function brandOf(digits: string): Brand {
  const match = creditCardType(digits).find((card) => card.lengths.includes(digits.length));
  if (!match) return Object.freeze({ id: "unknown", cvvSizes: Object.freeze([3, 4]) });
  return Object.freeze({ id: BRAND_IDS[match.type] ?? match.type, cvvSizes: Object.freeze([match.code.size]) });
}

/** The most digits any credit-card-type pattern reads (test/lib/cards.test.ts checks the table). */
export const BRAND_PREFIX_DIGITS = 8;
const BRANDS_MAX = 10_000;
const brands = new Map<string, Brand>();

// credit-card-type copies its whole table of brands on every call (2 % of a card charge's CPU);
// its answer depends only on the first BRAND_PREFIX_DIGITS digits and the length, so it is kept
// per (prefix, length). A prefix is at most a BIN: no more than what identifies the issuer.
function detectBrand(digits: string): Brand {
  const key = `${digits.slice(0, BRAND_PREFIX_DIGITS)}:${digits.length}`;
  let brand = brands.get(key);
  if (!brand) {
    brand = brandOf(digits);
    if (brands.size >= BRANDS_MAX) brands.clear();
    brands.set(key, brand);
  }
  return brand;
}

/**
 * Whether the digits start and are as long as a card brand's numbers (credit-card-type's table),
 * or are one of Visa's former 13-digit numbers (the table lists 16 to 19 only; test card lists
 * still carry 4222222222222).
 */
export function hasCardBrand(digits: string): boolean {
  if (digits.length === 13 && digits.startsWith("4")) return true;
  return detectBrand(digits).id !== "unknown";
}

function fail(field: CardField, message: string): CardInspection {
  return { ok: false, field, message };
}

export function inspectCard(input: CardInput): CardInspection {
  const digits = input.number.replace(/[\s-]/g, "");
  if (!/^\d{13,19}$/.test(digits)) return fail("number", "number must have 13 to 19 digits");
  if (!luhnValid(digits)) return fail("number", "number is not a valid card number");
  const brand = detectBrand(digits);

  const monthText = input.expirationMonth.trim();
  const month = /^\d{1,2}$/.test(monthText) ? Number(monthText) : Number.NaN;
  if (!(month >= 1 && month <= 12)) return fail("expirationMonth", "expirationMonth must be a month from 1 to 12");

  const yearText = input.expirationYear.trim();
  if (!/^(\d{2}|\d{4})$/.test(yearText)) {
    return fail("expirationYear", "expirationYear must have 2 or 4 digits");
  }
  const year = yearText.length === 2 ? 2000 + Number(yearText) : Number(yearText);
  // Cards are valid through the last day of their expiry month; compared in UTC so the
  // answer does not depend on the server's time zone.
  const nowYear = input.now.getUTCFullYear();
  const nowMonth = input.now.getUTCMonth() + 1;
  if (year < nowYear) return fail("expirationYear", "card has expired");
  if (year === nowYear && month < nowMonth) return fail("expirationMonth", "card has expired");

  const skipCvv = input.requireCvv === false && input.cvv === "";
  if (!skipCvv && !cardValidator.cvv(input.cvv, [...brand.cvvSizes]).isValid) {
    const sizes = brand.cvvSizes.join(" or ");
    return fail("cvv", `cvv must have ${sizes} digits${brand.id === "unknown" ? "" : ` for ${brand.id}`}`);
  }

  return {
    ok: true,
    brand: brand.id,
    firstSix: digits.slice(0, 6),
    lastFour: digits.slice(-4),
    number: digits,
    expirationMonth: String(month).padStart(2, "0"),
    expirationYear: String(year),
  };
}
