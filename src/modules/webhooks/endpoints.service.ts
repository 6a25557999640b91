import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import { AppError, notFound } from "../../core/errors.js";
import type { RequestCtx } from "../../core/context.js";
import type { PageQuery } from "../../db/pagination.js";
import { newId } from "../../lib/ids.js";
import type { HostLookup } from "../../lib/url-guard.js";
import { checkDestination } from "./destination.js";
import * as repo from "./endpoints.repo.js";
import { MAX_ENDPOINTS } from "./endpoints.schemas.js";
import { SECRET_OVERLAP_MS, type Secrets } from "./secrets.js";
import { generateWebhookSecret } from "./signing.js";
import { readForList } from "../../db/replica.js";

export interface EndpointServiceDeps {
  db: Db;
  config: Pick<Config, "webhookAllowPrivateUrls" | "production">;
  secrets: Secrets;
  lookup?: HostLookup;
}

export interface EndpointInput {
  url: string;
  events?: string[];
  enabled?: boolean;
  description?: string | null;
}

export function toEndpoint(row: repo.EndpointRow) {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    description: row.description,
    disabledReason: row.disabledReason,
    failingSince: row.failingSince?.toISOString() ?? null,
    livemode: row.environment === "production",
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

// "*" already means everything, so a filter naming it is stored as just ["*"].
const normalizeEvents = (events: string[] | undefined) => (!events || events.includes("*") ? ["*"] : events);

export function createEndpointService(deps: EndpointServiceDeps) {
  const { db, config, secrets } = deps;
  const checkUrl = (ctx: RequestCtx, url: string) => checkDestination(url, ctx.environment, config, "url", deps.lookup);

  async function get(ctx: RequestCtx, id: string): Promise<repo.EndpointRow> {
    const row = await repo.findEndpoint(db, ctx, id);
    if (!row) throw notFound("Webhook endpoint", id);
    return row;
  }

  async function create(ctx: RequestCtx, input: EndpointInput) {
    const url = await checkUrl(ctx, input.url);
    // A cap keeps one merchant from turning every event into an unbounded fan-out. Two racing
    // creates may both pass it; one endpoint over the cap is harmless.
    if ((await repo.countEndpoints(db, ctx)) >= MAX_ENDPOINTS) {
      throw new AppError("validation_failed", `At most ${MAX_ENDPOINTS} webhook endpoints per environment; delete one first`);
    }
    const id = newId("whe");
    const secret = generateWebhookSecret();
    const row = await repo.insertEndpoint(db, {
      id,
      merchantId: ctx.merchantId,
      environment: ctx.environment,
      url,
      events: normalizeEvents(input.events),
      enabled: input.enabled ?? true,
      description: input.description ?? null,
      secretSealed: secrets.sealEndpointSecret(ctx.merchantId, id, secret),
    });
    return { ...toEndpoint(row), secret };
  }

  async function list(ctx: RequestCtx, query: PageQuery) {
    const page = await readForList(db, ctx, (q) => repo.listEndpoints(q, ctx, query));
    return { data: page.data.map(toEndpoint), hasMore: page.hasMore };
  }

  async function update(ctx: RequestCtx, id: string, patch: Partial<EndpointInput>) {
    await get(ctx, id);
    const changes: Parameters<typeof repo.updateEndpoint>[3] = {};
    if (patch.url !== undefined) changes.url = await checkUrl(ctx, patch.url);
    if (patch.events !== undefined) changes.events = normalizeEvents(patch.events);
    if (patch.description !== undefined) changes.description = patch.description;
    if (patch.enabled !== undefined) {
      // Enabling (or re-enabling an endpoint the service disabled) starts with a clean slate;
      // disabling by hand is the merchant's choice and carries no service reason.
      Object.assign(changes, { enabled: patch.enabled, disabledReason: null, failingSince: null });
    }
    const row = await repo.updateEndpoint(db, ctx, id, changes);
    if (!row) throw notFound("Webhook endpoint", id);
    return toEndpoint(row);
  }

  async function remove(ctx: RequestCtx, id: string) {
    // Kept as a tombstone: the delivery log still refers to it. Pending deliveries are skipped.
    const row = await repo.updateEndpoint(db, ctx, id, { deletedAt: new Date(), enabled: false });
    if (!row) throw notFound("Webhook endpoint", id);
    return { id, deleted: true as const };
  }

  async function rotateSecret(ctx: RequestCtx, id: string) {
    const secret = generateWebhookSecret();
    const sealed = secrets.sealEndpointSecret(ctx.merchantId, id, secret);
    const row = await repo.rotateEndpointSecret(db, ctx, id, sealed, SECRET_OVERLAP_MS);
    if (!row) throw notFound("Webhook endpoint", id);
    return { ...toEndpoint(row), secret, previousSecretExpiresAt: row.previousSecretExpiresAt!.toISOString() };
  }

  const present = (s: { secret: string; createdAt: Date }) => ({ secret: s.secret, createdAt: s.createdAt.toISOString() });

  async function postbackSecret(ctx: RequestCtx) {
    return present(await secrets.postbackSecret(db, ctx));
  }

  async function rotatePostbackSecret(ctx: RequestCtx) {
    const rotated = await secrets.rotatePostbackSecret(db, ctx);
    return { ...present(rotated), previousSecretExpiresAt: rotated.previousSecretExpiresAt?.toISOString() ?? null };
  }

  return { get, create, list, update, remove, rotateSecret, postbackSecret, rotatePostbackSecret };
}

export type EndpointService = ReturnType<typeof createEndpointService>;
