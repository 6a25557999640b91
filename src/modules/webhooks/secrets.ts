import type { Queryable } from "../../db/client.js";
import type { Sealer } from "../../lib/crypto.js";
import * as repo from "./endpoints.repo.js";
import { generateWebhookSecret } from "./signing.js";

// Signing secrets are kept only sealed (AES-256-GCM with ENCRYPTION_KEY). The AAD binds a
// sealed secret to its owner, so a value copied into another merchant's (or endpoint's) row
// does not open.
//
// Endpoint deliveries are signed with the endpoint's own secret. Postbacks (a charge's or a
// submerchant's postback URL, including the legacy charge.updated) have no endpoint, so they
// are signed with one secret per merchant and environment, created on first use and shown by
// GET /v1/webhook-endpoints/postback-secret.
export function createSecrets(sealer: Sealer) {
  const endpointAad = (merchantId: string, endpointId: string) => `whsec:${merchantId}:${endpointId}`;
  const postbackAad = (s: repo.Scope) => `postback:${s.merchantId}:${s.environment}`;

  function sealEndpointSecret(merchantId: string, endpointId: string, secret: string): string {
    return sealer.seal(secret, endpointAad(merchantId, endpointId));
  }

  function openEndpointSecret(row: { merchantId: string; id: string; secretSealed: string }): string {
    return sealer.open(row.secretSealed, endpointAad(row.merchantId, row.id));
  }

  /** The postback secret of a merchant and environment, created on first use. */
  async function postbackSecret(q: Queryable, s: repo.Scope): Promise<{ secret: string; createdAt: Date }> {
    let row = await repo.findPostbackSecret(q, s);
    if (!row) {
      await repo.insertPostbackSecretIfAbsent(q, s, sealer.seal(generateWebhookSecret(), postbackAad(s)));
      row = await repo.findPostbackSecret(q, s);
    }
    if (!row) throw new Error("postback secret vanished after insert");
    return { secret: sealer.open(row.secretSealed, postbackAad(s)), createdAt: row.createdAt };
  }

  async function rotatePostbackSecret(q: Queryable, s: repo.Scope): Promise<{ secret: string; createdAt: Date }> {
    const secret = generateWebhookSecret();
    const row = await repo.replacePostbackSecret(q, s, sealer.seal(secret, postbackAad(s)));
    return { secret, createdAt: row.createdAt };
  }

  return { sealEndpointSecret, openEndpointSecret, postbackSecret, rotatePostbackSecret };
}

export type Secrets = ReturnType<typeof createSecrets>;
