import type { Config } from "../../config.js";
import type { Environment } from "../../core/context.js";
import { AppError } from "../../core/errors.js";
import { checkUrlTarget, resolveSafeTarget, type HostLookup, type ResolveResult, type SyntaxResult } from "../../lib/url-guard.js";

// Where a webhook or postback may go, and where a payment link may send its buyer. Production destinations must be https and
// must not resolve to loopback, private or reserved addresses. Sandbox ones may be http and
// local, so a developer can point them at their own machine, except on a server started with
// NODE_ENV=production: there a sandbox key would otherwise reach the server's own network.
// WEBHOOK_ALLOW_PRIVATE_URLS=true lifts both rules. Link-local and cloud metadata addresses
// are refused in every case by the guard itself (url-guard.ts), so no setting here can open
// them. The same rules run on save (checkDestination) and again before every send
// (resolveDestination), because a name that resolved to a public address when it was saved
// may resolve to 127.0.0.1 or 169.254.169.254 when the worker sends (DNS rebinding).

type DestinationConfig = Pick<Config, "webhookAllowPrivateUrls" | "production">;

export function destinationRules(environment: Environment, config: DestinationConfig) {
  const lifted = config.webhookAllowPrivateUrls;
  return {
    requireHttps: environment === "production" && !lifted,
    allowPrivate: lifted || (environment === "sandbox" && !config.production),
  };
}

/**
 * Checks a destination for sending now: the address to connect to (pinned by safePost), or
 * why not. The worker calls this before every attempt.
 */
export function resolveDestination(
  raw: string,
  environment: Environment,
  config: DestinationConfig,
  lookup?: HostLookup,
): Promise<ResolveResult> {
  return resolveSafeTarget(raw, { ...destinationRules(environment, config), lookup });
}

/**
 * Validates a webhook endpoint URL or a postback URL when it is saved, for the environment
 * of the request. Throws a 422 naming `field`; returns the normalized URL to store.
 */
export async function checkDestination(
  raw: string,
  environment: Environment,
  config: DestinationConfig,
  field: string,
  lookup?: HostLookup,
): Promise<string> {
  return normalizedOr422(await resolveDestination(raw.trim(), environment, config, lookup), field);
}

/**
 * The same rules for a URL a merchant gives that feira only sends a buyer's browser to (a
 * payment link's successUrl): checked as written, its name not resolved (see checkUrlTarget).
 */
export function checkBrowserDestination(raw: string, environment: Environment, config: DestinationConfig, field: string): string {
  return normalizedOr422(checkUrlTarget(raw.trim(), destinationRules(environment, config)), field);
}

function normalizedOr422(result: SyntaxResult | ResolveResult, field: string): string {
  // The guard's messages start with "url"; name the caller's field instead ("postbackUrl must use https").
  if (!result.ok) throw new AppError("validation_failed", result.message.replace(/^url\b/, field));
  return result.url.toString();
}
