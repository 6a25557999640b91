import { createHash, createHmac, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { tempDir } from "./temp-dirs.js";

// The certificates of the Efí fake's mutual TLS, made at start with node:crypto alone (no
// package in node_modules writes X.509, and /usr/bin/openssl may be missing where the tests
// run): a CA, a server certificate for 127.0.0.1 and localhost, and a client certificate with
// its key, as PEM files and as a password-protected PKCS#12 (.p12, the form Efí hands out).
// The DER below is the minimum RFC 5280 and RFC 7292 ask for and OpenSSL (under Node's TLS)
// accepts: ECDSA P-256 keys, SHA-256 signatures, basicConstraints on the CA, subjectAltName on
// the server certificate.

const OID = {
  commonName: "2.5.4.3",
  ecdsaSha256: "1.2.840.10045.4.3.2",
  basicConstraints: "2.5.29.19",
  subjectAltName: "2.5.29.17",
  data: "1.2.840.113549.1.7.1",
  certBag: "1.2.840.113549.1.12.10.1.3",
  shroudedKeyBag: "1.2.840.113549.1.12.10.1.2",
  x509Certificate: "1.2.840.113549.1.9.22.1",
  sha256: "2.16.840.1.101.3.4.2.1",
};

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
const tlv = (tag: number, ...parts: Buffer[]): Buffer => {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
};
const seq = (...parts: Buffer[]) => tlv(0x30, ...parts);
const explicit = (n: number, ...parts: Buffer[]) => tlv(0xa0 + n, ...parts);
const octets = (b: Buffer) => tlv(0x04, b);
const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));
/** A non-negative INTEGER from its big-endian bytes (a leading 0 keeps it positive). */
const integer = (b: Buffer) => tlv(0x02, b[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
const small = (n: number) => integer(Buffer.from([n]));
function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split(".").map(Number) as [number, number, ...number[]];
  const out = [40 * a + b];
  for (const p of rest) {
    const group = [p & 0x7f];
    for (let v = Math.floor(p / 128); v > 0; v = Math.floor(v / 128)) group.unshift((v & 0x7f) | 0x80);
    out.push(...group);
  }
  return tlv(0x06, Buffer.from(out));
}
const name = (cn: string) => seq(tlv(0x31, seq(oid(OID.commonName), tlv(0x0c, Buffer.from(cn, "utf8")))));
// UTCTime is for years before 2050 (RFC 5280 §4.1.2.5); a year's validity stays well inside it.
const time = (d: Date) => tlv(0x17, Buffer.from(`${d.toISOString().slice(2, 19).replace(/[-T:]/g, "")}Z`, "ascii"));
const extension = (id: string, critical: boolean, value: Buffer) => seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));

/**
 * A positive serial number from 16 random bytes whose DER INTEGER is minimal: the first byte is
 * 0x01 to 0x7f. A first byte of 0 (1 draw in 128 masked to it) is "illegal padding" to OpenSSL,
 * which then refuses the certificate: the fake's TLS failed for about one start in a hundred.
 */
export function certSerial(random: Buffer): Buffer {
  const serial = Buffer.from(random);
  serial[0] = serial[0]! & 0x7f || 1;
  return serial;
}

interface Issued { key: KeyObject; der: Buffer; pem: string }

function issue(cn: string, issuer: { cn: string; key: KeyObject } | "self", opts: { ca?: boolean; hosts?: boolean } = {}): Issued {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const serial = certSerial(randomBytes(16));
  const signer = issuer === "self" ? { cn, key: privateKey } : issuer;
  const now = Date.now();
  const extensions = [extension(OID.basicConstraints, true, seq(...(opts.ca ? [bool(true)] : [])))];
  // dNSName [2] "localhost", iPAddress [7] 127.0.0.1: what a client connecting to the fake checks.
  if (opts.hosts) extensions.push(extension(OID.subjectAltName, false, seq(tlv(0x82, Buffer.from("localhost")), tlv(0x87, Buffer.from([127, 0, 0, 1])))));
  const tbs = seq(
    explicit(0, small(2)), integer(serial), seq(oid(OID.ecdsaSha256)), name(signer.cn),
    seq(time(new Date(now - 3_600_000)), time(new Date(now + 365 * 86_400_000))), name(cn),
    publicKey.export({ type: "spki", format: "der" }), explicit(3, seq(...extensions)),
  );
  const der = seq(tbs, seq(oid(OID.ecdsaSha256)), tlv(0x03, Buffer.from([0]), sign("sha256", tbs, signer.key)));
  const pem = `-----BEGIN CERTIFICATE-----\n${der.toString("base64").replace(/.{64}/g, "$&\n").replace(/\n?$/, "\n")}-----END CERTIFICATE-----\n`;
  return { key: privateKey, der, pem };
}

