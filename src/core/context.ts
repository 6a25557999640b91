import type { Environment, Scope } from "../db/scope.js";

export type { Environment, Scope };

export interface Actor {
  type: "api_key" | "jwt" | "admin" | "public" | "system";
  /** The API key id, the merchant id of a JWT, "admin", "public", or the job's name (system). */
  id: string;
}

/** Travels with every request into services: who asks, for which merchant and environment. */
export interface RequestCtx extends Scope {
  actor: Actor;
  requestId: string;
  /**
   * Set when the request holds an Idempotency-Key claim: the seed from which it derives the ids
   * of what it creates (lib/ids.ts seededId), the same on every retry of the key.
   */
  idempotencySeed?: string;
  /** The seed was made for this request (a new claim): nothing can have been created with it. */
  idempotencySeedFresh?: boolean;
}

/**
 * The context of work that no request started (a job, a listener of another module's change):
 * its actor is the job, never a made-up key; `seed` derives ids as an Idempotency-Key would.
 */
export function systemCtx(scope: Scope, job: string, seed?: string): RequestCtx {
  return {
    merchantId: scope.merchantId, environment: scope.environment, actor: { type: "system", id: job }, requestId: `${job}:${scope.merchantId}`,
    ...(seed ? { idempotencySeed: seed } : {}),
  };
}

/** A secret key found by its hash: whose it is and in which environment it acts. */
export interface KeyPrincipal {
  keyId: string;
  merchantId: string;
  environment: Environment;
  merchantStatus: string;
}

/**
 * What authentication asks of the merchants module (src/http/auth.ts uses it; the merchants
 * service answers it), declared here so that neither imports the other.
 */
export interface Authenticator {
  /** Finds an active secret key (by its hash); null when unknown or revoked. */
  findKey(key: string): Promise<KeyPrincipal | null>;
  isAdminKey(key: string): Promise<boolean>;
  /** Checks a merchant named by a JWT still exists and is active. */
  merchantStatus(merchantId: string): Promise<string | null>;
}
