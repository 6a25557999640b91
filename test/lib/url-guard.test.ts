import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Environment } from "../../src/core/context.js";
import { checkUrlSyntax, classifyAddress, resolveSafeTarget, safePost, type AddressClass, type HostLookup } from "../../src/lib/url-guard.js";
import { resolveDestination } from "../../src/modules/webhooks/destination.js";
import { tempDir } from "../helpers/temp-dirs.js";

// Addresses as a resolver or a URL may spell them, and the class each must land in once
// parsed: "never" (link-local, cloud metadata) is refused everywhere, "private" only where
// local destinations are not allowed. null: not an address at all.
const ADDRESSES: [string, AddressClass | null][] = [
  ["169.254.169.254", "never"], ["169.254.0.1", "never"], ["169.254.170.2", "never"], ["100.100.100.200", "never"],
  ["168.63.129.16", "never"], ["192.0.0.192", "never"], ["2852039166", "never"], ["0xa9.0xfe.0xa9.0xfe", "never"],
  ["0251.0376.0251.0376", "never"], ["169.254.43518", "never"], ["169.254.169.254.", "never"],
  ["::ffff:169.254.169.254", "never"], ["::ffff:a9fe:a9fe", "never"], ["::FFFF:A9FE:A9FE", "never"], ["::a9fe:a9fe", "never"],
  ["::ffff:0:a9fe:a9fe", "never"], ["64:ff9b::a9fe:a9fe", "never"], ["64:ff9b:1::a9fe:a9fe", "never"],
  ["64:ff9b:1:a9fe:a9:fe00::", "never"], ["2002:a9fe:a9fe::1", "never"], ["2001:0:4136:e378:8000:63bf:5601:5601", "never"],
  ["::ffff:6464:64c8", "never"], ["fe80::1", "never"], ["fe80::1%eth0", "never"], ["[fe80::1]", "never"], ["febf::1", "never"],
  ["fd00:ec2::254", "never"], ["FD00:EC2:0::254", "never"], ["fd20:ce::254", "never"], ["fd00:c1::a9fe:a9fe", "never"],
  ["127.0.0.1", "private"], ["127.255.255.254", "private"], ["0x7f.1", "private"], ["2130706433", "private"],
  ["0.0.0.0", "private"], ["10.1.2.3", "private"], ["172.16.0.1", "private"], ["172.31.255.255", "private"],
  ["192.168.1.1", "private"], ["100.64.0.1", "private"], ["198.18.0.1", "private"], ["192.0.2.1", "private"],
  ["224.0.0.1", "private"], ["240.0.0.1", "private"], ["255.255.255.255", "private"], ["192.175.48.1", "private"],
  ["::1", "private"], ["[::1]", "private"], ["0:0:0:0:0:0:0:1", "private"], ["::", "private"], ["::ffff:127.0.0.1", "private"],
  ["::ffff:7f00:1", "private"], ["::FFFF:7F00:1", "private"], ["::ffff:10.0.0.1", "private"], ["::127.0.0.1", "private"],
  ["::8.8.8.8", "private"], ["::ffff:0:7f00:1", "private"], ["::ffff:0:808:808", "private"], ["fc00::1", "private"],
  ["fd12:3456::1", "private"], ["fec0::1", "private"], ["ff02::1", "private"], ["100::1", "private"], ["4000::1", "private"],
  ["64:ff9b::a00:1", "private"], ["64:ff9b::127.0.0.1", "private"], ["64:ff9b:1::1", "private"], ["64:ff9b:1::808:808", "private"],
  ["2002:a00:1::", "private"], ["2002:7f00:1::1", "private"], ["2001:db8::1", "private"], ["2001:2::1", "private"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "private"], ["3fff::1", "private"],
  ["8.8.8.8", "public"], ["134744072", "public"], ["93.184.216.34", "public"], ["172.32.0.1", "public"], ["172.15.255.255", "public"],
  ["100.128.0.1", "public"], ["1.2.3", "public"], ["2001:4860:4860::8888", "public"], ["2606:4700:4700::1111", "public"],
  ["::ffff:8.8.8.8", "public"], ["64:ff9b::808:808", "public"], ["2002:808:808::1", "public"],
  ["not-an-ip", null], ["", null], ["example.com", null], ["1.2.3.4.5", null], ["fe80::zz", null],
];