// RFC 7292 appendix B.2 with SHA-256 (u = 32, v = 64), for the MAC key (ID 3): one block of
// output is all a 32-byte HMAC key needs, so the I-update step for further blocks never runs.
function pkcs12MacKey(password: string, salt: Buffer, iterations: number): Buffer {
  const v = 64;
  const bmp = Buffer.alloc((password.length + 1) * 2); // BMPString with its two-byte terminator
  for (let i = 0; i < password.length; i++) bmp.writeUInt16BE(password.charCodeAt(i), 2 * i);
  const fill = (b: Buffer) => Buffer.from(Array.from({ length: v * Math.ceil(b.length / v) }, (_, i) => b[i % b.length]!));
  let a = createHash("sha256").update(Buffer.alloc(v, 3)).update(Buffer.concat([fill(salt), fill(bmp)])).digest();
  for (let i = 1; i < iterations; i++) a = createHash("sha256").update(a).digest();
  return a;
}

/** PFX v3: the certificates in the clear, the key as PKCS#8 under PBES2 (AES-256-CBC), an HMAC-SHA256 over both. */
function pkcs12(cert: Issued, chain: Issued[], password: string): Buffer {
  const data = (content: Buffer) => seq(oid(OID.data), explicit(0, octets(content)));
  const certBag = (c: Issued) => seq(oid(OID.certBag), explicit(0, seq(oid(OID.x509Certificate), explicit(0, octets(c.der)))));
  const shrouded = cert.key.export({ type: "pkcs8", format: "der", cipher: "aes-256-cbc", passphrase: password });
  const authSafe = seq(data(seq(certBag(cert), ...chain.map(certBag))), data(seq(seq(oid(OID.shroudedKeyBag), explicit(0, shrouded)))));
  const salt = randomBytes(16);
  const iterations = 2048;
  const mac = createHmac("sha256", pkcs12MacKey(password, salt, iterations)).update(authSafe).digest();
  const macData = seq(seq(seq(oid(OID.sha256), Buffer.from([0x05, 0x00])), octets(mac)), octets(salt), integer(Buffer.from([iterations >> 8, iterations & 0xff])));
  return seq(small(3), data(authSafe), macData);
}

export interface EfiCertificates {
  dir: string;
  /** The CA that signed both sides: the client trusts it for the server (EFI_CA_FILE), the server for the client. */
  caFile: string;
  ca: string;
  server: { cert: string; key: string };
  /** The client's certificate and key, apart and together in one PEM file (EFI_CERTIFICATE). */
  client: { cert: string; key: string; certFile: string; keyFile: string; pemFile: string; p12File: string; p12Password: string };
  /** A certificate and key from another CA, which the fake refuses. */
  stranger: { cert: string; key: string };
  remove(): void;
}

export function makeEfiCertificates(p12Password = "fake-efi-p12"): EfiCertificates {
  const ca = issue("Fake Efi CA", "self", { ca: true });
  const signer = { cn: "Fake Efi CA", key: ca.key };
  const server = issue("localhost", signer, { hosts: true });
  const client = issue("feira-efi-client", signer);
  const otherCa = issue("Another CA", "self", { ca: true });
  const stranger = issue("stranger", { cn: "Another CA", key: otherCa.key });
  const pem = (k: KeyObject) => k.export({ type: "pkcs8", format: "pem" }).toString();
  const dir = tempDir("feira-efi-certs-");
  const file = (n: string, content: string | Buffer) => { const p = path.join(dir, n); writeFileSync(p, content, { mode: 0o600 }); return p; };
  return {
    dir,
    caFile: file("ca.pem", ca.pem),
    ca: ca.pem,
    server: { cert: server.pem, key: pem(server.key) },
    client: {
      cert: client.pem, key: pem(client.key), certFile: file("client-cert.pem", client.pem), keyFile: file("client-key.pem", pem(client.key)),
      pemFile: file("client.pem", client.pem + pem(client.key)), p12File: file("client.p12", pkcs12(client, [ca], p12Password)), p12Password,
    },
    stranger: { cert: stranger.pem, key: pem(stranger.key) },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
