import type { AuthMode } from "./context.js";

// A 401 says what the route expected, and WWW-Authenticate names the scheme (RFC 9110 11.6.1),
// so that a developer who sent the key the wrong way learns how from the answer itself.
export const EXPECTED: Record<Exclude<AuthMode, "public">, { challenge: string; how: string }> = {
  secretKey: {
    challenge: 'Basic realm="feira"',
    how: "send your secret key (sk_test_... or sk_live_...) as the HTTP Basic username with an empty password, e.g. curl -u sk_test_...:",
  },
  jwt: {
    challenge: 'Bearer realm="feira"',
    how: "this route takes the merchant's login token: Authorization: Bearer <accessToken from POST /v1/auth/login>",
  },
  keyOrJwt: {
    challenge: 'Basic realm="feira", Bearer realm="feira"',
    how: "send your secret key as the HTTP Basic username with an empty password, or Authorization: Bearer <accessToken from POST /v1/auth/login>",
  },
  admin: { challenge: 'Basic realm="feira-admin"', how: "send the admin key as the HTTP Basic username with an empty password" },
};

/** The message of a 401: why the credentials failed, and how this route takes them. */
export const unauthorizedMessage = (mode: Exclude<AuthMode, "public">, why: string): string => `Unauthorized: ${why}; ${EXPECTED[mode].how}`;
