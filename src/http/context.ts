import type { RequestCtx } from "../core/context.js";

// What the HTTP layer adds to the request context (src/core/context.ts): how a route
// authenticates, and the per-route options its hooks read.

export type AuthMode = "secretKey" | "jwt" | "keyOrJwt" | "admin" | "public";

declare module "fastify" {
  interface FastifyRequest {
    ctx: RequestCtx;
  }
  interface FastifyContextConfig {
    auth?: AuthMode;
    /** Idempotency-Key handling for this POST route (on by default for POST). */
    idempotent?: boolean;
    /**
     * Response fields that show a secret once (dotted paths, e.g. "secret", "apiKeys.sandbox"):
     * an idempotent replay answers them as null and names them in Idempotent-Redacted-Fields.
     */
    secretFields?: string[];
  }
}
