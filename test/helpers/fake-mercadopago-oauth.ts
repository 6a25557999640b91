import { randomBytes } from "node:crypto";
import { mpError, type MpError } from "./fake-mercadopago-model.js";
import type { ApiRequest, Reply } from "./fake-provider.js";

// The marketplace side of the fake Mercado Pago, from Mercado Pago's documentation (docs/processors.md,
// "Mercado Pago split dialect") and the official Node SDK's OAuth client (mercadopago/sdk-nodejs
// src/clients/oAuth: getAuthorizationURL, create, refresh, commonTypes' OAuthResponse):
// - GET /authorization?client_id&response_type=code&platform_id=mp&state&redirect_uri (the
//   auth host's page): the seller accepts at once, and the browser is sent (302) to
//   redirect_uri?code=TG-...&state=<state as given>. Each authorization is a new seller account.
// - POST /oauth/token {client_id, client_secret, grant_type: authorization_code, code,
//   redirect_uri} or {..., grant_type: refresh_token, refresh_token}: {access_token, token_type,
//   expires_in (seconds; 180 days unless a test says), scope, user_id, refresh_token, public_key,
//   live_mode}. A code is single-use, lives 10 minutes and needs the redirect_uri it was issued
//   for; a refresh token is single-use (the answer carries a new one); anything else is 400
//   invalid_grant; a wrong client is 400 invalid_client.
// - A seller's access token acts on the seller's account until it expires (401 after):
//   payments made with it are the seller's (collector_id = user_id) and may carry
//   application_fee (a positive amount below transaction_amount, the marketplace's part,
//   shown in fee_details as {type: "application_fee"}); the application's own token may not
//   send one. A payment is its collector's account's (the marketplace guide: the marketplace
//   acts on a seller's account with that seller's access token): a seller's payment is read
//   (GET /v1/payments/{id}, its refunds, the search by external_reference), changed and refunded
//   only with that seller's token: with any other, 404 and the search leaves it out; the
//   application's token sees the application's own payments only. Its notices carry user_id =
//   the seller's.

type Obj = Record<string, unknown>;

export interface FakeSeller { userId: number; publicKey: string; accessToken: string; refreshToken: string; expiresAt: number }

const CODE_TTL_MS = 10 * 60_000;
const DEFAULT_EXPIRES_IN = 15_552_000;

const grantError = (error: string, message: string): Reply => ({ status: 400, body: { error, message, status: 400, cause: [] } });

