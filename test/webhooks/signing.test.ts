import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "node:test";
import { Webhook } from "standardwebhooks";
import { generateWebhookSecret, signWebhook, webhookHeaders } from "../../src/modules/webhooks/signing.js";

const now = () => Math.floor(Date.now() / 1000);
const body = JSON.stringify({ id: "evt_123", event: "charge.paid", livemode: false, data: { amount: 1000 } });

describe("generateWebhookSecret", () => {
  it("is whsec_ + base64 of 32 bytes", () => {
    const secret = generateWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+={0,2}$/);
    assert.equal(Buffer.from(secret.slice("whsec_".length), "base64").length, 32);
  });

  it("differs every time", () => {
    const secrets = new Set(Array.from({ length: 50 }, () => generateWebhookSecret()));
    assert.equal(secrets.size, 50);
  });
});

describe("signWebhook", () => {
  it("is v1,<base64 HMAC-SHA256 of id.timestamp.body keyed by the decoded secret>", () => {
    const secret = generateWebhookSecret();
    const key = Buffer.from(secret.slice(6), "base64");
    const expected = createHmac("sha256", key).update(`msg_1.1700000000.${body}`).digest("base64");
    assert.equal(signWebhook(secret, "msg_1", 1700000000, body), `v1,${expected}`);
  });

  it("matches the standardwebhooks library's own signer", () => {
    const secret = generateWebhookSecret();
    const ts = 1700000000;
    assert.equal(signWebhook(secret, "msg_1", ts, body), new Webhook(secret).sign("msg_1", new Date(ts * 1000), body));
  });

  it("accepts a secret without the whsec_ prefix", () => {
    const secret = generateWebhookSecret();
    assert.equal(signWebhook(secret.slice(6), "msg_1", 1, body), signWebhook(secret, "msg_1", 1, body));
  });

  it("signs non-ASCII bodies as UTF-8", () => {
    const secret = generateWebhookSecret();
    const text = JSON.stringify({ name: "João Ação ✓" });
    const headers = webhookHeaders(secret, "msg_utf8", now(), text);
    assert.doesNotThrow(() => new Webhook(secret).verify(text, headers));
  });

  it("rejects ids with '.', empty ids, bad timestamps and empty secrets", () => {
    const secret = generateWebhookSecret();
    assert.throws(() => signWebhook(secret, "a.b", 1, body));
    assert.throws(() => signWebhook(secret, "", 1, body));
    assert.throws(() => signWebhook(secret, "msg", 1.5, body));
    assert.throws(() => signWebhook(secret, "msg", -1, body));
    assert.throws(() => signWebhook("whsec_", "msg", 1, body));
  });
});

describe("webhookHeaders verified by the standardwebhooks library", () => {
  const secret = generateWebhookSecret();
  const ts = now();
  const headers = webhookHeaders(secret, "msg_2Lh8", ts, body);

  it("produces the three Standard Webhooks headers and a JSON content type", () => {
    assert.equal(headers["content-type"], "application/json");
    assert.equal(headers["webhook-id"], "msg_2Lh8");
    assert.equal(headers["webhook-timestamp"], String(ts));
    assert.match(headers["webhook-signature"] ?? "", /^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it("is accepted", () => {
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  });

  it("rejects a changed body", () => {
    assert.throws(() => new Webhook(secret).verify(body.replace("1000", "1001"), headers), /signature/i);
  });

  it("rejects a changed id", () => {
    assert.throws(() => new Webhook(secret).verify(body, { ...headers, "webhook-id": "msg_other" }), /signature/i);
  });

  it("rejects a changed timestamp", () => {
    const moved = { ...headers, "webhook-timestamp": String(ts + 1) };
    assert.throws(() => new Webhook(secret).verify(body, moved), /signature/i);
  });

  it("rejects another secret", () => {
    assert.throws(() => new Webhook(generateWebhookSecret()).verify(body, headers), /signature/i);
  });

  it("rejects a correctly signed but stale timestamp (receiver tolerance)", () => {
    const stale = webhookHeaders(secret, "msg_old", ts - 3600, body);
    assert.throws(() => new Webhook(secret).verify(body, stale), /timestamp/i);
  });
});

describe("webhookHeaders with a rotated-out secret still in its overlap", () => {
  const current = generateWebhookSecret();
  const previous = generateWebhookSecret();
  const ts = now();
  const headers = webhookHeaders([current, previous], "msg_rot", ts, body);

  it("carries both signatures, the current one first, separated by a space", () => {
    assert.equal(headers["webhook-signature"], `${signWebhook(current, "msg_rot", ts, body)} ${signWebhook(previous, "msg_rot", ts, body)}`);
  });

  it("is accepted with either secret and rejected with any other", () => {
    assert.deepEqual(new Webhook(current).verify(body, headers), JSON.parse(body));
    assert.deepEqual(new Webhook(previous).verify(body, headers), JSON.parse(body));
    assert.throws(() => new Webhook(generateWebhookSecret()).verify(body, headers), /signature/i);
  });

  it("refuses to sign with no secret at all", () => {
    assert.throws(() => webhookHeaders([], "msg_none", ts, body), /at least one/);
  });
});
