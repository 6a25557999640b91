import { setTimeout as sleep } from "node:timers/promises";
import { createHmac } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { queryRows, sql, type Db } from "../db/client.js";
import { newSeed } from "../lib/ids.js";
import { stableStringify } from "../lib/json.js";
import type { Sealer } from "../lib/crypto.js";
import type { Task } from "../jobs/runner.js";
import { AppError } from "../core/errors.js";
import { isDatabaseUnavailable } from "../db/unavailable.js";
import type { Environment } from "../core/context.js";

// Idempotency-Key on every POST (docs/guarantees.md), scoped per merchant, environment and
// route (claimRoute: the route that matched, not the URL as spelled). Exactly-once rests on three
// parts:
// 1. The first request inserts a "processing" claim with a random seed and a lease. The primary
//    key makes concurrent duplicates lose the insert; they wait (bounded, with backoff) for the
//    answer, and get 409 if it does not come in time.
// 2. The request derives the ids of what it creates from the seed (seededId). A claim whose
//    process died (its lease ran out) is taken over by the next retry with the same body, which
//    keeps the seed: it finds the charge or refund the dead process may have committed and
//    answers with it, and the processor, called with the same id as its idempotency key,
//    answers a repeated call with its first result. Nothing is authorized or recorded twice.
// 3. The response is stored (sealed) when it is sent; a duplicate with the same body replays
//    it, with another body gets 422. A 4xx committed nothing (every route validates before any
//    side effect), so its claim is dropped and a corrected retry runs. A 5xx may have happened
//    after a side effect, so its claim is released but kept with its seed and body: the retry
//    with the same body re-runs under the same ids.
// Time is compared inside PostgreSQL only (now()), never against JavaScript Dates, whose
// millisecond precision never equals a microsecond timestamp. A key is stored as a keyed hash,
// never as typed (storedIdempotencyKey): clients put order numbers and other private references
// in it.
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const WAIT_MS = 5_000;

interface Claim {
  scope: string;
  environment: Environment;
  route: string;
  /** The key as stored: its keyed hash, or as typed for a claim stored before keys were hashed. */
  key: string;
  /** What seals the stored response (the AAD): bound to the key as typed, as it always was. */
  aad: string;
  /** The lease this request holds (locked_until as PostgreSQL wrote it): only its holder releases it. */
  lease?: string;
}

interface Held { seed: string; lease: string }

interface ClaimRow {
  key: string;
  seed: string;
  state: string;
  request_hash: string;
  response_status: number | null;
  response_body: string | null;
  response_type: string | null;
  expired: boolean;
  takeable: boolean;
}

declare module "fastify" {
  interface FastifyRequest {
    idempotencyClaim?: Claim;
  }
}

export interface IdempotencyOptions {
  /** HMAC key of the request fingerprint: bodies may hold card numbers (PCI DSS allows keyed hashes only). */
  hashKey: string;
  sealer: Sealer;
  /** How long a claim is its process's before a retry may take it over. */
  leaseMs: number;
}

// A route pattern's parameters as find-my-way writes them: `::` is a literal colon, `:name` may
// carry a `(regex)`, `*` is the wildcard.
const PARAM = /::|:([A-Za-z0-9_$]+)(?:\([^)]*\))?|\*/g;

/**
 * What a claim's route is: the method, the route that matched and its decoded parameters, so
 * every spelling that reaches one handler with the same parameters (`/v1/charges/`,
 * `/v1/charge%73`, an id with percent-encoded letters) is one request. The parameters are
 * written back into the pattern, URL-encoded, which gives the very path a client's usual
 * spelling has always been stored under: claims taken before this rule still match after it.
 * A pattern whose parameters cannot be written back keeps them as JSON beside it.
 */
export function claimRoute(method: string, pattern: string, params: Record<string, unknown>): string {
  const used = new Set<string>();
  let complete = true;
  const path = pattern.replace(PARAM, (token: string, name: string | undefined) => {
    if (token === "::") return ":";
    const key = name ?? "*";
    const value = params[key];
    if (typeof value !== "string") complete = false;
    used.add(key);
    return encodeURIComponent(String(value));
  });
  if (complete && Object.keys(params).every((k) => used.has(k))) return `${method} ${path}`;
  return `${method} ${pattern} ${stableStringify(params)}`;
}

/** The HMAC key of the request fingerprints and of the stored keys, from ENCRYPTION_KEY. */
export const idempotencyHashKey = (encryptionKey: string) => `idempotency:${encryptionKey}`;

/**
 * How an Idempotency-Key is stored: HMAC-SHA256 under the idempotency hash key, in hex. Its
 * message starts with "Idempotency-Key:", which no request fingerprint (JSON text) does.
 */
export function storedIdempotencyKey(hashKey: string, typed: string): string {
  return createHmac("sha256", hashKey).update(`Idempotency-Key:${typed}`).digest("hex");
}

