import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { and, eq, lt } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { idempotencyKeys } from "../db/schema.js";
import { createHmac } from "node:crypto";
import { stableStringify } from "../lib/json.js";
import type { Sealer } from "../lib/crypto.js";
import { AppError } from "./errors.js";
import type { Environment } from "./context.js";

// Idempotency-Key on every POST (CONTRACT section 4), scoped per merchant, environment and
// route. The first request inserts a "processing" claim (the primary key makes concurrent
// duplicates lose the insert); its response is saved when sent. A duplicate with the same
// body replays that response; with another body it gets 422; while the first is still
// running it waits, and after WAIT_MS it gets 409. Only 2xx/3xx responses are saved: a 4xx or
// 5xx committed nothing, so a retry (corrected, or after a server failure) runs again.
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const WAIT_MS = 10_000;
const ABANDONED_MS = 60_000;

interface Claim {
  scope: string;
  environment: Environment;
  route: string;
  key: string;
}

declare module "fastify" {
  interface FastifyRequest {
    idempotencyClaim?: Claim;
  }
}

/**
 * `hashKey` keys the request fingerprint (HMAC-SHA256): bodies may hold card numbers, and
 * PCI DSS allows only keyed hashes of a PAN to be stored.
 */
export function registerIdempotency(app: FastifyInstance, db: Db, hashKey: string, sealer: Sealer): void {
  // Stored responses are sealed: some show a secret once (new API keys, webhook secrets).
  const aad = (c: Claim) => `idempotency:${c.scope}:${c.environment}:${c.route}:${c.key}`;
  // The key's shape is checked before schema validation, so that a bad key is the same 400 on
  // every POST route, whether or not the route's schema declares the header (which would
  // otherwise answer 422).
  app.addHook("preValidation", async (req) => {
    if (req.method !== "POST" || req.routeOptions.config?.idempotent === false) return;
    const header = req.headers["idempotency-key"];
    if (header === undefined) return;
    if (typeof header !== "string" || header.length < 1 || header.length > 255) {
      throw new AppError("bad_request", "Idempotency-Key must be a single value of 1 to 255 characters");
    }
  });

  app.addHook("preHandler", async (req, reply) => {
    if (req.method !== "POST" || req.routeOptions.config?.idempotent === false) return;
    const header = req.headers["idempotency-key"];
    if (typeof header !== "string") return;
    const claim: Claim = {
      scope: req.ctx.merchantId || req.ctx.actor.type,
      environment: req.ctx.environment,
      route: `${req.method} ${req.url.split("?")[0]}`,
      key: header,
    };
    const requestHash = createHmac("sha256", hashKey).update(stableStringify(req.body ?? null)).digest("hex");
    const match = and(
      eq(idempotencyKeys.scope, claim.scope),
      eq(idempotencyKeys.environment, claim.environment),
      eq(idempotencyKeys.route, claim.route),
      eq(idempotencyKeys.key, claim.key),
    );
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const inserted = await db
        .insert(idempotencyKeys)
        .values({ ...claim, requestHash, state: "processing" })
        .onConflictDoNothing()
        .returning({ key: idempotencyKeys.key });
      if (inserted.length > 0) {
        req.idempotencyClaim = claim;
        return;
      }
      const [row] = await db.select().from(idempotencyKeys).where(match);
      if (!row) continue; // expired and deleted in between: claim again
      const age = Date.now() - row.createdAt.getTime();
      if (age > IDEMPOTENCY_TTL_MS || (row.state === "processing" && age > ABANDONED_MS)) {
        // An expired key, or a claim whose process died before answering: start afresh.
        await db.delete(idempotencyKeys).where(and(match, eq(idempotencyKeys.createdAt, row.createdAt)));
        continue;
      }
      if (row.requestHash !== requestHash) {
        throw new AppError(
          "idempotency_mismatch",
          "Idempotency-Key was already used with a different request body; use a new key for a new request",
        );
      }
      if (row.state === "done") {
        return reply
          .code(row.responseStatus ?? 200)
          .header("idempotent-replayed", "true")
          .type(row.responseType ?? "application/json; charset=utf-8")
          .send(row.responseBody ? sealer.open(row.responseBody, aad(claim)) : "");
      }
      if (Date.now() > deadline) {
        throw new AppError("idempotency_in_progress", "A request with this Idempotency-Key is still being processed; retry later");
      }
      await sleep(25);
    }
  });

  app.addHook("onSend", async (req: FastifyRequest, reply, payload) => {
    const claim = req.idempotencyClaim;
    if (!claim) return payload;
    req.idempotencyClaim = undefined;
    const match = and(
      eq(idempotencyKeys.scope, claim.scope),
      eq(idempotencyKeys.environment, claim.environment),
      eq(idempotencyKeys.route, claim.route),
      eq(idempotencyKeys.key, claim.key),
    );
    // Only successes are kept: a failed request changed nothing, so a retry with a corrected
    // body (or after a server failure) runs again under the same key, as with Checkout.com.
    if (reply.statusCode >= 400) {
      await db.delete(idempotencyKeys).where(match);
    } else {
      await db
        .update(idempotencyKeys)
        .set({
          state: "done",
          responseStatus: reply.statusCode,
          responseBody: sealer.seal(typeof payload === "string" ? payload : String(payload ?? ""), aad(claim)),
          responseType: String(reply.getHeader("content-type") ?? "application/json; charset=utf-8"),
        })
        .where(match);
    }
    return payload;
  });
}

/** Removes keys past the 24 h window (run by the worker). */
export async function purgeIdempotencyKeys(db: Db, now = new Date()): Promise<void> {
  await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, new Date(now.getTime() - IDEMPOTENCY_TTL_MS)));
}
