import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { errors, IdempotencyHeaders, IdParams } from "../../http/schemas.js";
import * as s from "./plans.schemas.js";
import { toPlan, type PlanService } from "./plans.service.js";

export function planRoutes(plans: PlanService) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post("/v1/plans", {
      schema: {
        operationId: "createPlan", tags: ["subscriptions"], summary: "Create a plan",
        description: "A price billed every intervalCount intervals (day, week, month or year), with optional free trial days. The price is in currency units, like a charge's amount, and is stored in cents.",
        headers: IdempotencyHeaders, body: s.CreatePlanBody,
        response: { 201: s.Plan, ...errors(400, 401, 403, 409, 422) },
      },
    }, async (req, reply) => reply.code(201).send(toPlan(await plans.create(req.ctx, req.body))));

    app.get("/v1/plans", {
      schema: {
        operationId: "listPlans", tags: ["subscriptions"], summary: "List plans",
        description: "Newest first, with cursor pagination; archived filters archived or active plans.",
        querystring: s.ListPlansQuery,
        response: { 200: s.PlanList, ...errors(401, 403, 422) },
      },
    }, async (req) => plans.list(req.ctx, req.query));

    app.get("/v1/plans/:id", {
      schema: {
        operationId: "getPlan", tags: ["subscriptions"], summary: "Retrieve a plan",
        description: "A plan of the caller, in the key's environment.",
        params: IdParams,
        response: { 200: s.Plan, ...errors(401, 403, 404) },
      },
    }, async (req) => toPlan(await plans.get(req.ctx, req.params.id)));

    app.patch("/v1/plans/:id", {
      schema: {
        operationId: "updatePlan", tags: ["subscriptions"], summary: "Rename a plan",
        description: "Changes the name and description only. Price, currency and cadence never change, so existing subscriptions keep what they signed up for.",
        params: IdParams, body: s.UpdatePlanBody,
        response: { 200: s.Plan, ...errors(400, 401, 403, 404, 422) },
      },
    }, async (req) => toPlan(await plans.update(req.ctx, req.params.id, req.body)));

    app.post("/v1/plans/:id/archive", {
      schema: {
        operationId: "archivePlan", tags: ["subscriptions"], summary: "Archive a plan",
        description: "An archived plan takes no new subscriptions and cannot be the target of a plan change; subscriptions already on it keep renewing. Archiving an archived plan answers it unchanged.",
        headers: IdempotencyHeaders, params: IdParams,
        response: { 200: s.Plan, ...errors(400, 401, 403, 404) },
      },
    }, async (req) => toPlan(await plans.archive(req.ctx, req.params.id)));
  };
}
