import { type Client, type ClientOptions } from "openapi-fetch";
import type { components, operations, paths } from "./schema.js";
export type { components, operations, paths };
export type FeiraClient = Client<paths>;
export interface FeiraClientOptions extends Omit<ClientOptions, "baseUrl"> {
    /** Where feira runs, e.g. http://localhost:3000 (no trailing /v1). */
    baseUrl: string;
    /** A secret key: sk_test_... acts on sandbox data, sk_live_... on production data. */
    apiKey: string;
}
/**
 * A typed client of the feira API: paths, bodies, query parameters and answers are checked by
 * TypeScript against the server's OpenAPI document. The key goes as the HTTP Basic username
 * with an empty password.
 */
export declare function createFeiraClient({ baseUrl, apiKey, headers, ...rest }: FeiraClientOptions): FeiraClient;
/** A fresh Idempotency-Key for a POST: retry with the same one and nothing is created twice. */
export declare const idempotencyKey: () => string;
