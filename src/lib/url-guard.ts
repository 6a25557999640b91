import { lookup as dnsLookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";

// SSRF guard for merchant-supplied URLs (webhook endpoints, postback URLs). Three steps, and
// the last two must share one IP: checkUrlSyntax at registration, resolveSafeTarget before
// each delivery, safePost connecting to exactly the address that was checked. Resolving
// again inside http.request would let a DNS answer with a short TTL switch to 127.0.0.1
// between check and connect (DNS rebinding).

export type SyntaxResult = { ok: true; url: URL } | { ok: false; message: string };
export interface SafeTarget { url: URL; address: string; family: number }
export type ResolveResult = ({ ok: true } & SafeTarget) | { ok: false; message: string };
export type HostLookup = (host: string) => Promise<{ address: string; family: number }[]>;
export type PostResult =
  | { status: number; durationMs: number; responseExcerpt: string }
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

// ---- Address classification. Numbers are BigInt so IPv4 (32 bits) and IPv6 (128 bits)
// share one range check. Wrong or unknown input is forbidden: the guard fails closed.

type Range = readonly [base: bigint, bits: number];

function parseIPv4(ip: string): bigint {
  return ip.split(".").reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

function parseIPv6(ip: string): bigint {
  let s = ip;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s)?.[1];
  if (dotted !== undefined) {
    const v4 = parseIPv4(dotted);
    s = `${s.slice(0, -dotted.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = "", tail] = s.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

function inRange(value: bigint, [base, bits]: Range, width: number): boolean {
  const shift = BigInt(width - bits);
  return value >> shift === base >> shift;
}

const v4 = (cidr: string): Range => {
  const [ip = "", bits = "32"] = cidr.split("/");
  return [parseIPv4(ip), Number(bits)];
};
const v6 = (cidr: string): Range => {
  const [ip = "", bits = "128"] = cidr.split("/");
  return [parseIPv6(ip), Number(bits)];
};

// Everything a webhook has no business reaching: this host, the private networks around it,
// cloud metadata (169.254.169.254 is link-local; Alibaba's 100.100.100.200 is in CGNAT) and
// ranges that are not routable on the internet (RFC 6890).
const FORBIDDEN_V4: readonly Range[] = [
  "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
  "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15",
  "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
].map(v4);

// IPv6 forms that carry an IPv4 address the packet really goes to, and where it sits:
// IPv4-mapped ::ffff:0:0/96 and IPv4-compatible ::/96 (which also covers :: and ::1),
// SIIT ::ffff:0:0:0/96, NAT64 64:ff9b::/96 (low 32 bits), 6to4 2002::/16 (bits 16-47).
const EMBEDS_V4: readonly (readonly [Range, shift: bigint])[] = [
  [v6("::ffff:0:0/96"), 0n], [v6("::/96"), 0n], [v6("::ffff:0:0:0/96"), 0n],
  [v6("64:ff9b::/96"), 0n], [v6("2002::/16"), 80n],
];

// Allow-list for the rest of IPv6: only global unicast 2000::/3 is routable. That alone
// rules out link-local fe80::/10, unique-local fc00::/7 (with AWS metadata fd00:ec2::254),
// multicast ff00::/8, discard 100::/64 and local-use NAT64 64:ff9b:1::/48. Inside 2000::/3
// we still refuse Teredo 2001::/32 (tunnels to an obfuscated IPv4), benchmarking
// 2001:2::/48, ORCHID 2001:10::/28 and 2001:20::/28, documentation 2001:db8::/32, 3fff::/20.
const GLOBAL_V6 = v6("2000::/3");
const FORBIDDEN_GLOBAL_V6: readonly Range[] = [
  "2001::/32", "2001:2::/48", "2001:10::/28", "2001:20::/28", "2001:db8::/32", "3fff::/20",
].map(v6);

function isForbiddenV4(value: bigint): boolean {
  return FORBIDDEN_V4.some((r) => inRange(value, r, 32));
}

export function isForbiddenAddress(ip: string): boolean {
  // Brackets come from URL hostnames, zone ids ("fe80::1%eth0") from some resolvers.
  const bare = ip.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return isForbiddenV4(parseIPv4(bare));
  if (family !== 6) return true;
  const value = parseIPv6(bare);
  for (const [range, shift] of EMBEDS_V4) {
    if (inRange(value, range, 128)) return isForbiddenV4((value >> shift) & 0xffffffffn);
  }
  if (!inRange(value, GLOBAL_V6, 128)) return true;
  return FORBIDDEN_GLOBAL_V6.some((r) => inRange(value, r, 128));
}

// Names that mean "this machine", "the LAN" or "the cloud's metadata service", refused before
// any lookup because /etc/hosts, mDNS or search domains answer them, not public DNS:
// localhost and *.localhost (RFC 6761), *.internal (ICANN private-use TLD, as in
// metadata.google.internal), *.local (mDNS), and dotless names like "metadata", which the
// resolver completes with the host's search domains into internal names.
function isForbiddenHostname(host: string): boolean {
  const name = host.replace(/\.+$/, "");
  return !name.includes(".") || /\.(localhost|internal|local)$/.test(name);
}

const FORBIDDEN_MESSAGE = "url must not point to a loopback, private, link-local, metadata or reserved address";

export async function resolveSafeTarget(
  raw: string,
  opts: { requireHttps: boolean; allowPrivate: boolean; lookup?: HostLookup },
): Promise<ResolveResult> {
  const syntax = checkUrlSyntax(raw, opts);
  if (!syntax.ok) return syntax;
  const { url } = syntax;
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: { address: string; family: number }[];
  const literal = isIP(host);
  if (literal !== 0) {
    addresses = [{ address: host, family: literal }];
  } else {
    if (!opts.allowPrivate && isForbiddenHostname(host)) return { ok: false, message: FORBIDDEN_MESSAGE };
    const lookup = opts.lookup ?? ((name: string) => dnsLookup(name, { all: true, verbatim: true }));
    try {
      addresses = await lookup(host);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? "lookup failed";
      return { ok: false, message: `url host could not be resolved (${code})` };
    }
  }
  const first = addresses[0];
  if (first === undefined) return { ok: false, message: "url host could not be resolved (no addresses)" };
  // ANY, not first: the OS may connect to another answer, and a name mixing a public and a
  // private address is itself a rebinding trick. The message omits the resolved address so
  // the API cannot be used to map the server's internal DNS.
  if (!opts.allowPrivate && addresses.some((a) => isForbiddenAddress(a.address))) {
    return { ok: false, message: FORBIDDEN_MESSAGE };
  }
  return { ok: true, url, address: first.address, family: first.family };
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
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () =>
        finish({ status, durationMs: elapsed(), responseExcerpt: Buffer.concat(chunks).toString("utf8") });
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
