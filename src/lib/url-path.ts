// Paths built from values that came from a URL or a form. A path parameter reaches a route
// decoded, so it may hold "/", "?", CR/LF or an emoji; put back into a Location header as it is,
// Node refuses the header ("Invalid character in header content") and the answer is a 500.
// `urlPath` encodes each value as one path segment where the path is built, as html`` escapes
// each value where the page is built; `headerSafeUrl` is the net under every redirect.

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

const percent = (byte: number) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;

/**
 * A value as one path segment: every byte of its UTF-8 but the unreserved characters of RFC 3986
 * percent-encoded. Unlike encodeURIComponent it never throws (a lone surrogate becomes U+FFFD).
 */
export function encodeSegment(value: string): string {
  let out = "";
  for (const byte of Buffer.from(value, "utf8")) {
    const c = String.fromCharCode(byte);
    out += UNRESERVED.test(c) ? c : percent(byte);
  }
  return out;
}

/** A path template whose every interpolated value is one encoded segment: urlPath`/panel/charges/${id}`. */
export function urlPath(strings: TemplateStringsArray, ...values: readonly string[]): string {
  return strings.reduce((out, s, i) => out + s + (i < values.length ? encodeSegment(values[i]!) : ""), "");
}

/**
 * A URL fit for a header: every character outside visible ASCII (controls, spaces, CR/LF, and
 * anything non-ASCII) percent-encoded as UTF-8; what is already ASCII, escapes included, is kept.
 */
export function headerSafeUrl(url: string): string {
  return url.replace(/[^\x21-\x7e]+/gu, (run) => [...Buffer.from(run, "utf8")].map(percent).join(""));
}
