import createClient from "openapi-fetch";
/**
 * A typed client of the feira API: paths, bodies, query parameters and answers are checked by
 * TypeScript against the server's OpenAPI document. The key goes as the HTTP Basic username
 * with an empty password.
 */
export function createFeiraClient({ baseUrl, apiKey, headers, ...rest }) {
    const authorization = `Basic ${btoa(`${apiKey}:`)}`;
    return createClient({ ...rest, baseUrl: baseUrl.replace(/\/+$/, ""), headers: { ...headers, authorization } });
}
/** A fresh Idempotency-Key for a POST: retry with the same one and nothing is created twice. */
export const idempotencyKey = () => crypto.randomUUID();