describe("classifyAddress", () => {
  for (const [ip, expected] of ADDRESSES) {
    it(`${JSON.stringify(ip)} is ${expected}`, () => assert.equal(classifyAddress(ip), expected));
  }
});

// The same spellings inside URLs, through the rules of each environment. Production gets an
// https URL (its rule), the others http, which they allow.
const ENVIRONMENTS: { name: string; environment: Environment; production: boolean; allowPrivate: boolean; accepts: AddressClass[] }[] = [
  { name: "production", environment: "production", production: true, allowPrivate: false, accepts: ["public"] },
  { name: "sandbox", environment: "sandbox", production: false, allowPrivate: false, accepts: ["public", "private"] },
  { name: "sandbox, NODE_ENV=production", environment: "sandbox", production: true, allowPrivate: false, accepts: ["public"] },
  { name: "production, private allowed", environment: "production", production: true, allowPrivate: true, accepts: ["public", "private"] },
  { name: "sandbox, private allowed", environment: "sandbox", production: true, allowPrivate: true, accepts: ["public", "private"] },
];

// Names answer from this table, so a metadata name that reached the resolver would say "could
// not be resolved" instead of naming metadata.
const NAMES: Record<string, string[]> = {
  "example.com": ["93.184.216.34"], "v6.example.com": ["2606:4700:4700::1111"], localhost: ["127.0.0.1"],
  "api.localhost": ["127.0.0.1"], "printer.local": ["192.168.1.20"], "db.internal": ["10.0.0.5"], intranet: ["10.0.0.6"],
  "lan.example.com": ["10.0.0.7"], "mixed.example.com": ["93.184.216.34", "10.0.0.5"],
  "meta.example.com": ["169.254.169.254"], "mixed-meta.example.com": ["127.0.0.1", "::ffff:a9fe:a9fe"],
  "zoned.example.com": ["fe80::a9fe:a9fe%eth0"], "nat64.example.com": ["64:ff9b::a9fe:a9fe"],
};
const fromTable: HostLookup = async (host) => {
  const answers = NAMES[host.replace(/\.+$/, "")];
  if (!answers) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return answers.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
};

