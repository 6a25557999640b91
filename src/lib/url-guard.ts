import { lookup as dnsLookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

// SSRF guard for merchant-supplied URLs (webhook endpoints, postback URLs; checkUrlTarget for
// the ones feira only hands to a browser, such as a payment link's successUrl). Three steps, and
// the last two must share one IP: checkUrlSyntax at registration, resolveSafeTarget before
// each delivery, safePost connecting to exactly the address that was checked. Resolving
// again inside http.request would let a DNS answer with a short TTL switch to 127.0.0.1
// between check and connect (DNS rebinding).

export type SyntaxResult = { ok: true; url: URL } | { ok: false; message: string };
export interface SafeTarget { url: URL; address: string; family: number }
export type ResolveResult = ({ ok: true } & SafeTarget) | { ok: false; message: string };
export type HostLookup = (host: string) => Promise<{ address: string; family: number }[]>;
export type PostResult =
  // retryAfter: the receiver's Retry-After header as sent, when there is one; the caller
  // decides what it means for its schedule (safePost only transports it).
  | { status: number; durationMs: number; responseExcerpt: string; retryAfter?: string }
  | { status: null; durationMs: number; error: string };

const MAX_URL_LENGTH = 2048;

export function checkUrlSyntax(raw: string, opts: { requireHttps: boolean }): SyntaxResult {
  if (raw.length > MAX_URL_LENGTH) return { ok: false, message: `url must be at most ${MAX_URL_LENGTH} characters` };
  // WHATWG URL also accepts "http:example.com"; demanding "//" keeps stored URLs unambiguous.
  if (!/^https?:\/\//i.test(raw.trim())) return { ok: false, message: "url must be an absolute http(s) URL" };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: "url is not a valid URL" };
  }
  if (opts.requireHttps && url.protocol !== "https:") return { ok: false, message: "url must use https" };
  // Credentials in a URL end up in logs and delivery records; receivers authenticate by signature.
  if (url.username !== "" || url.password !== "") return { ok: false, message: "url must not contain credentials" };
  if (url.hostname === "") return { ok: false, message: "url must have a host" };
  return { ok: true, url };
}

// ---- Address classification. Every spelling is parsed into one address before any rule
// runs: ipaddr.js reads the forms WHATWG URL normalises (decimal, octal, hex, short IPv4)
// and the ones it leaves alone (a host with several trailing dots, DNS answers with zone
// ids), so a rule written once for 169.254.169.254 holds for 2852039166 and ::ffff:a9fe:a9fe.

type IP = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * public: may be reached from production. private: loopback, LAN and reserved ranges, for
 * destinations that allow local addresses. never: link-local and cloud metadata, refused in
 * every environment whatever WEBHOOK_ALLOW_PRIVATE_URLS says.
 */
export type AddressClass = "public" | "private" | "never";

const SEVERITY: Record<AddressClass, number> = { public: 0, private: 1, never: 2 };
const worst = (classes: AddressClass[]): AddressClass =>
  classes.reduce((a, b) => (SEVERITY[b] > SEVERITY[a] ? b : a), "public");

const cidr = (range: string) => ipaddr.parseCIDR(range);

// Link-local plus the metadata services that live outside it: Alibaba 100.100.100.200 (in
// CGNAT), Azure's wire server 168.63.129.16 (a public address), Oracle Classic 192.0.0.192;
// AWS's IPv6 service block fd00:ec2::/32 (IMDS at ::254), GCP fd20:ce::254, Oracle fd00:c1::a9fe:a9fe.
const NEVER_V4 = ["169.254.0.0/16", "100.100.100.200/32", "168.63.129.16/32", "192.0.0.192/32"].map(cidr);
const NEVER_V6 = ["fe80::/10", "fd00:ec2::/32", "fd20:ce::254/128", "fd00:c1::a9fe:a9fe/128"].map(cidr);
const GLOBAL_V6 = cidr("2000::/3");

const v4At = (bytes: number[], at: number[], xor = 0) => new ipaddr.IPv4(at.map((i) => (bytes[i] ?? 0) ^ xor));
const LOW_32 = [12, 13, 14, 15];

// IPv6 forms that carry an IPv4 address the packet really goes to (or through). Each embedded
// address gets the IPv4 verdict; `floor` is the least the form itself is. IPv4-mapped (the
// socket speaks IPv4), NAT64 64:ff9b::/96 and 6to4 reach public hosts legitimately. SIIT,
// IPv4-compatible (::/96, also :: and ::1), Teredo (server, then client XORed with 0xff) and
// local-use NAT64 are never public; local-use NAT64 may place the IPv4 at any RFC 6052
// offset from /48 to /96, so every layout is checked.
const EMBEDS_V4: { range: [ipaddr.IPv6 | ipaddr.IPv4, number]; floor: AddressClass; v4: (b: number[]) => ipaddr.IPv4[] }[] = [
  { range: cidr("::ffff:0:0/96"), floor: "public", v4: (b) => [v4At(b, LOW_32)] },
  { range: cidr("64:ff9b::/96"), floor: "public", v4: (b) => [v4At(b, LOW_32)] },
  { range: cidr("2002::/16"), floor: "public", v4: (b) => [v4At(b, [2, 3, 4, 5])] },
  { range: cidr("::ffff:0:0:0/96"), floor: "private", v4: (b) => [v4At(b, LOW_32)] },
  { range: cidr("::/96"), floor: "private", v4: (b) => [v4At(b, LOW_32)] },
  { range: cidr("2001::/32"), floor: "private", v4: (b) => [v4At(b, [4, 5, 6, 7]), v4At(b, LOW_32, 0xff)] },
  {
    range: cidr("64:ff9b:1::/48"), floor: "private",
    v4: (b) => [[6, 7, 9, 10], [7, 9, 10, 11], [9, 10, 11, 12], LOW_32].map((at) => v4At(b, at)),
  },
];

function classifyV4(ip: ipaddr.IPv4): AddressClass {
  if (NEVER_V4.some((r) => ip.match(r))) return "never";
  // ipaddr.js names every special-purpose range (private, loopback, CGNAT, reserved, ...);
  // only plain unicast is the internet.
  return ip.range() === "unicast" ? "public" : "private";
}

function classifyV6(ip: ipaddr.IPv6): AddressClass {
  if (NEVER_V6.some((r) => ip.match(r))) return "never";
  const bytes = ip.toByteArray();
  for (const form of EMBEDS_V4) {
    if (ip.match(form.range)) return worst([form.floor, ...form.v4(bytes).map(classifyV4)]);
  }
  // An allow-list: global unicast 2000::/3 minus what ipaddr.js knows as special inside it
  // (documentation, benchmarking, ORCHID...). Unique-local, multicast and the rest are private.
  return ip.range() === "unicast" && ip.match(GLOBAL_V6) ? "public" : "private";
}

// ipaddr.js reads "::a.b.c.d" as "::ffff:a.b.c.d", but that is IPv4-compatible ::/96, another
// address (and inet_ntop prints DNS answers in it that way); a hex tail keeps the two apart.
function hexTail(ip: string): string {
  const m = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(ip);
  const o = m?.slice(2, 6).map(Number) ?? [];
  if (!m || o.some((n) => n > 255)) return ip; // not a dotted tail, or one ipaddr.js refuses
  return `${m[1]}${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
}

/** The IP address a URL host or a DNS answer names, in any spelling; null for a name. */
export function parseAddress(host: string): IP | null {
  // Brackets come from URL hostnames, zone ids ("fe80::1%eth0") from resolvers, trailing dots
  // from absolute names; none changes which machine is meant.
  const bare = hexTail(host.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "").replace(/\.+$/, ""));
  return ipaddr.isValid(bare) ? ipaddr.parse(bare) : null;
}

const classifyIp = (ip: IP): AddressClass => (ip.kind() === "ipv4" ? classifyV4(ip as ipaddr.IPv4) : classifyV6(ip as ipaddr.IPv6));

/** The class of an address in any spelling; null when it is not an address at all. */
export function classifyAddress(host: string): AddressClass | null {
  const ip = parseAddress(host);
  return ip === null ? null : classifyIp(ip);
}

// Names that mean a cloud metadata service, refused everywhere like its addresses: GCP's
// metadata.google.internal and metadata.goog, AWS's instance-data(.ec2.internal), and the
// dotless forms the resolver completes with search domains. Once resolved the address check
// would catch them too; refusing the name also says why where it does not resolve (on save).
function isMetadataName(name: string): boolean {
  return name === "metadata.goog" || /^(metadata|instance-data)(\..+)?\.internal$|^(metadata|instance-data)$/.test(name);
}

// Names that mean "this machine" or "the LAN", refused before any lookup where local
// destinations are not allowed, because /etc/hosts, mDNS or search domains answer them:
// localhost and *.localhost (RFC 6761), *.internal (ICANN private-use TLD), *.local (mDNS),
// and dotless names, which the resolver completes into internal names.
function isLocalName(name: string): boolean {
  return !name.includes(".") || /\.(localhost|internal|local)$/.test(name);
}

const FORBIDDEN_MESSAGE = "url must not point to a loopback, private, link-local, metadata or reserved address";
const NEVER_MESSAGE = "url must not point to a link-local or cloud metadata address";

type Rules = { requireHttps: boolean; allowPrivate: boolean };

/** Why addresses of these classes are refused under `rules`; null when they are not. */
function refusal(classes: AddressClass[], rules: Rules): string | null {
  if (classes.includes("never")) return NEVER_MESSAGE;
  if (!rules.allowPrivate && classes.includes("private")) return FORBIDDEN_MESSAGE;
  return null;
}

/**
 * Every rule that reads the URL alone: its syntax, and a host that is an address (in any
 * spelling) or a name meaning a metadata service or, where local destinations are refused,
 * this machine or the LAN. What is left to check is a name's DNS answers.
 */
function checkUrlItself(raw: string, rules: Rules): { ok: false; message: string } | { ok: true; url: URL; host: string; literal: IP | null } {
  const syntax = checkUrlSyntax(raw, rules);
  if (!syntax.ok) return syntax;
  const { url } = syntax;
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const literal = parseAddress(host);
  if (literal !== null) {
    const refused = refusal([classifyIp(literal)], rules);
    return refused ? { ok: false, message: refused } : { ok: true, url, host, literal };
  }
  // WHATWG URL has already lower-cased the name and mapped full-width letters to ASCII.
  const name = host.replace(/\.+$/, "");
  if (isMetadataName(name)) return { ok: false, message: NEVER_MESSAGE };
  if (!rules.allowPrivate && isLocalName(name)) return { ok: false, message: FORBIDDEN_MESSAGE };
  return { ok: true, url, host, literal: null };
}

/**
 * The same rules for a URL feira never requests, only hands to a browser (a payment link's
 * successUrl): everything the URL itself says is checked, and its name is not resolved, because
 * the buyer's browser resolves it, not this server, so an answer here would prove nothing and
 * would make saving depend on the merchant's DNS.
 */
export function checkUrlTarget(raw: string, rules: Rules): SyntaxResult {
  const checked = checkUrlItself(raw, rules);
  return checked.ok ? { ok: true, url: checked.url } : checked;
}

/**
 * Checks a URL for sending now and returns the one address to connect to. allowPrivate lifts
 * the private class only: link-local and metadata addresses are refused whatever it says.
 */
export async function resolveSafeTarget(raw: string, opts: Rules & { lookup?: HostLookup }): Promise<ResolveResult> {
  const checked = checkUrlItself(raw, opts);
  if (!checked.ok) return checked;
  const { url, host } = checked;
  let found: IP[];
  if (checked.literal !== null) {
    found = [checked.literal];
  } else {
    const lookup = opts.lookup ?? ((n: string) => dnsLookup(n, { all: true, verbatim: true }));
    let answers: { address: string }[];
    try {
      answers = await lookup(host);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? "lookup failed";
      return { ok: false, message: `url host could not be resolved (${code})` };
    }
    const parsed = answers.map((a) => parseAddress(a.address));
    // A resolver answering something that is not an address: fail closed.
    if (parsed.some((ip) => ip === null)) return { ok: false, message: "url host could not be resolved (invalid answer)" };
    found = parsed as IP[];
  }
  const first = found[0];
  if (first === undefined) return { ok: false, message: "url host could not be resolved (no addresses)" };
  // ANY, not first: the OS may connect to another answer, and a name mixing a public and a
  // private address is itself a rebinding trick. The messages omit the resolved address so
  // the API cannot be used to map the server's internal DNS.
  const refused = refusal(found.map(classifyIp), opts);
  if (refused) return { ok: false, message: refused };
  // The normalised address, so what safePost connects to is exactly what was classified.
  return { ok: true, url, address: first.toString(), family: first.kind() === "ipv4" ? 4 : 6 };
}

// ---- Delivery.

const DEFAULT_EXCERPT_BYTES = 4096;

function errorText(err: unknown): string {
  // With happy-eyeballs Node can reject with an AggregateError whose own message is empty.
  if (err instanceof AggregateError && err.message === "" && err.errors.length > 0) return errorText(err.errors[0]);
  if (err instanceof Error) return err.message || (err as NodeJS.ErrnoException).code || err.name;
  return String(err);
}

export function safePost(
  target: SafeTarget,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; maxResponseBytes?: number },
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const maxBytes = opts.maxResponseBytes ?? DEFAULT_EXCERPT_BYTES;
  const { url, address, family } = target;
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");

  // The pin: whatever name http.request asks about, answer with the checked address. Node
  // calls lookup with {all: true} when autoSelectFamily is on, so both shapes are served.
  const pinned = ((_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (options.all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  }) as unknown as LookupFunction;

  const outHeaders: Record<string, string | number> = { ...headers };
  const has = (name: string) => Object.keys(outHeaders).some((k) => k.toLowerCase() === name);
  if (!has("user-agent")) outHeaders["user-agent"] = "feira-webhooks/1";
  for (const k of Object.keys(outHeaders)) if (/^(host|content-length)$/i.test(k)) delete outHeaders[k];
  outHeaders.host = url.host; // the original name (and port), not the pinned IP
  outHeaders["content-length"] = Buffer.byteLength(body);

  return new Promise<PostResult>((resolve) => {
    let settled = false;
    let req: http.ClientRequest | undefined;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req?.destroy();
      resolve(result);
    };
    const options: https.RequestOptions = {
      method: "POST",
      hostname,
      port: url.port === "" ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      headers: outHeaders,
      lookup: pinned,
      // A fresh connection per delivery: a pooled socket could be to an address resolved
      // (and checked) for an earlier delivery, and keep-alive buys little for webhooks.
      agent: false,
      // SNI and certificate checks use the original name; SNI must not carry an IP literal.
      ...(url.protocol === "https:" && isIP(hostname) === 0 ? { servername: hostname } : {}),
    };
    const onResponse = (res: http.IncomingMessage) => {
      // Redirects are never followed (node:http does not): a 3xx is reported as it is, and
      // following it would reach a URL that was never checked.
      const status = res.statusCode ?? 0;
      const retryAfter = res.headers["retry-after"]?.trim();
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => finish({
        status, durationMs: elapsed(), responseExcerpt: Buffer.concat(chunks).toString("utf8"),
        ...(retryAfter ? { retryAfter } : {}),
      });
      res.on("data", (chunk: Buffer) => {
        const room = maxBytes - size;
        if (room > 0) {
          const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
          chunks.push(part);
          size += part.length;
        }
        // Enough for the delivery log: stop reading so a huge or endless body costs nothing.
        if (size >= maxBytes) done();
      });
      res.on("end", done);
      // The status arrived, so the delivery is judged by it even if the body breaks off.
      res.on("error", done);
      res.on("close", done);
    };
    // One budget for connect, TLS, headers and body, so a trickling receiver cannot hold a
    // worker past it.
    timer = setTimeout(() => {
      finish({ status: null, durationMs: elapsed(), error: `timeout after ${opts.timeoutMs}ms` });
    }, opts.timeoutMs);
    const fail = (err: unknown) => finish({ status: null, durationMs: elapsed(), error: errorText(err) });
    try {
      // Throws synchronously for invalid headers (e.g. a CR/LF in a value); still a result.
      req = (url.protocol === "https:" ? https : http).request(options, onResponse);
      req.on("error", fail);
      req.end(body);
    } catch (err) {
      fail(err);
    }
  });
}
