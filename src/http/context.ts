export type Environment = "sandbox" | "production";

export interface Actor {
  type: "api_key" | "jwt" | "admin" | "public";
  /** The API key id, the merchant id of a JWT, "admin", or "public". */
  id: string;
}

/** Travels with every request into services: who asks, for which merchant and environment. */
export interface RequestCtx {
  merchantId: string;
  environment: Environment;
  actor: Actor;
  requestId: string;
}

export type AuthMode = "secretKey" | "jwt" | "keyOrJwt" | "admin" | "public";

declare module "fastify" {
  interface FastifyRequest {
    ctx: RequestCtx;
  }
  interface FastifyContextConfig {
    auth?: AuthMode;
    /** Idempotency-Key handling for this POST route (on by default for POST). */
    idempotent?: boolean;
  }
}
