// Masks card numbers before they reach a log line or an error message: each keeps its first six
// and last four digits (411111******1111, PCI DSS 3.4.1). What counts as a card number is the
// one detector of src/lib/card-text.ts, the one that refuses them in request bodies, whatever
// Unicode digits or separators spell it. Strings without one come back as the same string.
import { findCardSpans } from "./card-text.js";
import { foldOrigins, foldText } from "./text-fold.js";

const maskDigits = (digits: string) => `${digits.slice(0, 6)}${"*".repeat(digits.length - 10)}${digits.slice(-4)}`;

/** The string with every card number masked (in ASCII digits); the same string when there is none. */
export function maskCardNumbers(text: string): string {
  const folded = foldText(text);
  const spans = findCardSpans(folded);
  if (spans.length === 0) return text;
  // The spans are in the folded text; its origins lead back to the original characters.
  const origins = folded === text ? null : foldOrigins(text);
  let out = "";
  let at = 0;
  for (const span of spans) {
    out += text.slice(at, origins ? origins.from[span.start] : span.start) + maskDigits(span.digits);
    at = origins ? origins.to[span.end - 1]! : span.end;
  }
  return out + text.slice(at);
}

/**
 * A request URL's path as it may be shown in a log line or an error message: without its query
 * string, and with any card number masked, also one spelled with percent-encoded separators or
 * digits (/v1/charges/4111%201111%201111%201111). A path whose decoded form holds a card number is
 * shown decoded, masked and encoded again; any other path as it was sent.
 */
export function maskUrlPath(url: string): string {
  const path = url.split("?")[0] ?? "";
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // Not valid percent-encoding: the router refuses it (400); shown as sent, masked.
  }
  if (decoded !== path) {
    const masked = maskCardNumbers(decoded);
    if (masked !== decoded) return encodeURI(masked);
  }
  return maskCardNumbers(path);
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
