// Masks anything that looks like a card number before it reaches a log line or an error
// message: a Luhn-valid run of 13 to 19 digits, the digits possibly separated by single spaces
// or dashes, keeps its first six and last four digits (411111******1111, PCI DSS 3.4.1).
// Pure and allocation-light: strings without such a run come back as the same string.

// A maximal run of digits, where a single space or dash may sit between two digits.
const DIGIT_RUN = /\d(?:[ -]?\d)*/g;
const MIN_PAN = 13;
const MAX_PAN = 19;

export function luhnValid(digits: string): boolean {
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

const maskDigits = (digits: string) => `${digits.slice(0, 6)}${"*".repeat(digits.length - 10)}${digits.slice(-4)}`;

// A run that is not itself a card number can still hold one when separators split it, e.g. a
// number followed by its CVV ("4111 1111 1111 1111 123"): from each group, the longest window
// of whole groups with 13 to 19 digits that passes Luhn is masked, and the scan goes on after
// it. A long unseparated run (a boleto barcode) is not a card number.
function maskRun(run: string): string {
  const digits = run.replace(/[ -]/g, "");
  if (digits.length < MIN_PAN) return run;
  if (digits.length <= MAX_PAN && luhnValid(digits)) return maskDigits(digits);
  const groups = run.split(/[ -]/);
  if (groups.length === 1) return run;
  const out: string[] = [];
  for (let start = 0; start < groups.length; start++) {
    let window = "";
    let found = -1;
    for (let end = start; end < groups.length && window.length + groups[end]!.length <= MAX_PAN; end++) {
      window += groups[end];
      if (window.length >= MIN_PAN && luhnValid(window)) found = end;
    }
    if (found === -1) {
      out.push(groups[start]!);
      continue;
    }
    out.push(maskDigits(groups.slice(start, found + 1).join("")));
    start = found;
  }
  return out.join(" ");
}

/** The string with every card-number-like run masked; the same string when there is none. */
export function maskCardNumbers(text: string): string {
  if (text.length < MIN_PAN) return text;
  return text.replace(DIGIT_RUN, (run) => (run.length < MIN_PAN ? run : maskRun(run)));
}

function maskScalar(value: unknown): unknown {
  if (typeof value === "string") return maskCardNumbers(value);
  // A card number sent as a JSON number is still a card number.
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 1e12) {
    const text = String(value);
    const masked = maskCardNumbers(text);
    return masked === text ? value : masked;
  }
  return value;
}

const isPlain = (v: object) => {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * A copy of plain objects and arrays with every string (keys included) masked, walked with an
 * explicit stack, so depth cannot overflow the call stack. Other objects (class instances such
 * as a request or an Error) are kept as they are: their serializers mask what they print.
 * Cycles and anything past `maxNodes` are replaced by a marker.
 */
export function redactDeep<T>(value: T, maxNodes = 10_000): T {
  if (value === null || typeof value !== "object") return maskScalar(value) as T;
  if (!Array.isArray(value) && !isPlain(value)) return value;
  const root: Record<string, unknown> = {};
  const seen = new Set<object>();
  const stack: { from: object; into: Record<string, unknown> | unknown[]; key: string | number }[] = [
    { from: value, into: root, key: "v" },
  ];
  let nodes = 0;
  while (stack.length > 0) {
    const { from, into, key } = stack.pop()!;
    if (seen.has(from) || ++nodes > maxNodes) {
      (into as Record<string, unknown>)[key] = "[redacted: too large or circular]";
      continue;
    }
    seen.add(from);
    const copy: Record<string, unknown> | unknown[] = Array.isArray(from) ? [] : {};
    (into as Record<string, unknown>)[key] = copy;
    for (const [k, v] of Object.entries(from)) {
      const name = Array.isArray(copy) ? Number(k) : maskCardNumbers(k);
      if (v !== null && typeof v === "object" && (Array.isArray(v) || isPlain(v))) {
        stack.push({ from: v, into: copy, key: name });
      } else {
        (copy as Record<string, unknown>)[name] = maskScalar(v);
      }
    }
  }
  return root.v as T;
}
