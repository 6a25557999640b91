import { createHmac, randomBytes } from "node:crypto";
import type { Environment } from "../core/context.js";
import { safeEqual } from "./crypto.js";

// An OAuth `state`: a nonce (stored, consumed once by the callback), the merchant, the
// environment, an optional subject (what the authorization is for: a submerchant) and an
// expiry, signed with HMAC-SHA256 under a key derived from the app's secrets and the flow's
// purpose. The signature stops forgery and tampering before any database work; the stored nonce
// makes a state single-use (the official PHP SDK's own check is broken, reference C). Used by
// the merchant's Melhor Envio connection and by sellers' accounts at a processor.

export const STATE_TTL_MS = 10 * 60 * 1000;

export interface StatePayload {
  nonce: string;
  merchantId: string;
  environment: Environment;
  expiresAt: number;
  /** What the state authorizes beyond the merchant (a submerchant's id); absent for the merchant itself. */
  subject?: string;
}

/** The signing key of one flow (`purpose`, e.g. "feira/shipping-oauth-state/v1"). */
export function stateKey(secrets: { jwtSecret: string; encryptionKey: string }, purpose = "feira/shipping-oauth-state/v1"): Buffer {
  return createHmac("sha256", `${secrets.encryptionKey}:${secrets.jwtSecret}`).update(purpose).digest();
}

export function signState(key: Buffer, merchantId: string, environment: Environment, now: number, subject?: string): { state: string; payload: StatePayload } {
  const payload: StatePayload = { nonce: randomBytes(18).toString("base64url"), merchantId, environment, expiresAt: now + STATE_TTL_MS, ...(subject ? { subject } : {}) };
  const fields: unknown[] = [payload.nonce, merchantId, environment, payload.expiresAt, ...(subject ? [subject] : [])];
  const body = Buffer.from(JSON.stringify(fields)).toString("base64url");
  return { state: `${body}.${mac(key, body)}`, payload };
}

/** The payload of a well-signed, unexpired state; null for anything else. */
export function verifyState(key: Buffer, state: string | undefined, now: number): StatePayload | null {
  if (!state || state.length > 500) return null;
  const [body, sig, extra] = state.split(".");
  if (!body || !sig || extra !== undefined || !safeEqual(sig, mac(key, body))) return null;
  try {
    const [nonce, merchantId, environment, expiresAt, subject] = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as unknown[];
    if (typeof nonce !== "string" || typeof merchantId !== "string" || typeof expiresAt !== "number") return null;
    if (subject !== undefined && typeof subject !== "string") return null;
    if (environment !== "sandbox" && environment !== "production") return null;
    if (expiresAt <= now) return null;
    return { nonce, merchantId, environment, expiresAt, ...(subject ? { subject } : {}) };
  } catch {
    return null;
  }
}

const mac = (key: Buffer, body: string) => createHmac("sha256", key).update(body).digest("base64url");
