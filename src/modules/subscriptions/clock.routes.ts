import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { errors, IdempotencyHeaders } from "../../http/schemas.js";
import type { SandboxClock } from "./clock.js";
import { AdvanceBody, AdvanceResult } from "./subscriptions.schemas.js";

// The sandbox test clock's routes (clock.ts is the clock itself).
export function clockRoutes(clock: SandboxClock) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.post("/v1/sandbox/clock/advance", {
      schema: {
        operationId: "advanceSandboxClock", tags: ["subscriptions", "sandbox"], summary: "Advance the sandbox clock",
        description: "Moves the caller's sandbox time forward by `days` and runs, in time order and before answering, everything that falls due for its sandbox subscriptions: renewals, payment retries, cancels at period end, trial ends and unpaid first payments. Sandbox keys only (403 with a production key). Charges keep their real creation time; subscription periods and events follow the clock.",
        headers: IdempotencyHeaders, body: AdvanceBody,
        response: { 200: AdvanceResult, ...errors(400, 401, 403, 409, 422) },
      },
    }, async (req) => clock.advance(req.ctx, req.body.days));

    app.get("/v1/sandbox/clock", {
      schema: {
        operationId: "getSandboxClock", tags: ["subscriptions", "sandbox"], summary: "Read the sandbox clock",
        description: "The caller's simulated sandbox time and how far it runs ahead of real time. Sandbox keys only.",
        response: { 200: AdvanceResult, ...errors(401, 403) },
      },
    }, async (req) => clock.read(req.ctx));
  };
}
