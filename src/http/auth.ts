import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import { AppError } from "../core/errors.js";
import type { AuthMode } from "./context.js";
import type { Authenticator, RequestCtx } from "../core/context.js";
import type { AuthFailureGuard } from "./rate-limit.js";
import { errors } from "./schemas.js";
import { EXPECTED, unauthorizedMessage } from "./unauthorized.js";

const SECURITY: Record<AuthMode, Record<string, string[]>[]> = {
  secretKey: [{ secretKey: [] }],
  jwt: [{ bearerJwt: [] }],
  keyOrJwt: [{ secretKey: [] }, { bearerJwt: [] }],
  admin: [{ adminKey: [] }],
  public: [],
};

export const securitySchemes = {
  secretKey: {
    type: "http",
    scheme: "basic",
    description: "Secret API key as the username, empty password. sk_test_ keys act in sandbox, sk_live_ keys in production.",
  },
  bearerJwt: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "Merchant token from POST /v1/auth/login." },
  adminKey: { type: "http", scheme: "basic", description: "Administrator key as the username, empty password." },
} as const;

class Unauthorized extends AppError {
  constructor(readonly why: string) {
    super("unauthorized", "Unauthorized");
  }
}
const unauthorized = (why = "the credentials are missing, malformed, unknown or revoked") => new Unauthorized(why);

function parseAuthorization(header: string | undefined): { scheme: string; value: string } | null {
  if (!header) return null;
  const space = header.indexOf(" ");
  if (space <= 0) return null;
  return { scheme: header.slice(0, space).toLowerCase(), value: header.slice(space + 1).trim() };
}

/** The username of HTTP Basic, which carries the key; the password is ignored (as Stripe does). */
function basicUser(value: string): string | null {
  if (!/^[A-Za-z0-9+/=]+$/.test(value)) return null;
  const decoded = Buffer.from(value, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const user = colon === -1 ? decoded : decoded.slice(0, colon);
  return user.length > 0 && user.length <= 200 ? user : null;
}

/**
 * onRoute (src/http/hooks.ts): each route declares its mode once (config.auth); the OpenAPI
 * security follows from it.
 */
export function declareAuthMode(route: RouteOptions): void {
  // Routes of documentation plugins are hidden from the document and public; every other
  // route needs a secret key unless it says otherwise.
  const hidden = Boolean((route.schema as { hide?: boolean } | undefined)?.hide);
  const mode: AuthMode = route.config?.auth ?? (hidden ? "public" : "secretKey");
  route.config = { ...route.config, auth: mode };
  if (hidden) return;
  // Every route with credentials may answer 429: the per-key limit, or a locked-out address.
  const response = route.schema?.response as Record<number, unknown> | undefined;
  const limited = mode !== "public" && response && !response[429] ? { response: { ...response, ...errors(429) } } : {};
  route.schema = { ...route.schema, ...limited, security: SECURITY[mode] } as typeof route.schema;
}

/** onRequest: sets req.ctx from the credentials the route's mode takes, or answers 401/403/429. */
export function authenticateRequest(app: FastifyInstance, auth: Authenticator, failures: AuthFailureGuard) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!req.routeOptions.url) return; // unknown routes go to the not-found handler
    // A route added before the onRoute hooks (src/http/hooks.ts) never had its mode set by
    // declareAuthMode: apply the same rule, hidden means public.
    const hidden = Boolean((req.routeOptions.schema as { hide?: boolean } | undefined)?.hide);
    const mode = req.routeOptions.config?.auth ?? (hidden ? "public" : "secretKey");
    if (mode === "public") {
      req.ctx = await authenticate(app, auth, req, mode);
      return;
    }
    try {
      req.ctx = await authenticate(app, auth, req, mode);
    } catch (err) {
      if (!(err instanceof Unauthorized)) throw err;
      // Only failed credentials meet the address lockout. Valid ones are limited by their own
      // per-key limit, never by what other clients behind the same address (a NAT, an office)
      // got wrong; a locked-out address's failures are refused with 429 and not counted again.
      await failures.check(req.ip, reply);
      await failures.recordFailure(req.ip, reply);
      reply.header("www-authenticate", EXPECTED[mode].challenge);
      throw new AppError("unauthorized", unauthorizedMessage(mode, err.why));
    }
  };
}

async function authenticate(app: FastifyInstance, auth: Authenticator, req: FastifyRequest, mode: AuthMode): Promise<RequestCtx> {
  const requestId = String(req.id);
  if (mode === "public") return { merchantId: "", environment: "sandbox", actor: { type: "public", id: "public" }, requestId };
  const parsed = parseAuthorization(req.headers.authorization);
  if (!parsed) throw unauthorized("no Authorization header");

  if (parsed.scheme === "basic" && mode !== "jwt") {
    const key = basicUser(parsed.value);
    if (!key) throw unauthorized();
    if (mode === "admin") {
      if (!(await auth.isAdminKey(key))) throw unauthorized();
      return { merchantId: "", environment: "production", actor: { type: "admin", id: "admin" }, requestId };
    }
    const principal = await auth.findKey(key);
    if (!principal) {
      // The admin key sent to a merchant route is a common first mistake: name it, so the
      // answer says which key to use instead (the caller holds the key; this reveals nothing).
      throw unauthorized((await auth.isAdminKey(key)) ? "this is the admin key, which only the /v1/admin routes take" : "the key is unknown or revoked");
    }
    if (principal.merchantStatus !== "active") throw new AppError("forbidden", "Forbidden: the merchant account is not active");
    return {
      merchantId: principal.merchantId,
      environment: principal.environment,
      actor: { type: "api_key", id: principal.keyId },
      requestId,
    };
  }

  if (parsed.scheme === "bearer" && (mode === "jwt" || mode === "keyOrJwt")) {
    let claims: { sub?: unknown; env?: unknown };
    try {
      claims = app.jwt.verify(parsed.value);
    } catch {
      throw unauthorized("the token is invalid or expired");
    }
    const merchantId = typeof claims.sub === "string" ? claims.sub : "";
    const environment = claims.env === "production" ? "production" : "sandbox";
    const status = merchantId ? await auth.merchantStatus(merchantId) : null;
    if (!status) throw unauthorized();
    if (status !== "active") throw new AppError("forbidden", "Forbidden: the merchant account is not active");
    return { merchantId, environment, actor: { type: "jwt", id: merchantId }, requestId };
  }
  throw unauthorized();
}
