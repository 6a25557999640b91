// Finds card numbers (PANs) in text: in a name, a title or a metadata value the API refuses them
// (src/http/input-guard.ts), as card data may sit only in the fields meant for it (PCI DSS 3.2-3.5,
// Stripe's rule); in a log line or an error message they are masked (src/lib/redact.ts). One
// detector serves both, so what the API refuses is what the logs mask. The rules, with their
// reasons, are in docs/decisions.md ("A card number in free text is refused").
//
// The text is first folded (src/lib/text-fold.ts): every Unicode spelling of a digit becomes its
// ASCII digit, and invisible characters are dropped. Then a card number is a run of 13 to 19
// digits, bare or in groups split by one character that is neither a letter nor a digit (space,
// no-break space, tab, newline, "\r\n", "_", "/", ",", "+", ".", "-", an em dash...), that
// - passes Luhn,
// - starts and is as long as a card brand's numbers (credit-card-type's table, and Visa's former
//   13 digits): no brand starts with 0 or 7, and only JCB, with 16 digits or more, with 1, so a
//   millisecond timestamp (13 digits) is none,
// - is written as card numbers are: unseparated; in groups of three or more digits
//   ("4111 1111 1111 1111", "3782 822463 10005"); or in groups of one length, the last perhaps
//   shorter ("41 11 11 ..."). A date and time ("30/11/2026 10:00:00") or a phone number
//   ("55 11 91234-5678") mixes groups of two with longer ones and is none;
// - may be followed by more groups (its CVV, its expiry), or preceded by others.
// Numbers people legitimately write in that shape are told apart:
// - a run right after "+" is a phone number in international form (E.164, at most 15 digits);
// - 14 digits that make a valid CNPJ are a CNPJ (a CNPJ can start like a Diners card);
// - a run of 44, 47 or 48 digits in all is a boleto barcode, a boleto line (linha digitável), a
//   utility-bill line or an NF-e access key, whatever groups it is written in;
// - a UUID (8-4-4-4-12 hex digits, e.g. an order id) is one, even when its groups drew digits only.
import { isValidCnpj } from "@brazilian-utils/brazilian-utils/is-valid-cnpj";
import { hasCardBrand } from "./cards.js";
import { foldText } from "./text-fold.js";

const MIN_PAN = 13;
const MAX_PAN = 19;
const MAX_E164 = 15;
const MIN_LONG_GROUP = 3;
const BILL_LENGTHS = new Set([44, 47, 48]);
// A whole UUID token: hex groups joined by "-", with no letter or digit on either side.
const UUID = /(?<![\p{L}\p{N}])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![\p{L}\p{N}])/giu;
// A maximal run of digits where one separator may sit between two digits, with a "+" right
// before it. Folded text has ASCII digits only; anything neither letter nor digit separates.
const DIGIT_RUN = /(\+?)(\d(?:(?:\r\n|[^\p{L}\p{N}])?\d)*)/gu;

/** Where a card number sits in folded text: [start, end), and its digits. */
export interface CardSpan {
  start: number;
  end: number;
  digits: string;
}

// A run's groups of digits, as offsets into the text, with each group's two Luhn sums: its
// digits summed with the last one not doubled (`plain`), and with the last one doubled
// (`shifted`). A window of groups is then checked without building a string: appending a group of
// odd length swaps which of the window's sums its earlier digits count in.
interface Groups {
  start: number[];
  length: number[];
  plain: number[];
  shifted: number[];
}

const LUHN_DOUBLE = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9];

