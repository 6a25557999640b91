import { isIP } from "node:net";
import type { Config } from "../../config.js";
import type { Environment } from "../../http/context.js";
import { AppError } from "../../http/errors.js";
import { resolveSafeTarget, type HostLookup, type ResolveResult } from "../../lib/url-guard.js";

// Where a webhook or postback may go (CONTRACT 6). Production destinations must be https and
// must not resolve to loopback, private, link-local, metadata or reserved addresses; sandbox
// ones may be http and local, so a developer can point them at their own machine. Both rules
// are lifted by WEBHOOK_ALLOW_PRIVATE_URLS=true. The same rules run on save (checkDestination)
// and again before every send (resolveDestination), because a name that resolved to a public
// address when it was saved may resolve to 127.0.0.1 when the worker sends (DNS rebinding).

type DestinationConfig = Pick<Config, "webhookAllowPrivateUrls">;

const METADATA_MESSAGE = "url must not point to a link-local or cloud metadata address";

// Even in sandbox, where local addresses are allowed, link-local and the cloud metadata
// services stay out: no developer needs them as a webhook receiver, and a sandbox key must
// not be a way to read the host's cloud credentials through the delivery log.
function isMetadataAddress(ip: string): boolean {
  const bare = ip.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "").toLowerCase();
  if (isIP(bare) === 4) return bare.startsWith("169.254.") || bare === "100.100.100.200";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare)?.[1];
  if (mapped !== undefined) return isMetadataAddress(mapped);
  return /^fe[89ab][0-9a-f]:/.test(bare) || bare === "fd00:ec2::254";
}

export function destinationRules(environment: Environment, config: DestinationConfig) {
  const strict = environment === "production" && !config.webhookAllowPrivateUrls;
  return { requireHttps: strict, allowPrivate: !strict, blockMetadata: !config.webhookAllowPrivateUrls };
}

/**
 * Checks a destination for sending now: the address to connect to (pinned by safePost), or
 * why not. The worker calls this before every attempt.
 */
export async function resolveDestination(
  raw: string,
  environment: Environment,
  config: DestinationConfig,
  lookup?: HostLookup,
): Promise<ResolveResult> {
  const rules = destinationRules(environment, config);
  const result = await resolveSafeTarget(raw, { requireHttps: rules.requireHttps, allowPrivate: rules.allowPrivate, lookup });
  if (result.ok && rules.blockMetadata && isMetadataAddress(result.address)) return { ok: false, message: METADATA_MESSAGE };
  return result;
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
  const result = await resolveDestination(raw.trim(), environment, config, lookup);
  // The guard's messages start with "url"; name the caller's field instead ("postbackUrl must use https").
  if (!result.ok) throw new AppError("validation_failed", result.message.replace(/^url\b/, field));
  return result.url.toString();
}
