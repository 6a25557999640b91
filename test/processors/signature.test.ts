import { test } from "node:test";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { signatureManifest, verifyMercadoPagoSignature } from "../../src/processors/mercadopago/signature.js";

const SECRET = "mp-webhook-secret";
const NOW = new Date("2026-11-25T12:00:00Z");
const hmac = (m: string) => createHmac("sha256", SECRET).update(m).digest("hex");

function header(dataId: string, requestId: string, ts: string) {
  return `ts=${ts},v1=${hmac(`id:${dataId};request-id:${requestId};ts:${ts};`)}`;
}

const check = (signature: string | undefined, over: Partial<{ dataId: string; requestId: string; now: Date }> = {}) =>
  verifyMercadoPagoSignature({ signature, requestId: over.requestId ?? "req-1", dataId: over.dataId ?? "123456", secret: SECRET, now: over.now ?? NOW });

test("the documented manifest, trailing semicolon, absent pairs left out", () => {
  assert.equal(signatureManifest({ dataId: "123", requestId: "r", ts: "17" }), "id:123;request-id:r;ts:17;");
  assert.equal(signatureManifest({ ts: "17" }), "ts:17;");
});

test("a good signature passes with ts in seconds or milliseconds, and with spaces around the parts", () => {
  const secs = String(Math.floor(NOW.getTime() / 1000));
  const millis = String(NOW.getTime());
  assert.deepEqual(check(header("123456", "req-1", secs)), { ok: true });
  assert.deepEqual(check(header("123456", "req-1", millis)), { ok: true });
  assert.deepEqual(check(header("123456", "req-1", secs).replace(",", " , ")), { ok: true });
});

test("missing, malformed, stale and mismatched signatures are refused", () => {
  const ts = String(NOW.getTime());
  assert.deepEqual(check(undefined), { ok: false, reason: "missing" });
  assert.deepEqual(check("v1=abc"), { ok: false, reason: "malformed" });
  assert.deepEqual(check("ts=abc,v1=abc"), { ok: false, reason: "malformed" });
  // More than 300 s either way.
  const old = String(NOW.getTime() - 301_000);
  assert.deepEqual(check(header("123456", "req-1", old)), { ok: false, reason: "stale" });
  assert.deepEqual(check(header("123456", "req-1", String(NOW.getTime() + 301_000))), { ok: false, reason: "stale" });
  assert.deepEqual(check(header("123456", "req-1", String(NOW.getTime() - 299_000))), { ok: true });
  // Signed for another payment, another request id, or with another secret.
  assert.deepEqual(check(header("999", "req-1", ts)), { ok: false, reason: "mismatch" });
  assert.deepEqual(check(header("123456", "req-2", ts)), { ok: false, reason: "mismatch" });
  const wrongKey = `ts=${ts},v1=${createHmac("sha256", "other").update(`id:123456;request-id:req-1;ts:${ts};`).digest("hex")}`;
  assert.deepEqual(check(wrongKey), { ok: false, reason: "mismatch" });
  assert.deepEqual(check(`ts=${ts},v1=`), { ok: false, reason: "malformed" });
});

test("an alphanumeric data.id is accepted signed lower-cased (the documented rule) or as given", () => {
  const ts = String(NOW.getTime());
  assert.deepEqual(check(header("abc123xyz", "req-1", ts), { dataId: "ABC123XYZ" }), { ok: true });
  assert.deepEqual(check(header("ABC123XYZ", "req-1", ts), { dataId: "ABC123XYZ" }), { ok: true });
  assert.deepEqual(check(header("abc123xyz", "req-1", ts), { dataId: "ABC-123" }), { ok: false, reason: "mismatch" });
});
