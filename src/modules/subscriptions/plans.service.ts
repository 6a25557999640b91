import type { Static } from "typebox";
import type { Db, Queryable } from "../../db/client.js";
import type { RequestCtx } from "../../core/context.js";
import { AppError, notFound } from "../../core/errors.js";
import type { PageQuery } from "../../db/pagination.js";
import { seededId } from "../../lib/ids.js";
import { toMajor } from "../../lib/money.js";
import type { AmountLimits } from "../../lib/money.js";
import { normalizeMoney } from "../../core/amounts.js";
import * as repo from "./plans.repo.js";
import type { CreatePlanBody, UpdatePlanBody } from "./plans.schemas.js";
import { readForList } from "../../db/replica.js";

export type { PlanRow } from "./plans.repo.js";

export function toPlan(row: repo.PlanRow) {
  return {
    id: row.id,
    livemode: row.environment === "production",
    name: row.name,
    description: row.description,
    price: toMajor(row.price, row.currency),
    currency: row.currency,
    interval: row.interval,
    intervalCount: row.intervalCount,
    trialDays: row.trialDays,
    archived: row.archivedAt !== null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

// Plans: a price and a cadence, per merchant and environment. The price follows the money rules
// of charges (normalizeMoney: currency units in, integer minor units stored). Price and cadence
// never change once subscriptions may refer to them; archiving stops new subscriptions only.
export function createPlanService(deps: { db: Db; amountLimits: AmountLimits }) {
  const { db } = deps;

  async function create(ctx: RequestCtx, body: Static<typeof CreatePlanBody>) {
    const { amountMinor, currency } = normalizeMoney(body.price, body.currency, deps.amountLimits, "price");
    return repo.insertPlan(db, {
      id: seededId("plan", ctx.idempotencySeed),
      merchantId: ctx.merchantId,
      environment: ctx.environment,
      name: body.name.trim(),
      description: body.description ?? null,
      price: amountMinor,
      currency,
      interval: body.interval,
      intervalCount: body.intervalCount ?? 1,
      trialDays: body.trialDays ?? 0,
    });
  }

  async function get(ctx: RequestCtx, id: string, q: Queryable = db) {
    const row = await repo.findPlan(q, ctx, id);
    if (!row) throw notFound("Plan", id);
    return row;
  }

  /** A plan a new subscription (or a plan change) may use: this merchant's, not archived. */
  async function usable(ctx: RequestCtx, id: string, field: string) {
    const row = await repo.findPlan(db, ctx, id);
    if (!row) throw notFound("Plan", id);
    if (row.archivedAt) throw new AppError("invalid_state", `${field}: plan ${id} is archived and takes no new subscriptions`);
    return row;
  }

  async function update(ctx: RequestCtx, id: string, body: Static<typeof UpdatePlanBody>) {
    const patch: { name?: string; description?: string | null } = {};
    if (body.name !== undefined) patch.name = body.name.trim();
    if (body.description !== undefined) patch.description = body.description;
    const row = await repo.updatePlan(db, ctx, id, patch);
    if (!row) throw notFound("Plan", id);
    return row;
  }

  /** Archiving twice answers the archived plan (the first archive time is kept). */
  async function archive(ctx: RequestCtx, id: string) {
    const row = await get(ctx, id);
    if (row.archivedAt) return row;
    return (await repo.updatePlan(db, ctx, id, { archivedAt: new Date() }))!;
  }

  async function list(ctx: RequestCtx, query: PageQuery & { archived?: boolean }) {
    const page = await readForList(db, ctx, (q) => repo.listPlans(q, ctx, query));
    return { data: page.data.map(toPlan), hasMore: page.hasMore };
  }

  return { create, get, usable, update, archive, list };
}

export type PlanService = ReturnType<typeof createPlanService>;