const secs = (ms: number) => sql`make_interval(secs => ${ms / 1000}::float8)`;
const where = (c: Claim, key = c.key) =>
  sql`scope = ${c.scope} and environment = ${c.environment} and route = ${c.route} and key = ${key}`;

/** Sets the dotted paths to null; returns those that were present. */
function redact(payload: string, paths: string[]): { body: string; redacted: string[] } {
  let doc: unknown;
  try {
    doc = JSON.parse(payload);
  } catch {
    return { body: payload, redacted: [] };
  }
  const redacted: string[] = [];
  for (const path of paths) {
    const parts = path.split(".");
    let node = doc as Record<string, unknown> | null;
    for (const part of parts.slice(0, -1)) node = node && typeof node === "object" ? (node[part] as Record<string, unknown>) : null;
    const last = parts[parts.length - 1]!;
    if (node && typeof node === "object" && node[last] !== undefined && node[last] !== null) {
      node[last] = null;
      redacted.push(path);
    }
  }
  return { body: JSON.stringify(doc), redacted };
}

/**
 * The three hooks of a claim (src/http/hooks.ts places them): `checkKey` (preValidation) the
 * key's shape, `claimKey` (preHandler) takes or replays it, `store` (onSend) keeps the answer.
 */
export function idempotencyHooks(db: Db, opts: IdempotencyOptions) {
  const { sealer } = opts;
  const applies = (req: FastifyRequest) => req.method === "POST" && req.routeOptions.config?.idempotent !== false;

  // The key's shape is checked before schema validation, so that a bad key is the same 400 on
  // every POST route, whether or not the route's schema declares the header.
  const checkKey = async (req: FastifyRequest): Promise<void> => {
    if (!applies(req)) return;
    const header = req.headers["idempotency-key"];
    if (header === undefined) return;
    if (typeof header !== "string" || header.length < 1 || header.length > 255) {
      throw new AppError("bad_request", "Idempotency-Key must be a single value of 1 to 255 characters");
    }
  };

  const claimKey = async (req: FastifyRequest, reply: FastifyReply) => {
    // req.ctx is set by auth on known routes only; an unknown route has nothing to claim.
    if (!applies(req) || !req.ctx) return;
    const header = req.headers["idempotency-key"];
    if (typeof header !== "string") return;
    const scope = req.ctx.merchantId || req.ctx.actor.type;
    const route = claimRoute(req.method, req.routeOptions.url ?? req.url, (req.params ?? {}) as Record<string, unknown>);
    const hashed = storedIdempotencyKey(opts.hashKey, header);
    const claim: Claim = {
      scope, environment: req.ctx.environment, route, key: hashed,
      aad: `idempotency:${scope}:${req.ctx.environment}:${route}:${header}`,
    };
    // Claims stored before keys were hashed hold the key as typed, and are found by it until they
    // expire (24 h after the upgrade): no new claim is taken beside one, and it is answered from.
    // This look-up goes once every deployment has run this release for a day.
    const typed = where(claim, header);
    const requestHash = createHmac("sha256", opts.hashKey).update(stableStringify(req.body ?? null)).digest("hex");
    const lease = secs(opts.leaseMs);
    const deadline = Date.now() + WAIT_MS;
    let backoff = 10;
    for (;;) {
      const [inserted] = await queryRows<Held>(db, sql`
        insert into idempotency_keys (scope, environment, route, key, request_hash, state, seed, locked_until)
        select ${claim.scope}, ${claim.environment}, ${claim.route}, ${hashed}, ${requestHash}, 'processing', ${newSeed()}, now() + ${lease}
        where not exists (select 1 from idempotency_keys where ${typed})
        on conflict do nothing
        returning seed, locked_until::text as lease`);
      if (inserted) return hold(req, claim, inserted, true);

      const [row] = await queryRows<ClaimRow>(db, sql`
        select key, seed, state, request_hash, response_status, response_body, response_type,
               created_at < now() - ${secs(IDEMPOTENCY_TTL_MS)} as expired,
               state = 'processing' and (locked_until is null or locked_until < now()) as takeable
        from idempotency_keys where (${where(claim, hashed)}) or (${typed})
        order by key = ${hashed} desc limit 1`);
      claim.key = row?.key ?? hashed;
      if (row?.expired) {
        // Past the 24 h window the key is free again; the purge job may not have run yet.
        await db.execute(sql`delete from idempotency_keys where ${where(claim)} and created_at < now() - ${secs(IDEMPOTENCY_TTL_MS)}`);
        continue;
      }
      if (row && row.request_hash !== requestHash) {
        throw new AppError(
          "idempotency_mismatch",
          "Idempotency-Key was already used with a different request body; use a new key for a new request",
        );
      }
      if (row?.state === "done") {
        const stored = row.response_body ? sealer.open(row.response_body, claim.aad) : "";
        const redacted = req.routeOptions.config?.secretFields ?? [];
        reply.code(row.response_status ?? 200).header("idempotent-replayed", "true");
        if (redacted.length > 0) reply.header("idempotent-redacted-fields", redacted.join(", "));
        return reply.type(row.response_type ?? "application/json; charset=utf-8").send(stored);
      }
      if (row?.takeable) {
        // Abandoned by a process that died, or released after a 5xx: take it over, keeping the
        // seed. The guarded UPDATE lets exactly one of several racing retries win.
        const [taken] = await queryRows<Held>(db, sql`
          update idempotency_keys set locked_until = now() + ${lease}
          where ${where(claim)} and state = 'processing' and request_hash = ${requestHash}
            and (locked_until is null or locked_until < now())
          returning seed, locked_until::text as lease`);
        if (taken) return hold(req, claim, taken, false);
      }
      // Held by a request in flight (or gone in between, e.g. a 4xx dropped it): wait and look
      // again, boundedly.
      if (Date.now() >= deadline) {
        throw new AppError(
          "idempotency_in_progress",
          "A request with this Idempotency-Key is still being processed; retry in a few seconds with the same key and body",
        );
      }
      await sleep(backoff);
      backoff = Math.min(backoff * 2, 250);
    }
  };

  function hold(req: FastifyRequest, claim: Claim, held: Held, fresh: boolean): void {
    req.idempotencyClaim = { ...claim, lease: held.lease };
    req.ctx = { ...req.ctx, idempotencySeed: held.seed, idempotencySeedFresh: fresh };
  }

  // After a 5xx the claim is released (kept with its seed and body) so that the retry re-runs at
  // once. When the 5xx is a lost database (a failover), the release cannot reach it either: it is
  // tried again in the background until the new primary takes it, so the retry completes as soon
  // as writes are taken again instead of waiting out the lease. Only this request's own lease is
  // released (locked_until as it took it): once the lease has run out a retry may have taken the
  // claim over, and that holder's lease is not this request's to end.
  const release = (claim: Claim) => db.execute(sql`
    update idempotency_keys set locked_until = null
    where ${where(claim)} and state = 'processing' and locked_until = ${claim.lease ?? null}::timestamptz`);
  async function releaseAfterFailure(req: FastifyRequest, claim: Claim): Promise<void> {
    const until = Date.now() + opts.leaseMs;
    for (let pause = 100; ; pause = Math.min(pause * 2, 1_000)) {
      await sleep(pause);
      try {
        await release(claim);
        return;
      } catch (err) {
        if (!isDatabaseUnavailable(err) || Date.now() + pause >= until) {
          req.log.warn({ err }, "idempotency claim not released; a retry takes it over when its lease runs out");
          return;
        }
      }
    }
  }

  async function keepAnswer(req: FastifyRequest, reply: FastifyReply, claim: Claim, payload: unknown): Promise<void> {
    const text = typeof payload === "string" ? payload : String(payload ?? "");
    // Secrets shown once are not kept for replays, not even sealed.
    const paths = req.routeOptions.config?.secretFields ?? [];
    const stored = paths.length > 0 ? redact(text, paths).body : text;
    await db.execute(sql`
      update idempotency_keys
      set state = 'done', response_status = ${reply.statusCode}, response_body = ${sealer.seal(stored, claim.aad)},
          response_type = ${String(reply.getHeader("content-type") ?? "application/json; charset=utf-8")}, locked_until = null
      where ${where(claim)} and state = 'processing'`);
  }

  const store = async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const claim = req.idempotencyClaim;
    if (!claim) return payload;
    req.idempotencyClaim = undefined;
    try {
      if (reply.statusCode >= 500) await release(claim);
      else if (reply.statusCode >= 400) await db.execute(sql`delete from idempotency_keys where ${where(claim)} and state = 'processing'`);
      else await keepAnswer(req, reply, claim, payload);
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      // The database went away between the answer and this write. The answer stands (a 2xx did
      // commit); the claim is released when the new primary takes writes, and a retry re-runs
      // under the same seed: it finds what this request made and answers it.
      void releaseAfterFailure(req, claim);
    }
    return payload;
  };
  return { checkKey, claimKey, store };
}

/** The worker's task for the key table this file owns: keys past the 24 h window go, hourly. */
export function idempotencyPurgeTask(db: Db): Task {
  return {
    name: "idempotency.purge",
    intervalMs: 60 * 60 * 1000,
    run: async () => {
      await purgeIdempotencyKeys(db);
      return 0;
    },
  };
}

/** Removes keys past the 24 h window (run by the worker). */
export async function purgeIdempotencyKeys(db: Db): Promise<number> {
  const rows = await queryRows<{ n: number }>(db, sql`
    with gone as (delete from idempotency_keys where created_at < now() - ${secs(IDEMPOTENCY_TTL_MS)} returning 1)
    select count(*)::int as n from gone`);
  return rows[0]?.n ?? 0;
}
