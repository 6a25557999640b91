// Folds text into the one spelling the card-number detector reads (src/lib/card-text.ts), so that
// no Unicode spelling of the digits or of what sits between them hides a number:
// - numbers and symbols are NFKC-normalized: full-width "４", mathematical "𝟒", superscript "⁴"
//   and circled "④" digits become "4";
// - every other decimal digit (Unicode category Nd: Arabic-Indic "٤", Devanagari "४", ...) becomes
//   its ASCII digit (NFKC leaves those alone);
// - format characters (Cf: zero-width space and joiners, soft hyphen, direction marks, BOM) and
//   combining marks (M) are dropped: they are invisible, or ride on the character before them.
// Other characters are kept as they are: no letter, space or punctuation mark becomes a digit under
// NFKC, and the detector only tells letters from the rest (test/lib/text-fold.test.ts checks
// this over every code point). Only the characters above are touched, each on its own, with a
// regular expression: plain text of any script folds at the speed of a scan.

const FOLDS = /^(?:[\p{Cf}\p{M}\p{Nl}\p{No}\p{So}]|(?![0-9])\p{Nd})$/u;
const AFTER_NFKC = /[\p{Cf}\p{M}]|(?![0-9])\p{Nd}/gu;
const DROPPED = /^[\p{Cf}\p{M}]$/u;
const DECIMAL = /^\p{Nd}$/u;

// Unicode encodes each set of decimal digits as ten consecutive code points, 0 to 9, and sets that
// touch follow one another whole (the test checks both over every code point): a digit's value is
// its distance from the start of its stretch of digits, modulo 10.
function asciiDigit(ch: string): string {
  const cp = ch.codePointAt(0)!;
  let zero = cp;
  while (DECIMAL.test(String.fromCodePoint(zero - 1))) zero--;
  return String((cp - zero) % 10);
}

// What each character folds to, worked out the first time it is met (a Unicode property test
// costs a microsecond; a text of a million characters must fold in milliseconds): for the Basic
// Multilingual Plane a table, 0 for not met yet, 1 for kept as it is, 2 for folded (as in
// `folds`); beyond it, `astral`, with null for kept, forgotten past ASTRAL_MAX characters (a
// text can hold a million different ones).
const KEEP = 1;
const FOLD = 2;
const kinds = new Uint8Array(0x10000);
const folds = new Map<number, string>();
const astral = new Map<number, string | null>();
const ASTRAL_MAX = 20_000;

function foldChar(cp: number): string | null {
  const ch = String.fromCodePoint(cp);
  if (!FOLDS.test(ch)) return null;
  return ch.normalize("NFKC").replace(AFTER_NFKC, (c) => (DROPPED.test(c) ? "" : asciiDigit(c)));
}

function foldOf(cp: number): string | null {
  if (cp < 0x10000) {
    if (kinds[cp] === KEEP) return null;
    if (kinds[cp] === FOLD) return folds.get(cp)!;
    const folded = foldChar(cp);
    kinds[cp] = folded === null ? KEEP : FOLD;
    if (folded !== null) folds.set(cp, folded);
    return folded;
  }
  let folded = astral.get(cp);
  if (folded === undefined) {
    if (astral.size >= ASTRAL_MAX) astral.clear();
    folded = foldChar(cp);
    astral.set(cp, folded);
  }
  return folded;
}

/**
 * The text in the detector's spelling (the same string when nothing in it folds). With `origins`,
 * also, for each UTF-16 unit of the result, the start and the end (exclusive) in `text` of the
 * character it came from: what the log mask (src/lib/redact.ts) needs to mask a number's own
 * characters.
 */
function fold(text: string, origins?: { from: number[]; to: number[] }): string {
  let out = "";
  let copied = 0; // text before this index is in `out`
  const keep = (end: number) => {
    out += text.slice(copied, end);
    if (origins) for (let i = copied; i < end; i++) origins.from.push(i), origins.to.push(i + 1);
  };
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80 || kinds[unit] === KEEP) continue;
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const folded = foldOf(cp);
    if (folded !== null) {
      keep(i);
      out += folded;
      if (origins) for (let k = 0; k < folded.length; k++) origins.from.push(i), origins.to.push(i + width);
      copied = i + width;
    }
    i += width - 1;
  }
  if (copied === 0 && !origins) return text;
  keep(text.length);
  return out;
}

/** The text in the detector's spelling: the same string when nothing in it folds. */
export function foldText(text: string): string {
  return fold(text);
}

/**
 * For each UTF-16 unit of foldText(text), the start and the end (exclusive) in `text` of the
 * character it came from. Worked out only for a text that holds a card number.
 */
export function foldOrigins(text: string): { from: number[]; to: number[] } {
  const origins = { from: [] as number[], to: [] as number[] };
  fold(text, origins);
  return origins;
}