export function fakeMercadoPagoOAuth(app: { clientId: string; clientSecret: string }) {
  const sellers = new Map<number, FakeSeller>();
  const byAccess = new Map<string, { userId: number; expiresAt: number }>();
  const codes = new Map<string, { userId: number; redirectUri: string; expiresAt: number; used: boolean }>();
  const refreshTokens = new Map<string, number>();
  const grants: { grantType: string; userId: number }[] = [];
  let nextUser = 900_000_001;
  let expiresIn = DEFAULT_EXPIRES_IN;

  function issue(userId: number): Obj {
    const s = sellers.get(userId)!;
    s.accessToken = `APP_USR-${userId}-${randomBytes(12).toString("hex")}`;
    s.refreshToken = `TG-${randomBytes(16).toString("hex")}`;
    s.expiresAt = Date.now() + expiresIn * 1000;
    byAccess.set(s.accessToken, { userId, expiresAt: s.expiresAt });
    refreshTokens.set(s.refreshToken, userId);
    return {
      access_token: s.accessToken, token_type: "bearer", expires_in: expiresIn, scope: "offline_access read write", user_id: userId,
      refresh_token: s.refreshToken, public_key: s.publicKey, live_mode: false,
    };
  }

  function authorize(q: URLSearchParams): Reply {
    const redirectUri = q.get("redirect_uri");
    if (q.get("client_id") !== app.clientId || q.get("response_type") !== "code" || !redirectUri) {
      return { status: 400, body: { message: "client_id, response_type=code and redirect_uri are required" } };
    }
    const userId = nextUser++;
    sellers.set(userId, { userId, publicKey: `APP_USR-pk-${userId}`, accessToken: "", refreshToken: "", expiresAt: 0 });
    const code = `TG-${randomBytes(12).toString("hex")}-${userId}`;
    codes.set(code, { userId, redirectUri, expiresAt: Date.now() + CODE_TTL_MS, used: false });
    const to = new URL(redirectUri);
    to.searchParams.set("code", code);
    if (q.get("state") !== null) to.searchParams.set("state", q.get("state")!);
    return { status: 302, headers: { location: to.toString() }, raw: Buffer.alloc(0) };
  }

  function token(body: Obj): Reply {
    if (body.client_id !== app.clientId || body.client_secret !== app.clientSecret) return grantError("invalid_client", "invalid client_id or client_secret");
    if (body.grant_type === "authorization_code") {
      const c = codes.get(String(body.code));
      if (!c || c.used || c.expiresAt < Date.now() || c.redirectUri !== body.redirect_uri) return grantError("invalid_grant", "invalid code or redirect_uri");
      c.used = true;
      grants.push({ grantType: "authorization_code", userId: c.userId });
      return { status: 200, body: issue(c.userId) };
    }
    if (body.grant_type === "refresh_token") {
      const userId = refreshTokens.get(String(body.refresh_token));
      if (userId === undefined) return grantError("invalid_grant", "invalid refresh_token");
      refreshTokens.delete(String(body.refresh_token));
      grants.push({ grantType: "refresh_token", userId });
      return { status: 200, body: issue(userId) };
    }
    return grantError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
  }

  return {
    sellers,
    /** The token grants made, in order (a test counts the refreshes). */
    grants,
    /** The expires_in (seconds) of the next tokens issued. */
    setExpiresIn: (seconds: number) => { expiresIn = seconds; },
    /** Time passes for a seller's access token: it expires now (401 after; its refresh token still renews it). */
    expireAccess(userId: number) {
      const s = sellers.get(userId)!;
      s.expiresAt = Date.now() - 1;
      byAccess.set(s.accessToken, { userId, expiresAt: s.expiresAt });
    },
    /** The authorize page and the token endpoint; undefined for any other request. */
    api(req: ApiRequest): Reply | undefined {
      if (req.method === "GET" && req.path === "/authorization") return authorize(req.query);
      if (req.method === "POST" && req.path === "/oauth/token") return token((req.json ?? {}) as Obj);
      return undefined;
    },
    /** The seller whose live access token this is; "expired" for one past its expiry; undefined for none. */
    sellerOf(bearer: string | undefined): number | "expired" | undefined {
      const t = bearer ? byAccess.get(bearer) : undefined;
      return t ? (t.expiresAt < Date.now() ? "expired" : t.userId) : undefined;
    },
    /** A new payment's application_fee checked: fee_details to add, or the error. */
    fee(json: unknown, seller: number | undefined): Obj[] | MpError {
      const b = (json ?? {}) as { application_fee?: unknown; transaction_amount?: unknown };
      if (b.application_fee === undefined) return [];
      const fee = typeof b.application_fee === "string" ? Number(b.application_fee) : b.application_fee;
      if (seller === undefined) return mpError(400, "application_fee is only for a marketplace's payment made with a seller's access token", [{ code: "invalid_application_fee", description: "application_fee" }]);
      if (typeof fee !== "number" || !(fee > 0) || typeof b.transaction_amount !== "number" || fee >= b.transaction_amount) {
        return mpError(400, "application_fee must be a positive amount below transaction_amount", [{ code: "invalid_application_fee", description: "application_fee" }]);
      }
      return [{ type: "application_fee", amount: fee, fee_payer: "collector" }];
    },
  };
}

export type FakeMercadoPagoOAuth = ReturnType<typeof fakeMercadoPagoOAuth>;
