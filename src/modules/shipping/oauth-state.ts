import { createHmac, randomBytes } from "node:crypto";
import type { Environment } from "../../core/context.js";
import { safeEqual } from "../../lib/crypto.js";

// The OAuth `state`: a nonce (stored, consumed once by the callback), the merchant, the
// environment and an expiry, signed with HMAC-SHA256 under a key derived from the app's
// secrets. The signature stops forgery and tampering before any database work; the stored nonce
// makes a state single-use (the official PHP SDK's own check is broken, reference C).

export const STATE_TTL_MS = 10 * 60 * 1000;

export interface StatePayload {
  nonce: string;
  merchantId: string;
  environment: Environment;
  expiresAt: number;
}

export function stateKey(secrets: { jwtSecret: string; encryptionKey: string }): Buffer {
  return createHmac("sha256", `${secrets.encryptionKey}:${secrets.jwtSecret}`).update("feira/shipping-oauth-state/v1").digest();
}

export function signState(key: Buffer, merchantId: string, environment: Environment, now: number): { state: string; payload: StatePayload } {
  const payload: StatePayload = { nonce: randomBytes(18).toString("base64url"), merchantId, environment, expiresAt: now + STATE_TTL_MS };
  const body = Buffer.from(JSON.stringify([payload.nonce, merchantId, environment, payload.expiresAt])).toString("base64url");
  return { state: `${body}.${mac(key, body)}`, payload };
}

/** The payload of a well-signed, unexpired state; null for anything else. */
export function verifyState(key: Buffer, state: string | undefined, now: number): StatePayload | null {
  if (!state || state.length > 500) return null;
  const [body, sig, extra] = state.split(".");
  if (!body || !sig || extra !== undefined || !safeEqual(sig, mac(key, body))) return null;
  try {
    const [nonce, merchantId, environment, expiresAt] = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as unknown[];
    if (typeof nonce !== "string" || typeof merchantId !== "string" || typeof expiresAt !== "number") return null;
    if (environment !== "sandbox" && environment !== "production") return null;
    if (expiresAt <= now) return null;
    return { nonce, merchantId, environment, expiresAt };
  } catch {
    return null;
  }
}

const mac = (key: Buffer, body: string) => createHmac("sha256", key).update(body).digest("base64url");
