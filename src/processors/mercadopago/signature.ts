import { createHmac } from "node:crypto";
import { safeEqual } from "../../lib/crypto.js";

// Mercado Pago webhook signatures. The `x-signature` header is `ts=<ts>,v1=<hex>`, where v1 is
// HMAC-SHA256, keyed with the webhook secret of the application, of the manifest
//   id:<data.id from the query string>;request-id:<x-request-id header>;ts:<ts>;
// (a pair whose value is absent is left out). Mercado Pago's webhook page asks for an
// alphanumeric data.id in lower case; payment ids are numeric, so it only matters for other
// resources, and the official SDK's validator does not do it: an alphanumeric id is checked
// as given and lower-cased, either passes.
//
// `ts` is milliseconds in Mercado Pago's current page and seconds in older examples; the unit
// is told by magnitude (anything above 10^11 is milliseconds: 10^11 seconds is in year 5138).

export const MAX_SIGNATURE_SKEW_SECONDS = 300;

export type SignatureCheck = { ok: true } | { ok: false; reason: "missing" | "malformed" | "stale" | "mismatch" };

export function parseSignatureHeader(header: string): { ts: string; v1: string[] } | null {
  let ts: string | undefined;
  const v1: string[] = [];
  for (const part of header.split(",")) {
    const at = part.indexOf("=");
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === "ts") ts = value;
    else if (key === "v1" && value) v1.push(value.toLowerCase());
  }
  return ts && /^\d{1,16}$/.test(ts) && v1.length > 0 ? { ts, v1 } : null;
}

export function signatureManifest(parts: { dataId?: string; requestId?: string; ts: string }): string {
  return (parts.dataId ? `id:${parts.dataId};` : "") + (parts.requestId ? `request-id:${parts.requestId};` : "") + `ts:${parts.ts};`;
}

export function signManifest(secret: string, manifest: string): string {
  return createHmac("sha256", secret).update(manifest).digest("hex");
}

/** The signing instant of `ts`, in milliseconds. */
export function tsToMillis(ts: string): number {
  const n = Number(ts);
  return n > 1e11 ? n : n * 1000;
}

export function verifyMercadoPagoSignature(input: {
  signature: string | undefined;
  requestId: string | undefined;
  /** `data.id` from the notification's query string (not its body). */
  dataId: string | undefined;
  secret: string;
  now: Date;
  maxSkewSeconds?: number;
}): SignatureCheck {
  if (!input.signature) return { ok: false, reason: "missing" };
  const parsed = parseSignatureHeader(input.signature);
  if (!parsed) return { ok: false, reason: "malformed" };
  const skewMs = Math.abs(input.now.getTime() - tsToMillis(parsed.ts));
  if (skewMs > (input.maxSkewSeconds ?? MAX_SIGNATURE_SKEW_SECONDS) * 1000) return { ok: false, reason: "stale" };
  const ids = new Set([input.dataId]);
  if (input.dataId && /^[A-Za-z0-9]+$/.test(input.dataId)) ids.add(input.dataId.toLowerCase());
  for (const dataId of ids) {
    const expected = signManifest(input.secret, signatureManifest({ dataId, requestId: input.requestId, ts: parsed.ts }));
    // Every candidate is compared in full (constant time per comparison).
    if (parsed.v1.some((v) => safeEqual(v, expected))) return { ok: true };
  }
  return { ok: false, reason: "mismatch" };
}