const HOSTS: [string, AddressClass][] = [
  ["169.254.169.254", "never"], ["169.254.169.254.", "never"], ["169.254.169.254..", "never"], ["2852039166", "never"],
  ["0xa9fea9fe", "never"], ["0xA9FEA9FE", "never"], ["0xa9.0xfe.0xa9.0xfe", "never"], ["0251.0376.0251.0376", "never"],
  ["169.254.43518", "never"], ["169.0xfe.0251.254", "never"], ["%31%36%39.254.169.254", "never"], ["1684301000", "never"],
  ["100.100.100.200", "never"], ["168.63.129.16", "never"], ["[::ffff:169.254.169.254]", "never"], ["[::ffff:a9fe:a9fe]", "never"],
  ["[::FFFF:A9FE:A9FE]", "never"], ["[0:0:0:0:0:ffff:169.254.169.254]", "never"], ["[::a9fe:a9fe]", "never"],
  ["[::169.254.169.254]", "never"], ["[::ffff:0:a9fe:a9fe]", "never"], ["[64:ff9b::a9fe:a9fe]", "never"],
  ["[64:ff9b::169.254.169.254]", "never"], ["[64:ff9b:1::a9fe:a9fe]", "never"], ["[2002:a9fe:a9fe::]", "never"],
  ["[2001:0:4136:e378:8000:63bf:5601:5601]", "never"], ["[::ffff:100.100.100.200]", "never"], ["[64:ff9b::6464:64c8]", "never"],
  ["[::ffff:168.63.129.16]", "never"], ["[fe80::1]", "never"], ["[FE80::A9FE:A9FE]", "never"], ["[fd00:ec2::254]", "never"],
  ["[FD00:EC2:0:0:0:0:0:254]", "never"], ["[fd20:ce::254]", "never"], ["[fd00:c1::a9fe:a9fe]", "never"],
  ["metadata.google.internal", "never"], ["METADATA.GOOGLE.INTERNAL.", "never"], ["metadata.google.internal..", "never"],
  ["ｍｅｔａｄａｔａ.google.internal", "never"], ["metadata", "never"], ["metadata.", "never"], ["instance-data", "never"],
  ["instance-data.ec2.internal", "never"], ["metadata.goog", "never"], ["meta.example.com", "never"],
  ["mixed-meta.example.com", "never"], ["zoned.example.com", "never"], ["nat64.example.com", "never"],
  ["127.0.0.1", "private"], ["127.1", "private"], ["0x7f.1", "private"], ["2130706433", "private"], ["0177.0.0.1", "private"],
  ["127.0.0.1.", "private"], ["0", "private"], ["10.0.0.1", "private"], ["012.0.0.1", "private"], ["192.168.1.1", "private"],
  ["100.64.0.1", "private"], ["[::1]", "private"], ["[::]", "private"], ["[::ffff:127.0.0.1]", "private"],
  ["[::ffff:7f00:1]", "private"], ["[::127.0.0.1]", "private"], ["[64:ff9b::a00:1]", "private"], ["[2002:7f00:1::1]", "private"],
  ["[fc00::1]", "private"], ["[2001:db8::1]", "private"], ["localhost", "private"], ["LOCALHOST.", "private"],
  ["api.localhost", "private"], ["printer.local", "private"], ["db.internal", "private"], ["intranet", "private"],
  ["lan.example.com", "private"], ["mixed.example.com", "private"],
  ["8.8.8.8", "public"], ["134744072", "public"], ["0x08.0x08.0x08.0x08", "public"], ["[2001:4860:4860::8888]", "public"],
  ["[::ffff:8.8.8.8]", "public"], ["[64:ff9b::808:808]", "public"], ["example.com", "public"], ["EXAMPLE.COM.", "public"],
  ["v6.example.com", "public"],
];

describe("every spelling, in every environment", () => {
  for (const [host, cls] of HOSTS) {
    it(`${host} is ${cls}`, async () => {
      for (const env of ENVIRONMENTS) {
        const url = `${env.environment === "production" && !env.allowPrivate ? "https" : "http"}://${host}/hook`;
        const config = { production: env.production, webhookAllowPrivateUrls: env.allowPrivate };
        const r = await resolveDestination(url, env.environment, config, fromTable);
        const label = `${url} in ${env.name}: ${JSON.stringify(r)}`;
        if (env.accepts.includes(cls)) assert.ok(r.ok, label);
        else if (cls === "never") assert.ok(!r.ok && /link-local or cloud metadata/.test(r.message), label);
        else assert.ok(!r.ok && /loopback, private/.test(r.message), label);
      }
    });
  }

  it("refuses an IPv6 zone id in a URL everywhere (WHATWG URL does not parse it)", async () => {
    for (const env of ENVIRONMENTS) {
      const r = await resolveDestination("http://[fe80::1%25eth0]/", env.environment, { production: env.production, webhookAllowPrivateUrls: env.allowPrivate });
      assert.deepEqual(r, { ok: false, message: "url is not a valid URL" });
    }
  });
});

