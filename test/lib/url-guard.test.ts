import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { checkUrlSyntax, isForbiddenAddress, resolveSafeTarget, safePost, type HostLookup } from "../../src/lib/url-guard.js";

const FORBIDDEN = [
  "127.0.0.1", "127.255.255.254", "0.0.0.0", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
  "169.254.169.254", "100.64.0.1", "100.100.100.200", "198.18.0.1", "224.0.0.1", "255.255.255.255",
  "::1", "[::1]", "0:0:0:0:0:0:0:1", "::", "::ffff:127.0.0.1", "::ffff:7f00:1", "::FFFF:7F00:1",
  "::ffff:10.0.0.1", "::ffff:a9fe:a9fe", "::127.0.0.1", "::ffff:0:7f00:1", "fe80::1", "fe80::1%eth0",
  "fc00::1", "fd00:ec2::254", "ff02::1", "64:ff9b::a00:1", "64:ff9b::127.0.0.1", "64:ff9b:1::1",
  "2002:a00:1::", "2002:7f00:1::1", "2002:a9fe:a9fe::", "2001:db8::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2",
  "not-an-ip", "", "example.com", "1.2.3",
];
const ALLOWED = [
  "172.32.0.1", "172.15.255.255", "8.8.8.8", "93.184.216.34", "100.128.0.1", "2001:4860:4860::8888",
  "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1",
];

describe("isForbiddenAddress", () => {
  for (const ip of FORBIDDEN) it(`forbids ${JSON.stringify(ip)}`, () => assert.equal(isForbiddenAddress(ip), true));
  for (const ip of ALLOWED) it(`allows ${ip}`, () => assert.equal(isForbiddenAddress(ip), false));
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
    const dir = mkdtempSync(join(tmpdir(), "url-guard-"));
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
