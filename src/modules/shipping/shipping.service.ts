import { createHash } from "node:crypto";
import type { Config } from "../../config.js";
import { withTx, type Db } from "../../db/client.js";
import type { Environment, RequestCtx } from "../../core/context.js";
import { AppError, invalid } from "../../core/errors.js";
import type { Sealer } from "../../lib/crypto.js";
import type { MerchantService } from "../merchants/index.js";
import { recordEvent } from "../webhooks/index.js";
import { ProviderFailure, type CalculateInput, type MelhorEnvioClient, type TokenSet } from "./melhor-envio.client.js";
import { signState, stateKey, verifyState } from "../../lib/oauth-state.js";
import * as repo from "./shipping.repo.js";

// The merchant's Melhor Envio connection (docs/melhor-envio.md): credentials, the OAuth dance,
// tokens kept fresh, settings, and the live quote the payment links use. Network calls are
// never made inside a transaction that holds anything but the integration's own row lock.

export const QUOTE_TTL_SECONDS = 15 * 60;
/** Tokens this close to their expiry are renewed before use. */
const REFRESH_MARGIN_MS = 5 * 60 * 1000;
const APP_NAME = "feira";

type Scope = Pick<RequestCtx, "merchantId" | "environment">;

export interface QuoteOption {
  serviceId: number;
  name: string;
  company: string;
  priceMinor: number;
  deliveryTime: number | null;
}

export interface ShippingServiceDeps {
  db: Db;
  config: Pick<Config, "publicBaseUrl" | "panelUrl" | "shippingProviderUrl" | "shippingUserAgentEmail" | "jwtSecret" | "encryptionKey">;
  sealer: Sealer;
  client: MelhorEnvioClient;
  merchants: Pick<MerchantService, "getMerchant">;
  now?: () => number;
}

/** "01310-100" or "01310100" -> "01310100"; null for anything else. */
export function postalCodeDigits(raw: string): string | null {
  const m = /^\s*(\d{5})-?(\d{3})\s*$/.exec(raw);
  return m ? `${m[1]}${m[2]}` : null;
}

const notConnected = () =>
  new AppError("invalid_state", "Melhor Envio is not connected: save credentials, then connect with GET /v1/shipping-provider/oauth/authorize");

/** What a buyer or merchant sees when the provider misbehaves: no provider text. */
function providerProblem(err: unknown): unknown {
  if (!(err instanceof ProviderFailure)) return err;
  if (err.kind === "rate_limited") return new AppError("unavailable", "The shipping provider is busy; retry in a minute");
  if (err.kind === "unauthenticated") return new AppError("invalid_state", "Melhor Envio refused the connection's token; the merchant must connect again");
  if (err.kind === "forbidden") return new AppError("invalid_state", "The Melhor Envio connection lacks the shipping-calculate permission; connect again");
  return new AppError("unavailable", "The shipping provider is unavailable right now; retry shortly");
}