describe("checkUrlSyntax", () => {
  const bad: [string, boolean, RegExp][] = [
    ["ftp://x", false, /http/], ["/relative", false, /absolute/], ["http:example.com", false, /absolute/],
    ["http://exa mple.com/", false, /valid/], ["http://example.com/", true, /https/],
    ["https://user:pass@example.com", false, /credentials/], ["https://user@example.com", false, /credentials/],
    [`https://example.com/${"a".repeat(2048)}`, false, /2048/],
  ];
  for (const [raw, requireHttps, message] of bad) {
    it(`rejects ${raw.slice(0, 40)} (requireHttps=${requireHttps})`, () => {
      const r = checkUrlSyntax(raw, { requireHttps });
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.message, message);
    });
  }
  it("accepts http and https URLs and returns the parsed URL", () => {
    const r = checkUrlSyntax("https://hooks.example.com:8443/in?x=1", { requireHttps: true });
    assert.ok(r.ok);
    assert.equal(r.url.hostname, "hooks.example.com");
    assert.equal(checkUrlSyntax("http://example.com/", { requireHttps: false }).ok, true);
  });
});

const noLookup: HostLookup = () => Promise.reject(new Error("lookup must not be called"));
const fixed = (...addresses: string[]): HostLookup => async () =>
  addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
const strict = { requireHttps: false, allowPrivate: false };

describe("resolveSafeTarget", () => {
  const rejected: [string, HostLookup, boolean?][] = [
    ["http://127.0.0.1/", noLookup], ["http://[::1]/", noLookup], ["http://0x7f.1/", noLookup],
    ["http://[::ffff:127.0.0.1]:8080/", noLookup], ["http://169.254.169.254/latest/meta-data", noLookup],
    ["http://localhost:3000/", noLookup], ["http://LOCALHOST./", noLookup], ["http://api.localhost/", noLookup],
    ["http://metadata.google.internal/computeMetadata/v1/", noLookup], ["http://metadata/", noLookup],
    ["http://printer.local/", noLookup], ["http://internal.example.com/", fixed("10.0.0.5")],
    ["http://mixed.example.com/", fixed("93.184.216.34", "10.0.0.5")],
    ["http://mixed6.example.com/", fixed("2606:4700:4700::1111", "fd00:ec2::254")],
    ["http://example.com/", noLookup, true], ["https://user:pass@example.com", noLookup], ["ftp://x", noLookup],
  ];
  for (const [raw, lookup, requireHttps = false] of rejected) {
    it(`rejects ${raw}${requireHttps ? " when https is required" : ""}`, async () => {
      const r = await resolveSafeTarget(raw, { ...strict, requireHttps, lookup });
      assert.equal(r.ok, false, JSON.stringify(r));
    });
  }

  it("says why without revealing the resolved address", async () => {
    const r = await resolveSafeTarget("http://internal.example.com/", { ...strict, lookup: fixed("10.0.0.5") });
    assert.ok(!r.ok);
    assert.match(r.message, /private/);
    assert.doesNotMatch(r.message, /10\.0\.0\.5/);
  });

  it("reports a failed lookup as a result, not an exception", async () => {
    const lookup: HostLookup = () => Promise.reject(Object.assign(new Error("nope"), { code: "ENOTFOUND" }));
    const r = await resolveSafeTarget("https://nope.example.com/", { ...strict, lookup });
    assert.deepEqual(r, { ok: false, message: "url host could not be resolved (ENOTFOUND)" });
    const empty = await resolveSafeTarget("https://empty.example.com/", { ...strict, lookup: fixed() });
    assert.equal(empty.ok, false);
  });

  it("allows a public host and pins its first address (nothing is connected)", async () => {
    const asked: string[] = [];
    const lookup: HostLookup = async (host) => {
      asked.push(host);
      return [{ address: "93.184.216.34", family: 4 }, { address: "2606:2800:220:1::", family: 6 }];
    };
    const r = await resolveSafeTarget("https://example.com/hooks", { requireHttps: true, allowPrivate: false, lookup });
    assert.ok(r.ok);
    assert.deepEqual([r.address, r.family, r.url.href, asked], [
      "93.184.216.34", 4, "https://example.com/hooks", ["example.com"],
    ]);
  });

  it("allows loopback and local names when allowPrivate is true, still checking syntax", async () => {
    const loop = await resolveSafeTarget("http://127.0.0.1:4000/x", { requireHttps: false, allowPrivate: true, lookup: noLookup });
    assert.ok(loop.ok);
    assert.deepEqual([loop.address, loop.family], ["127.0.0.1", 4]);
    const v6 = await resolveSafeTarget("http://[::1]/", { requireHttps: false, allowPrivate: true });
    assert.ok(v6.ok && v6.address === "::1" && v6.family === 6);
    const named = await resolveSafeTarget("http://localhost/", { requireHttps: false, allowPrivate: true, lookup: fixed("127.0.0.1") });
    assert.ok(named.ok && named.address === "127.0.0.1");
    const plain = await resolveSafeTarget("http://127.0.0.1/", { requireHttps: true, allowPrivate: true });
    assert.equal(plain.ok, false);
  });

  it("refuses link-local and metadata addresses even when allowPrivate is true", async () => {
    for (const [raw, lookup] of [["http://[::ffff:a9fe:a9fe]/", noLookup], ["http://meta.example.com/", fixed("169.254.169.254")],
      ["http://mixed.example.com/", fixed("127.0.0.1", "fd00:ec2::254")], ["http://metadata/", noLookup]] as const) {
      const r = await resolveSafeTarget(raw, { requireHttps: false, allowPrivate: true, lookup });
      assert.deepEqual(r, { ok: false, message: "url must not point to a link-local or cloud metadata address" }, raw);
    }
  });

  it("pins the normalised address, so what is connected to is what was classified", async () => {
    const hex = await resolveSafeTarget("http://0x7f.1/", { requireHttps: false, allowPrivate: true, lookup: noLookup });
    assert.ok(hex.ok && hex.address === "127.0.0.1" && hex.family === 4, JSON.stringify(hex));
    const dots = await resolveSafeTarget("http://8.8.8.8../", { requireHttps: false, allowPrivate: false, lookup: noLookup });
    assert.ok(dots.ok && dots.address === "8.8.8.8", JSON.stringify(dots));
    const upper = await resolveSafeTarget("http://up.example.com/", { ...strict, lookup: fixed("2606:4700:4700:0:0:0:0:1111") });
    assert.ok(upper.ok && upper.address === "2606:4700:4700::1111" && upper.family === 6, JSON.stringify(upper));
  });

  it("fails closed on an answer that is not an address", async () => {
    const r = await resolveSafeTarget("http://odd.example.com/", { requireHttps: false, allowPrivate: true, lookup: fixed("not-an-ip") });
    assert.deepEqual(r, { ok: false, message: "url host could not be resolved (invalid answer)" });
  });
});

