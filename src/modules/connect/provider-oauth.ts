import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { RequestCtx } from "../../core/context.js";
import { AppError } from "../../core/errors.js";
import { scopeOf } from "../../db/scope.js";
import { signState, stateKey, verifyState } from "../../lib/oauth-state.js";
import type { AccountCapability } from "../../processors/accounts.js";
import type { ProcessorRegistry } from "../../processors/registry.js";
import * as repo from "./provider-accounts.repo.js";
import type { SellerTokens } from "./seller-tokens.js";

// A seller's account opened by its own OAuth authorization of the marketplace's application
// (an adapter whose accounts declare `oauth`): the master asks for the authorize URL, whose
// `state` is signed, expires (10 minutes) and names the merchant, the environment and the
// submerchant; its nonce is kept on the account's row and consumed once by the callback. The
// processor sends the seller's browser to the callback with a code, exchanged for the seller's
// tokens, sealed before they are written. A missing, forged, tampered, expired or replayed state
// is a 400 and writes nothing; a code the processor refuses leaves the account pending.

export const OAUTH_CALLBACK_PATH = "/v1/connect/oauth/callback";

type OAuth = NonNullable<AccountCapability["oauth"]>;

export interface ProviderOAuthDeps {
  db: Db;
  processors: Pick<ProcessorRegistry, "adapter">;
  sellerTokens: Pick<SellerTokens, "grantColumns">;
  config: Pick<Config, "publicBaseUrl" | "jwtSecret" | "encryptionKey">;
  now?: () => number;
}

const BAD_STATE = "state is missing, forged, expired or already used: nothing was connected; ask for a new authorize URL (POST /v1/submerchants/{id}/provider-accounts)";

export function createProviderOAuth(deps: ProviderOAuthDeps) {
  const { db } = deps;
  const now = deps.now ?? Date.now;
  const key = stateKey(deps.config, "feira/provider-account-oauth-state/v1");
  const redirectUri = `${deps.config.publicBaseUrl}${OAUTH_CALLBACK_PATH}`;

  /** A new authorize URL for the account (pending, or refused): the state's nonce replaces any earlier one. */
  async function start(ctx: RequestCtx, row: repo.ProviderAccountRow, oauth: OAuth) {
    if (row.status === "active") return repo.accountView(row);
    const { state, payload } = signState(key, ctx.merchantId, ctx.environment, now(), row.submerchantId);
    const updated = await repo.updateProviderAccount(db, scopeOf(ctx), row.submerchantId, row.processor, { stateNonce: payload.nonce });
    return { ...repo.accountView(updated ?? row), authorizeUrl: oauth.authorizeUrl(state, redirectUri), authorizeUrlExpiresAt: new Date(payload.expiresAt).toISOString() };
  }

  /** GET /v1/connect/oauth/callback: the processor sends the seller's browser here. */
  async function callback(query: { code?: string; state?: string; error?: string }) {
    const claims = verifyState(key, query.state, now());
    if (!claims?.subject) throw new AppError("bad_request", BAD_STATE);
    const scope = { merchantId: claims.merchantId, environment: claims.environment };
    const row = await repo.consumeStateNonce(db, scope, claims.subject, claims.nonce);
    if (!row) throw new AppError("bad_request", BAD_STATE);
    if (query.error || !query.code) {
      throw new AppError("bad_request", `the seller did not authorize the application (${query.error ? "error" : "no code"}): nothing was connected; ask for a new authorize URL`);
    }
    const oauth = deps.processors.adapter(row.environment, row.processor)?.accounts?.oauth;
    if (!oauth) throw new AppError("bad_request", `processor ${row.processor} takes no authorization in ${row.environment}`);
    const grant = await oauth.exchange(query.code, redirectUri);
    if (grant.outcome === "unknown") throw new AppError("processor_busy", `the processor did not answer (${grant.failure.message}); ask for a new authorize URL and authorize again`);
    if (grant.outcome === "refused") {
      throw new AppError("bad_request", `the processor refused the authorization code (${grant.message}): nothing was connected; ask for a new authorize URL`);
    }
    const updated = await repo.updateProviderAccount(db, scope, row.submerchantId, row.processor, {
      ...deps.sellerTokens.grantColumns(row, grant), status: "active", externalId: grant.externalId, reason: null, checkedAt: new Date(now()),
    });
    return repo.accountView(updated ?? row);
  }

  return { start, callback };
}

export type ProviderOAuth = ReturnType<typeof createProviderOAuth>;