export function createShippingService(deps: ShippingServiceDeps) {
  const { db, sealer, client, config } = deps;
  const now = deps.now ?? Date.now;
  const key = stateKey(config);
  const redirectUri = `${config.publicBaseUrl}/v1/shipping-provider/oauth/callback`;
  // The AAD binds each sealed value to its merchant, environment and purpose.
  const aad = (s: Scope, what: string) => `shipping:${what}:${s.merchantId}:${s.environment}`;

  async function saveCredentials(ctx: Scope, body: { clientId: string; clientSecret: string }) {
    await repo.saveCredentials(db, ctx, body.clientId.trim(), sealer.seal(body.clientSecret, aad(ctx, "client_secret")));
    return status(ctx);
  }

  async function authorizeUrl(ctx: Scope) {
    const row = await repo.findIntegration(db, ctx);
    if (!row?.clientId) throw new AppError("invalid_state", "Save the Melhor Envio client id and secret first (POST /v1/shipping-provider/credentials)");
    const { state, payload } = signState(key, ctx.merchantId, ctx.environment, now());
    await repo.insertState(db, { nonce: payload.nonce, merchantId: ctx.merchantId, environment: ctx.environment, expiresAt: new Date(payload.expiresAt) });
    const url = new URL(`${config.shippingProviderUrl}/oauth/authorize`);
    url.search = new URLSearchParams({ response_type: "code", client_id: row.clientId, redirect_uri: redirectUri, scope: "shipping-calculate", state }).toString();
    return { url: url.toString(), expiresAt: new Date(payload.expiresAt).toISOString() };
  }

  /**
   * The provider sends the merchant's browser here. Returns where to send it next: the panel,
   * with the outcome in the query. A missing, forged, expired or reused state connects nothing.
   */
  async function callback(query: { code?: string; state?: string; error?: string }): Promise<string> {
    const panel = (outcome: Record<string, string>) => {
      const url = new URL(config.panelUrl);
      for (const [k, v] of Object.entries(outcome)) url.searchParams.set(k, v);
      return url.toString();
    };
    const claims = verifyState(key, query.state, now());
    if (!claims || !(await repo.consumeState(db, claims.nonce, claims))) return panel({ shipping: "error", reason: "invalid_state" });
    const scope = { merchantId: claims.merchantId, environment: claims.environment };
    if (query.error || !query.code) return panel({ shipping: "error", reason: "access_denied" });
    const row = await repo.findIntegration(db, scope);
    if (!row?.clientId || !row.clientSecretSealed) return panel({ shipping: "error", reason: "no_credentials" });
    let tokens: TokenSet;
    try {
      tokens = await client.exchangeCode({ clientId: row.clientId, clientSecret: sealer.open(row.clientSecretSealed, aad(scope, "client_secret")), redirectUri, code: query.code });
    } catch (err) {
      if (!(err instanceof ProviderFailure)) throw err;
      return panel({ shipping: "error", reason: err.kind === "grant_refused" ? "code_refused" : "provider_unavailable" });
    }
    await repo.saveTokens(db, scope, sealTokens(scope, tokens), true);
    return panel({ shipping: "connected" });
  }

  const sealTokens = (s: Scope, t: TokenSet) => ({
    accessTokenSealed: sealer.seal(t.accessToken, aad(s, "access_token")),
    refreshTokenSealed: sealer.seal(t.refreshToken, aad(s, "refresh_token")),
    tokenExpiresAt: t.expiresAt,
  });

  async function status(ctx: Scope) {
    const row = await repo.findIntegration(db, ctx);
    return {
      connected: row?.status === "active",
      status: row?.status ?? ("inactive" as const),
      provider: "melhor_envio" as const,
      hasCredentials: Boolean(row?.clientId && row.clientSecretSealed),
      clientId: row?.clientId ?? null,
      originPostalCode: row?.originPostalCode ?? null,
      enabledServices: row?.enabledServices ?? [],
      tokenExpiresAt: row?.tokenExpiresAt?.toISOString() ?? null,
    };
  }

  async function userAgent(s: Scope): Promise<string> {
    const email = config.shippingUserAgentEmail ?? (await deps.merchants.getMerchant(s.merchantId)).email;
    return `${APP_NAME} (${email})`;
  }

  /**
   * A fresh access token, renewed once however many requests find it stale: the first takes
   * the integration's row lock, re-reads, and renews only if nobody did meanwhile; the others
   * wait on the lock and then find the new token. The lock's transaction does nothing else, so
   * the one network call made under it holds no other work. A refused refresh deactivates the
   * integration and tells the merchant (shipping.integration_inactive).
   */
  async function renew(s: Scope, staleSealed: string): Promise<{ token: string; sealed: string }> {
    const outcome = await withTx(db, async (tx) => {
      const row = await repo.lockIntegration(tx, s);
      if (!row || row.status !== "active" || !row.accessTokenSealed || !row.refreshTokenSealed) return { revoked: true as const };
      if (row.accessTokenSealed !== staleSealed) {
        return { token: sealer.open(row.accessTokenSealed, aad(s, "access_token")), sealed: row.accessTokenSealed };
      }
      try {
        const tokens = await client.refresh({
          clientId: row.clientId ?? "",
          clientSecret: row.clientSecretSealed ? sealer.open(row.clientSecretSealed, aad(s, "client_secret")) : "",
          refreshToken: sealer.open(row.refreshTokenSealed, aad(s, "refresh_token")),
        });
        const sealed = sealTokens(s, tokens);
        await repo.saveTokens(tx, s, sealed, false);
        return { token: tokens.accessToken, sealed: sealed.accessTokenSealed };
      } catch (err) {
        if (!(err instanceof ProviderFailure && err.kind === "grant_refused")) throw err;
        await repo.deactivate(tx, s);
        await recordEvent(tx, {
          merchantId: s.merchantId, environment: s.environment, type: "shipping.integration_inactive", objectId: `shipping:${s.merchantId}`,
          data: { provider: "melhor_envio", environment: s.environment, status: "inactive", reason: "refresh_refused" },
        });
        return { revoked: true as const };
      }
    });
    if ("revoked" in outcome) {
      throw new AppError("invalid_state", "The Melhor Envio connection was revoked or has expired; the merchant must connect again");
    }
    return outcome;
  }

  /** Runs `fn` with a valid token: renewed first when about to expire, and once more on a 401. */
  async function withAccessToken<T>(s: Scope, fn: (token: string, ua: string) => Promise<T>): Promise<T> {
    const row = await repo.findIntegration(db, s);
    if (row?.status !== "active" || !row.accessTokenSealed) throw notConnected();
    const ua = await userAgent(s);
    let used = { token: sealer.open(row.accessTokenSealed, aad(s, "access_token")), sealed: row.accessTokenSealed };
    if (!row.tokenExpiresAt || row.tokenExpiresAt.getTime() - now() < REFRESH_MARGIN_MS) used = await renew(s, used.sealed);
    try {
      return await fn(used.token, ua);
    } catch (err) {
      if (!(err instanceof ProviderFailure && err.kind === "unauthenticated")) throw providerProblem(err);
    }
    // Rejected before its time (revoked, or the provider's clock): renew once and retry once.
    used = await renew(s, used.sealed);
    try {
      return await fn(used.token, ua);
    } catch (err) {
      throw providerProblem(err);
    }
  }

  async function services(ctx: Scope) {
    return withAccessToken(ctx, (token, ua) => client.listServices(token, ua));
  }

  async function updateSettings(ctx: Scope, body: { originPostalCode: string; enabledServices: number[] }) {
    const origin = postalCodeDigits(body.originPostalCode);
    if (!origin) throw invalid("originPostalCode must be a CEP: 00000-000 or 00000000");
    const wanted = [...new Set(body.enabledServices)];
    const known = new Set((await services(ctx)).map((s) => s.id));
    const unknown = wanted.filter((id) => !known.has(id));
    if (unknown.length > 0) throw invalid(`enabledServices: ${unknown.join(", ")} ${unknown.length === 1 ? "is not a service" : "are not services"} of this Melhor Envio account (see GET /v1/shipping-provider/services)`);
    await repo.updateSettings(db, ctx, origin, wanted);
    return status(ctx);
  }

  async function disconnect(ctx: Scope): Promise<void> {
    await repo.deactivate(db, ctx);
  }

  const hasActiveIntegration = (merchantId: string, environment?: Environment) => repo.anyActive(db, merchantId, environment);

  /**
   * Live freight for a cart: only enabled services, provider entries with an error
   * dropped, cheapest first; cached 15 minutes in the database per link, destination, cart and
   * the settings that shape the answer (so a settings change is never served stale).
   */
  async function quote(s: Scope, input: { linkId: string; toPostalCode: string; products: CalculateInput["products"] }): Promise<QuoteOption[]> {
    const row = await repo.findIntegration(db, s);
    if (row?.status !== "active") throw new AppError("invalid_state", "Live freight is not available for this link: the merchant's Melhor Envio connection is inactive");
    if (!row.originPostalCode || row.enabledServices.length === 0) {
      throw new AppError("invalid_state", "Live freight is not configured for this link: the merchant has not set an origin CEP and enabled services");
    }
    const enabled = [...row.enabledServices].sort((a, b) => a - b);
    const cacheKey = createHash("sha256").update(JSON.stringify([input.linkId, row.originPostalCode, enabled, input.toPostalCode, input.products])).digest("hex");
    const cached = await repo.cachedQuote(db, cacheKey);
    if (cached) return cached as unknown as QuoteOption[];
    const quoted = await withAccessToken(s, (token, ua) =>
      client.calculate(token, ua, { fromPostalCode: row.originPostalCode!, toPostalCode: input.toPostalCode, products: input.products, services: enabled }));
    const options = quoted
      .filter((q) => q.error === null && q.priceMinor !== null && enabled.includes(q.id))
      .map((q) => ({ serviceId: q.id, name: q.name, company: q.company.name, priceMinor: q.priceMinor!, deliveryTime: q.deliveryTime }))
      .sort((a, b) => a.priceMinor - b.priceMinor || a.serviceId - b.serviceId);
    await repo.storeQuote(db, cacheKey, input.linkId, options as unknown as Record<string, unknown>[], QUOTE_TTL_SECONDS);
    return options;
  }

  return {
    saveCredentials, authorizeUrl, callback, status, services, updateSettings, disconnect, hasActiveIntegration, quote,
  };
}

export type ShippingService = ReturnType<typeof createShippingService>;
