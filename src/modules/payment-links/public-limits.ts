import type { FastifyReply, FastifyRequest } from "fastify";
import { RateLimiterDrizzle, RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import { rateLimits } from "../../db/schema.js";
import { AppError } from "../../core/errors.js";
import { clientAddressKey } from "../../lib/client-address.js";

// The checkout's public calls have no key to count against, so they are counted per client
// address and link: card testing through a link and quote floods (each a provider call) stop
// here. Shared through the rate_limits table on PostgreSQL, like the per-key limits.
export function createPublicLimits(deps: { config: Pick<Config, "databaseUrl">; db: Db }) {
  const make = (keyPrefix: string, points: number, duration: number) =>
    deps.config.databaseUrl
      ? new RateLimiterDrizzle({ keyPrefix, points, duration, storeClient: deps.db, schema: rateLimits, clearExpiredByTimeout: false })
      : new RateLimiterMemory({ keyPrefix, points, duration });
  const limiters = { charge: make("pl_charge", 20, 60), quote: make("pl_quote", 60, 60) };

  return (kind: keyof typeof limiters) => async (req: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
    try {
      await limiters[kind].consume(`${clientAddressKey(req.ip)}:${req.params.id}`);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) return void req.log.warn({ err }, "checkout rate-limit store failed; not applied");
      reply.header("retry-after", String(Math.max(1, Math.ceil(err.msBeforeNext / 1000))));
      throw new AppError("rate_limited", "Too many attempts from this address; retry in a minute");
    }
  };
}
