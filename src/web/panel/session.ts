import { createHmac, randomBytes } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Environment } from "../../core/context.js";
import { safeEqual } from "../../lib/crypto.js";

// The panel's session is a signed token in a cookie and a row on the server (session-store.ts):
// the token names the merchant, the environment being looked at and a random nonce, and
// expires after SESSION_TTL; the row, found by the nonce, says the session is still open.
// It is signed with a key derived from JWT_SECRET for this purpose only, so it is never a valid
// API token (the /v1 routes read the Authorization header only, and a Bearer JWT is verified
// with the JWT secret itself). The CSRF token is an HMAC of the nonce: it changes with every
// sign-in and cannot be made without the key. Signing out deletes the row, so a copied cookie
// opens nothing after it, on every process.

export const SESSION_COOKIE = "feira_panel";
export const LOGIN_COOKIE = "feira_panel_login";
export const FLASH_COOKIE = "feira_panel_flash";
export const LANG_COOKIE = "feira_lang";
export const SESSION_TTL_SECONDS = 8 * 3600;
const PATH = "/panel";

export interface Session {
  merchantId: string;
  environment: Environment;
  nonce: string;
  /** Unix seconds. */
  expiresAt: number;
}

const b64 = (b: Buffer | string) => Buffer.from(b).toString("base64url");

export function createSessionKeys(jwtSecret: string, secureCookies: boolean) {
  const key = createHmac("sha256", jwtSecret).update("feira-panel-session-v1").digest();
  const mac = (what: string) => createHmac("sha256", key).update(what).digest("base64url");

  function sign(s: Session): string {
    const body = b64(JSON.stringify({ m: s.merchantId, e: s.environment, n: s.nonce, x: s.expiresAt }));
    return `${body}.${mac(`session.${body}`)}`;
  }

  function verify(token: string | undefined, now = Date.now()): Session | null {
    if (!token || token.length > 1000) return null;
    const [body, sig] = token.split(".");
    if (!body || !sig || !safeEqual(sig, mac(`session.${body}`))) return null;
    try {
      const c = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as { m?: unknown; e?: unknown; n?: unknown; x?: unknown };
      if (typeof c.m !== "string" || typeof c.n !== "string" || typeof c.x !== "number") return null;
      if (c.x * 1000 <= now) return null;
      return { merchantId: c.m, environment: c.e === "production" ? "production" : "sandbox", nonce: c.n, expiresAt: c.x };
    } catch {
      return null;
    }
  }

  function cookie(name: string, value: string, maxAge: number, httpOnly = true): string {
    return [`${name}=${value}`, `Path=${PATH}`, `Max-Age=${maxAge}`, ...(httpOnly ? ["HttpOnly"] : []), "SameSite=Lax", ...(secureCookies ? ["Secure"] : [])].join("; ");
  }

  return {
    sign,
    verify,
    fresh(merchantId: string, environment: Environment = "sandbox"): Session {
      return { merchantId, environment, nonce: randomBytes(18).toString("base64url"), expiresAt: Math.floor(Date.now() / 1000) + SESSION_TTL_SECONDS };
    },
    /** The token a form carries; derived from the session's nonce (or the login cookie's). */
    csrfFor: (nonce: string) => mac(`csrf.${nonce}`),
    checkCsrf: (nonce: string, given: unknown) => typeof given === "string" && safeEqual(given, mac(`csrf.${nonce}`)),
    cookie,
    clear: (name: string) => cookie(name, "", 0),
  };
}

export type SessionKeys = ReturnType<typeof createSessionKeys>;

export function readCookies(req: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!(name in out)) out[name] = part.slice(eq + 1).trim();
  }
  return out;
}

export function addCookie(reply: FastifyReply, value: string): void {
  const prev = reply.getHeader("set-cookie");
  const list = Array.isArray(prev) ? prev.map(String) : prev === undefined ? [] : [String(prev)];
  reply.header("set-cookie", [...list, value]);
}

/**
 * A state change must come from a page of this origin: browsers send Sec-Fetch-Site (and Origin
 * on POST), and a cross-site form or fetch says so. Requests without these headers (old browsers,
 * curl) still need the CSRF token, which a cross-site page cannot read.
 */
export function sameOrigin(req: FastifyRequest, publicBaseUrl: string): boolean {
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none") return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  // A page under Referrer-Policy no-referrer posts with "Origin: null"; then the browser's
  // Sec-Fetch-Site must vouch for it.
  if (origin === "null") return site === "same-origin";
  const own = [`${req.protocol}://${req.host}`, new URL(publicBaseUrl).origin];
  return own.includes(origin);
}
