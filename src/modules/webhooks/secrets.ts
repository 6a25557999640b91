import type { Queryable } from "../../db/client.js";
import type { Sealer } from "../../lib/crypto.js";
import * as repo from "./endpoints.repo.js";
import { generateWebhookSecret } from "./signing.js";

// Signing secrets are kept only sealed (AES-256-GCM with ENCRYPTION_KEY). The AAD binds a
// sealed secret to its owner, so a value copied into another merchant's (or endpoint's) row
// does not open. A rotated-out secret keeps its seal (same owner, same AAD): rotation moves
// the sealed value to the previous_secret column, it never decrypts it.
//
// Endpoint deliveries are signed with the endpoint's own secret. Postbacks (a charge's or a
// submerchant's postback URL, including the legacy charge.updated) have no endpoint, so they
// are signed with one secret per merchant and environment, created on first use and shown by
// GET /v1/webhook-endpoints/postback-secret.

/**
 * How long a rotated-out secret still signs deliveries, next to the new one: a day for the
 * merchant to deploy the new secret to every receiver without rejecting a single delivery.
 */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** A sealed secret and the one it replaced, if that one is still within its overlap. */
export interface SealedSecrets {
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
}

export function createSecrets(sealer: Sealer) {
  const endpointAad = (merchantId: string, endpointId: string) => `whsec:${merchantId}:${endpointId}`;
  const postbackAad = (s: repo.Scope) => `postback:${s.merchantId}:${s.environment}`;

  /** The secrets to sign with now: the current one first, then the previous one until it expires. */
  function openAll(row: SealedSecrets, aad: string, now: Date): string[] {
    const current = sealer.open(row.secretSealed, aad);
    const overlapping = row.previousSecretSealed !== null && row.previousSecretExpiresAt !== null && row.previousSecretExpiresAt > now;
    return overlapping ? [current, sealer.open(row.previousSecretSealed!, aad)] : [current];
  }

  function sealEndpointSecret(merchantId: string, endpointId: string, secret: string): string {
    return sealer.seal(secret, endpointAad(merchantId, endpointId));
  }

  function endpointSigningSecrets(row: SealedSecrets & { merchantId: string; id: string }, now = new Date()): string[] {
    return openAll(row, endpointAad(row.merchantId, row.id), now);
  }

  async function postbackRow(q: Queryable, s: repo.Scope): Promise<repo.PostbackSecretRow> {
    let row = await repo.findPostbackSecret(q, s);
    if (!row) {
      await repo.insertPostbackSecretIfAbsent(q, s, sealer.seal(generateWebhookSecret(), postbackAad(s)));
      row = await repo.findPostbackSecret(q, s);
    }
    if (!row) throw new Error("postback secret vanished after insert");
    return row;
  }

  /** The postback secret of a merchant and environment, created on first use. */
  async function postbackSecret(q: Queryable, s: repo.Scope): Promise<{ secret: string; createdAt: Date }> {
    const row = await postbackRow(q, s);
    return { secret: sealer.open(row.secretSealed, postbackAad(s)), createdAt: row.createdAt };
  }

  /** What postbacks are signed with now (see openAll). */
  async function postbackSigningSecrets(q: Queryable, s: repo.Scope, now = new Date()): Promise<string[]> {
    return openAll(await postbackRow(q, s), postbackAad(s), now);
  }

  async function rotatePostbackSecret(q: Queryable, s: repo.Scope) {
    const secret = generateWebhookSecret();
    const row = await repo.rotatePostbackSecret(q, s, sealer.seal(secret, postbackAad(s)), SECRET_OVERLAP_MS);
    return { secret, createdAt: row.createdAt, previousSecretExpiresAt: row.previousSecretExpiresAt };
  }

  return { sealEndpointSecret, endpointSigningSecrets, postbackSecret, postbackSigningSecrets, rotatePostbackSecret };
}

export type Secrets = ReturnType<typeof createSecrets>;
