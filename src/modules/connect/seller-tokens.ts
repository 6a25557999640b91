import { withTx, type Db } from "../../db/client.js";
import { AppError } from "../../core/errors.js";
import type { Sealer } from "../../lib/crypto.js";
import type { Scope } from "../../db/scope.js";
import type { TokenGrant } from "../../processors/accounts.js";
import type { ProviderAccountRef } from "../../processors/provider-split.js";
import type { ProcessorRegistry } from "../../processors/registry.js";
import * as repo from "./provider-accounts.repo.js";

// A seller's tokens at a processor (an account opened by the seller's own OAuth authorization):
// sealed at rest (AES-256-GCM, bound to the account by the AAD), opened only to make a call on
// the seller's account, and renewed before they expire, once however many callers find them
// stale: the first takes the account's row lock, re-reads it and renews only if nobody did
// meanwhile; the others wait on the lock and find the new token. The lock's transaction does
// nothing else, so the one network call made under it holds no other work. Tokens never leave
// this file but as the ProviderAccountRef an adapter is handed for one call.

/** A token this close to its expiry is renewed before use (and by the worker's sweep). */
export const TOKEN_REFRESH_MARGIN_MS = 24 * 3_600_000;

type Row = repo.ProviderAccountRow;
type Granted = Extract<TokenGrant, { outcome: "granted" }>;

const scopeOf = (r: Row): Scope => ({ merchantId: r.parentId, environment: r.environment });

export function createSellerTokens(deps: { db: Db; sealer: Sealer; processors: Pick<ProcessorRegistry, "adapter">; now?: () => number }) {
  const { db, sealer } = deps;
  const now = deps.now ?? Date.now;
  const aad = (r: Pick<Row, "processor" | "submerchantId" | "environment">, what: string) =>
    `provider-account:${what}:${r.processor}:${r.submerchantId}:${r.environment}`;

  /** The columns of a grant, sealed; publicKey (public by design) kept in the account's details. */
  const sealed = (r: Row, g: Granted) => ({
    accessTokenSealed: sealer.seal(g.accessToken, aad(r, "access_token")),
    refreshTokenSealed: sealer.seal(g.refreshToken, aad(r, "refresh_token")),
    tokenExpiresAt: g.expiresAt,
    ...(g.publicKey ? { details: { ...r.details, publicKey: g.publicKey } } : {}),
  });

  const refOf = (r: Row & { externalId: string }): ProviderAccountRef => ({
    account: r.externalId,
    ...(r.accessTokenSealed ? { accessToken: sealer.open(r.accessTokenSealed, aad(r, "access_token")) } : {}),
    ...(r.details.publicKey ? { publicKey: r.details.publicKey } : {}),
  });

  const stale = (r: Row) => Boolean(r.refreshTokenSealed) && (!r.tokenExpiresAt || r.tokenExpiresAt.getTime() - now() < TOKEN_REFRESH_MARGIN_MS);

  const oauthOf = (r: Row) => deps.processors.adapter(r.environment, r.processor)?.accounts?.oauth;

  /** Renews the account's tokens once (row lock, re-read); the account as it is after. */
  async function renew(r: Row): Promise<Row> {
    return withTx(db, async (tx) => {
      const locked = await repo.lockProviderAccount(tx, scopeOf(r), r.submerchantId, r.processor);
      if (!locked || !stale(locked) || !locked.refreshTokenSealed) return locked ?? r;
      const oauth = oauthOf(locked);
      if (!oauth) return locked;
      const grant = await oauth.refresh(sealer.open(locked.refreshTokenSealed, aad(locked, "refresh_token")));
      if (grant.outcome === "granted") {
        return (await repo.updateProviderAccount(tx, scopeOf(locked), locked.submerchantId, locked.processor, sealed(locked, grant))) ?? locked;
      }
      // No answer: the token in hand serves while it lasts; the next use or sweep tries again.
      if (grant.outcome === "unknown") return locked;
      // The processor refused the refresh (the seller revoked the application): the seller must authorize again.
      return (await repo.updateProviderAccount(tx, scopeOf(locked), locked.submerchantId, locked.processor, {
        status: "pending", reason: `the processor refused to renew the seller's authorization (${grant.message}); authorize again`,
        accessTokenSealed: null, refreshTokenSealed: null, tokenExpiresAt: null,
      })) ?? locked;
    });
  }

  /** The account for a call on the seller's account: its token fresh (renewed first when it is about to expire). */
  async function fresh(r: Row & { externalId: string }): Promise<ProviderAccountRef> {
    if (!r.accessTokenSealed) return refOf(r);
    const row = stale(r) ? await renew(r) : r;
    if (row.status !== "active" || !row.accessTokenSealed || !row.externalId || (row.tokenExpiresAt && row.tokenExpiresAt.getTime() <= now())) {
      throw new AppError("submerchant_not_at_provider", `submerchant ${r.submerchantId}'s authorization at ${r.processor} has expired or was revoked: authorize again with POST /v1/submerchants/${r.submerchantId}/provider-accounts {processor: "${r.processor}"}`);
    }
    return refOf({ ...row, externalId: row.externalId });
  }

  /** The tokens of an authorization just granted, sealed for the account's row. */
  const grantColumns = (r: Row, g: Granted) => sealed(r, g);

  /** The worker's sweep: every token that expires within the margin is renewed (once each). */
  async function sweep(): Promise<number> {
    let renewed = 0;
    for (const r of await repo.tokensExpiringBefore(db, new Date(now() + TOKEN_REFRESH_MARGIN_MS))) {
      const after = await renew(r);
      if (after.tokenExpiresAt?.getTime() !== r.tokenExpiresAt?.getTime()) renewed++;
    }
    return renewed;
  }

  return { fresh, grantColumns, sweep, aad };
}

export type SellerTokens = ReturnType<typeof createSellerTokens>;