function groupsOf(text: string, runStart: number, runEnd: number): Groups {
  const g: Groups = { start: [], length: [], plain: [], shifted: [] };
  let start = runStart;
  let plain = 0;
  let shifted = 0;
  for (let i = runStart; i <= runEnd; i++) {
    const d = i < runEnd ? text.charCodeAt(i) - 48 : -1;
    if (d >= 0 && d <= 9) {
      // The new digit is the last: it is plain in `plain`, doubled in `shifted`; the earlier
      // digits move one place and swap.
      [plain, shifted] = [shifted + d, plain + LUHN_DOUBLE[d]!];
      continue;
    }
    g.start.push(start);
    g.length.push(i - start);
    g.plain.push(plain);
    g.shifted.push(shifted);
    plain = shifted = 0;
    // One separator: "\r\n", or one character, perhaps outside the BMP (two UTF-16 units).
    const width = text.startsWith("\r\n", i) || text.codePointAt(i)! > 0xffff ? 2 : 1;
    start = i + width;
    i += width - 1;
  }
  return g;
}

const digitsOf = (text: string, g: Groups, first: number, last: number) => {
  let digits = "";
  for (let i = first; i <= last; i++) digits += text.slice(g.start[i], g.start[i]! + g.length[i]!);
  return digits;
};

const isCardNumber = (digits: string) => hasCardBrand(digits) && !(digits.length === 14 && isValidCnpj(digits));

/**
 * The longest card number among the windows of whole groups starting at `first`, as the index of
 * its last group, or -1.
 */
function longestCardFrom(text: string, g: Groups, first: number, afterPlus: boolean): number {
  const size = g.length[first]!;
  let digits = 0;
  let plain = 0;
  let shifted = 0;
  let allLong = true;
  let evenBefore = true; // every group before the window's last has the first group's length
  let found = -1;
  for (let last = first; last < g.start.length; last++) {
    const length = g.length[last]!;
    digits += length;
    if (digits > MAX_PAN) break;
    [plain, shifted] = length % 2 === 0
      ? [plain + g.plain[last]!, shifted + g.shifted[last]!]
      : [shifted + g.plain[last]!, plain + g.shifted[last]!];
    allLong &&= length >= MIN_LONG_GROUP;
    const shaped = last === first || allLong || (evenBefore && length <= size);
    const phone = afterPlus && first === 0 && digits <= MAX_E164;
    if (shaped && !phone && digits >= MIN_PAN && plain % 10 === 0 && isCardNumber(digitsOf(text, g, first, last))) found = last;
    evenBefore &&= length === size;
    if (!allLong && !evenBefore) break;
  }
  return found;
}

/** The card numbers of a folded text, left to right; only the first when `firstOnly`. */
export function findCardSpans(text: string, firstOnly = false): CardSpan[] {
  const spans: CardSpan[] = [];
  if (text.length < MIN_PAN) return spans;
  // Blanked with letters of the same length, so the spans' offsets still point into `text`.
  if (text.includes("-")) text = text.replace(UUID, (id) => "x".repeat(id.length));
  for (const m of text.matchAll(DIGIT_RUN)) {
    if (m[2]!.length < MIN_PAN) continue;
    const runStart = m.index + m[1]!.length;
    const g = groupsOf(text, runStart, runStart + m[2]!.length);
    let total = 0;
    for (const length of g.length) total += length;
    if (total < MIN_PAN || (g.start.length > 1 && BILL_LENGTHS.has(total))) continue;
    for (let first = 0; first < g.start.length; first++) {
      const last = longestCardFrom(text, g, first, m[1] === "+");
      if (last === -1) continue;
      spans.push({ start: g.start[first]!, end: g.start[last]! + g.length[last]!, digits: digitsOf(text, g, first, last) });
      if (firstOnly) return spans;
      first = last;
    }
  }
  return spans;
}

/**
 * Whether a JSON scalar holds a card number by the rules above: a string, or an integer of 13 or
 * more digits (a card number sent as a JSON number is still one). Anything else is false.
 */
export function holdsCardNumber(value: unknown): boolean {
  if (typeof value === "string") return findCardSpans(foldText(value), true).length > 0;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 1e12) return findCardSpans(String(value), true).length > 0;
  return false;
}
