// Finds a card number (a PAN) typed where free text was expected: a name, a title, a metadata
// value. Card data may sit only in the fields meant for it (PCI DSS 3.2-3.5, Stripe's rule), so
// the API refuses such text instead of storing and serving it in the clear (src/http/card-text.ts).
//
// A card number is a run of 13 to 19 digits that passes Luhn, the digits either unseparated or
// in groups split by one space, dot or dash ("4111 1111 1111 1111", "4111.1111.1111.1111"),
// possibly followed by more groups (a CVV, "4111 1111 1111 1111 123"). Refusing is costlier than
// masking a log line (src/lib/redact.ts), so numbers people legitimately write are told apart:
// - groups of one or two digits are not part of a card number as anyone writes one, so they split
//   a run: "55 11 91234-5678" (a phone), "tamanhos 36 38 40 42 44 46" (a list) are not cards;
// - a run right after "+" is a phone number in international form (E.164): "+5511912345678";
// - 13 digits "55", area code, "9", eight digits is a Brazilian mobile number without its "+";
// - 14 digits that make a valid CNPJ are a CNPJ (11222000010204 passes Luhn too);
// - a run of 44, 47 or 48 digits in all is a boleto barcode, a boleto line (linha digitável), a
//   utility-bill line or an NF-e access key, whatever groups it is written in;
// - a single unseparated run longer than 19 digits is not a card number.
// CPFs (11 digits) and postal codes (8) are too short to be one.
import { isValidCnpj } from "@brazilian-utils/brazilian-utils/is-valid-cnpj";
import { luhnValid } from "./redact.js";

const MIN_PAN = 13;
const MAX_PAN = 19;
// A maximal run of digits where one space, dot or dash may sit between two digits, with the
// character before it (a "+" marks a phone number).
const DIGIT_RUN = /(\+?)(\d(?:[ .-]?\d)*)/g;
const BILL_LENGTHS = new Set([44, 47, 48]);
const MIN_GROUP = 3;
const BR_MOBILE = /^55[1-9]{2}9\d{8}$/;

function isCardNumber(digits: string): boolean {
  if (digits.length < MIN_PAN || digits.length > MAX_PAN || !luhnValid(digits)) return false;
  if (digits.length === 14 && isValidCnpj(digits)) return false;
  if (digits.length === 13 && BR_MOBILE.test(digits)) return false;
  return true;
}

/** Whether one run of digits and separators holds a card number (see the rules above). */
function runHoldsCard(run: string, afterPlus: boolean): boolean {
  const groups = run.split(/[ .-]/);
  let total = 0;
  for (const g of groups) total += g.length;
  if (total < MIN_PAN || (groups.length > 1 && BILL_LENGTHS.has(total))) return false;
  // Windows of consecutive groups of at least MIN_GROUP digits (any group when there is one).
  for (let start = 0; start < groups.length; start++) {
    if (afterPlus && start === 0) continue;
    let window = "";
    for (let end = start; end < groups.length; end++) {
      const group = groups[end]!;
      if (groups.length > 1 && group.length < MIN_GROUP) break;
      window += group;
      if (window.length > MAX_PAN) break;
      if (isCardNumber(window)) return true;
    }
  }
  return false;
}

function textHoldsCard(text: string): boolean {
  if (text.length < MIN_PAN) return false;
  for (const m of text.matchAll(DIGIT_RUN)) {
    const run = m[2]!;
    if (run.length >= MIN_PAN && runHoldsCard(run, m[1] === "+")) return true;
  }
  return false;
}

/**
 * Whether a JSON scalar holds a card number by the rules above: a string, or an integer of 13 or
 * more digits (a card number sent as a JSON number is still one). Anything else is false.
 */
export function holdsCardNumber(value: unknown): boolean {
  if (typeof value === "string") return textHoldsCard(value);
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 1e12) return textHoldsCard(String(value));
  return false;
}
