import { createHmac, randomBytes } from "node:crypto";

// Standard Webhooks (v1, symmetric): the secret is "whsec_" + base64 of random bytes, the
// signed content is `${id}.${timestamp}.${body}` and the header value is "v1,<base64 HMAC>".
// Only node:crypto is used here; the `standardwebhooks` package is a test-time oracle that
// proves receivers using the official libraries accept what we send.
const SECRET_PREFIX = "whsec_";

// 32 bytes (256 bits): above the Standard Webhooks 24-byte minimum and below its 64-byte maximum.
const SECRET_BYTES = 32;

export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString("base64");
}

function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, "base64");
  // An empty key would still "sign", producing signatures anyone can forge; that is always a
  // bug (a missing or mangled secret), so fail loudly instead of delivering it.
  if (key.length === 0) throw new Error("webhook secret is empty or not base64");
  return key;
}

export function signWebhook(secret: string, msgId: string, timestampSeconds: number, body: string): string {
  // The id and timestamp are joined with "." in the signed content, so a "." inside either
  // would make two different (id, timestamp) pairs sign the same bytes. Both come from us,
  // never from users, so a bad value is a programming error.
  if (msgId.length === 0 || msgId.includes(".")) throw new Error("webhook id must be non-empty and contain no '.'");
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new Error("webhook timestamp must be a non-negative integer number of seconds");
  }
  // Sign the exact string that goes on the wire: re-serialising JSON later would break it.
  const signature = createHmac("sha256", secretKey(secret))
    .update(`${msgId}.${timestampSeconds}.${body}`, "utf8")
    .digest("base64");
  return `v1,${signature}`;
}

/**
 * The Standard Webhooks headers. `secrets` is the current secret, or the current one followed
 * by the one it replaced while that one is still valid: Standard Webhooks lets webhook-signature hold
 * several space-separated signatures and receivers accept any that verifies, so a receiver
 * still configured with the old secret keeps working while the merchant rolls out the new one.
 */
export function webhookHeaders(
  secrets: string | readonly string[],
  msgId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  const keys = typeof secrets === "string" ? [secrets] : secrets;
  if (keys.length === 0) throw new Error("at least one webhook secret is needed to sign");
  return {
    "content-type": "application/json",
    "webhook-id": msgId,
    // Unix seconds of this attempt (not of the event): receivers reject stale timestamps,
    // so every retry is signed afresh while webhook-id stays the same for deduplication.
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": keys.map((k) => signWebhook(k, msgId, timestampSeconds, body)).join(" "),
  };
}
