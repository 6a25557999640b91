import type { AccountCapability, TokenGrant } from "../accounts.js";
import { badResponse } from "../adapter-results.js";
import type { CallResult } from "../http-client.js";

// Sellers' accounts at Mercado Pago (marketplace model, docs/processors.md "Mercado Pago split
// dialect"): the seller authorizes the marketplace's application (MERCADOPAGO_CLIENT_ID,
// MERCADOPAGO_CLIENT_SECRET) at `https://auth.mercadopago.com/authorization?client_id&
// response_type=code&platform_id=mp&state&redirect_uri` (the official SDK's
// getAuthorizationURL), and Mercado Pago sends the browser back with a `code`, exchanged at
// `POST /oauth/token` (grant_type authorization_code; refresh_token to renew) for the seller's
// access_token, refresh_token, expires_in (seconds), user_id and public_key (the SDK's
// OAuthResponse). The account's id is the seller's user_id. Tokens are never logged: the HTTP
// client logs method and path only.

export interface MercadoPagoOAuthOptions {
  clientId: string | undefined;
  clientSecret: string | undefined;
  /** Where sellers authorize (MERCADOPAGO_AUTH_URL; https://auth.mercadopago.com). */
  authUrl: string;
  now?: () => number;
}

type TokenCall = (body: Record<string, unknown>) => Promise<CallResult>;

function grantOf(r: CallResult, now: number): TokenGrant {
  if (!r.ok) {
    // A 4xx is Mercado Pago's refusal of the code or the refresh token (invalid_grant and kin).
    if (r.failure.kind === "http_4xx") return { outcome: "refused", message: r.failure.message };
    return { outcome: "unknown", failure: r.failure };
  }
  const b = (r.body ?? {}) as { access_token?: unknown; refresh_token?: unknown; expires_in?: unknown; user_id?: unknown; public_key?: unknown };
  if (typeof b.access_token !== "string" || typeof b.refresh_token !== "string" || typeof b.expires_in !== "number"
    || (typeof b.user_id !== "number" && typeof b.user_id !== "string")) {
    return { outcome: "unknown", failure: badResponse("the processor's token answer had no access_token, refresh_token, expires_in or user_id") };
  }
  return {
    outcome: "granted", accessToken: b.access_token, refreshToken: b.refresh_token, expiresAt: new Date(now + b.expires_in * 1000),
    externalId: String(b.user_id), ...(typeof b.public_key === "string" ? { publicKey: b.public_key } : {}),
  };
}

export function mercadopagoAccounts(token: TokenCall, o: MercadoPagoOAuthOptions): AccountCapability {
  const now = o.now ?? Date.now;
  const app = { client_id: o.clientId, client_secret: o.clientSecret };
  return {
    check: () => (o.clientId && o.clientSecret
      ? []
      : ["processor mercadopago links sellers through the marketplace's application: set MERCADOPAGO_CLIENT_ID and MERCADOPAGO_CLIENT_SECRET"]),
    // The seller gives nothing here: it authorizes at Mercado Pago.
    shown: () => ({}),
    // An authorization is feira's own record (its tokens): nothing to find at Mercado Pago by code.
    find: async () => ({ outcome: "not_found" }),
    oauth: {
      authorizeUrl(state, redirectUri) {
        const url = new URL(`${o.authUrl.replace(/\/+$/, "")}/authorization`);
        url.search = new URLSearchParams({ client_id: o.clientId ?? "", response_type: "code", platform_id: "mp", state, redirect_uri: redirectUri }).toString();
        return url.toString();
      },
      exchange: async (code, redirectUri) => grantOf(await token({ ...app, grant_type: "authorization_code", code, redirect_uri: redirectUri }), now()),
      refresh: async (refreshToken) => grantOf(await token({ ...app, grant_type: "refresh_token", refresh_token: refreshToken }), now()),
    },
  };
}