describe("safePost", () => {
  const seen: { path: string; host: string | undefined; headers: http.IncomingHttpHeaders; body: string }[] = [];
  let server: http.Server;
  let base: string;
  const target = (path: string, host = "127.0.0.1") => {
    const url = new URL(`${base}${path}`);
    url.hostname = host;
    return { url, address: "127.0.0.1", family: 4 };
  };

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen.push({ path: req.url ?? "", host: req.headers.host, headers: req.headers, body: Buffer.concat(chunks).toString() });
        if (req.url === "/ok") res.writeHead(200).end("thanks");
        else if (req.url === "/fail") res.writeHead(500).end("boom");
        else if (req.url === "/redirect") res.writeHead(302, { location: "/ok" }).end();
        else if (req.url === "/big") res.writeHead(200).end("x".repeat(100_000));
        else if (req.url === "/slow") setTimeout(() => res.writeHead(200).end("late"), 5_000).unref();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("posts the body and headers and returns status and excerpt", async () => {
    const r = await safePost(target("/ok"), '{"a":1}', { "content-type": "application/json", "webhook-id": "msg_1" }, { timeoutMs: 2000 });
    assert.equal(r.status, 200);
    assert.ok(r.status !== null && r.responseExcerpt === "thanks" && r.durationMs >= 0);
    const last = seen.at(-1);
    assert.equal(last?.body, '{"a":1}');
    assert.equal(last?.headers["webhook-id"], "msg_1");
    assert.equal(last?.headers["content-length"], "7");
  });

  it("connects to the pinned address while keeping the original Host", async () => {
    // .invalid never resolves (RFC 6761): reaching the server proves the pin was used.
    const t = target("/ok", "hooks.invalid");
    const r = await safePost(t, "{}", {}, { timeoutMs: 2000 });
    assert.equal(r.status, 200, JSON.stringify(r));
    assert.equal(seen.at(-1)?.host, `hooks.invalid:${t.url.port}`);
  });

  it("returns a 500 as a status", async () => {
    const r = await safePost(target("/fail"), "{}", {}, { timeoutMs: 2000 });
    assert.deepEqual([r.status, r.status !== null && r.responseExcerpt], [500, "boom"]);
  });

  it("does not follow a 302", async () => {
    const count = seen.length;
    const r = await safePost(target("/redirect"), "{}", {}, { timeoutMs: 2000 });
    assert.equal(r.status, 302);
    assert.deepEqual(seen.slice(count).map((s) => s.path), ["/redirect"]);
  });

  it("reports a slow receiver as a timeout", async () => {
    const r = await safePost(target("/slow"), "{}", {}, { timeoutMs: 100 });
    assert.ok(r.status === null);
    assert.equal(r.error, "timeout after 100ms");
    assert.ok(r.durationMs >= 90 && r.durationMs < 2000, `${r.durationMs}`);
  });

  it("truncates a large body to maxResponseBytes (4096 by default)", async () => {
    const r = await safePost(target("/big"), "{}", {}, { timeoutMs: 2000 });
    assert.ok(r.status === 200 && r.responseExcerpt === "x".repeat(4096));
    const small = await safePost(target("/big"), "{}", {}, { timeoutMs: 2000, maxResponseBytes: 10 });
    assert.ok(small.status === 200 && small.responseExcerpt === "x".repeat(10));
  });

  it("returns a closed port as an error string", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const r = await safePost({ url: new URL(`http://127.0.0.1:${port}/`), address: "127.0.0.1", family: 4 }, "{}", {}, { timeoutMs: 2000 });
    assert.ok(r.status === null);
    assert.equal(r.error, `connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  it("returns an invalid header as an error instead of throwing", async () => {
    const r = await safePost(target("/ok"), "{}", { "x-bad": "a\r\nb" }, { timeoutMs: 2000 });
    assert.ok(r.status === null && /invalid character/i.test(r.error), JSON.stringify(r));
  });

  it("sends the original hostname as TLS SNI while connecting to the pinned address", async (t) => {
    const dir = tempDir("feira-url-guard-");
    try {
      execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=hooks.test", "-days", "1",
        "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")], { stdio: "ignore" });
    } catch {
      t.skip("openssl is not available");
      return;
    }
    const names: string[] = [];
    const tls = https.createServer({ key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")),
      SNICallback: (name, cb) => { names.push(name); cb(null); } }, (_req, res) => res.end("ok"));
    await new Promise<void>((resolve) => tls.listen(0, "127.0.0.1", resolve));
    const port = (tls.address() as AddressInfo).port;
    try {
      const r = await safePost({ url: new URL(`https://hooks.test:${port}/`), address: "127.0.0.1", family: 4 }, "{}", {}, { timeoutMs: 2000 });
      // The certificate is self-signed, so the client must refuse it: verification stays on.
      assert.ok(r.status === null && /self[- ]signed/i.test(r.error), JSON.stringify(r));
      assert.deepEqual(names, ["hooks.test"]);
    } finally {
      tls.closeAllConnections();
      await new Promise((resolve) => tls.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
