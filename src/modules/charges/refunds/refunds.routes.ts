import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { errors, IdempotencyHeaders, IdParams } from "../../../http/schemas.js";
import type { RefundService } from "./refunds.service.js";
import * as s from "../charges.schemas.js";

export function refundRoutes(refunds: RefundService) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post("/v1/charges/:id/refund", {
      schema: {
        operationId: "refundCharge", tags: ["charges"], summary: "Refund a charge",
        description: "Refunds all that is left, or `amount` (currency units). Refunds never add up to more than was paid, even when concurrent: more than is left answers 422 `refund_exceeds_refundable`. The last refund makes the charge refunded. "
          + "201 with status succeeded, failed (the processor refused it; the amount is released) or pending (a live processor accepted it without finishing, or gave no answer to rely on: "
          + "the amount stays reserved and the refund is read again at the processor until it succeeds, with charge.refunded, or fails).",
        headers: IdempotencyHeaders, params: IdParams, body: s.RefundBody,
        response: { 201: s.Refund, ...errors(401, 403, 404, 409, 422) },
      },
    }, async (req, reply) => reply.code(201).send(await refunds.refund(req.ctx, req.params.id, req.body?.amount)));

    app.get("/v1/charges/:id/refunds", {
      schema: {
        operationId: "listChargeRefunds", tags: ["charges"], summary: "List a charge's refunds",
        description: "Every refund of the charge with its status now, newest first, at most 100 (hasMore tells whether there are more): "
          + "a refund answered pending shows here as succeeded or failed once feira has read it again at the processor (charge.refunded or charge.refund_failed).",
        params: IdParams,
        response: { 200: s.RefundList, ...errors(401, 403, 404) },
      },
    }, async (req) => refunds.list(req.ctx, req.params.id));
  };
}
