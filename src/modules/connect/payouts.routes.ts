import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { errors, IdempotencyHeaders, IdParams } from "../../http/schemas.js";
import type { PayoutService } from "./payouts.service.js";
import * as s from "./payouts.schemas.js";

export function payoutRoutes(payouts: PayoutService) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post("/v1/submerchants/:merchantId/payout-requests", {
      schema: {
        operationId: "createPayoutRequest", tags: ["connect"], summary: "Request a payout for a submerchant",
        description:
          "With the master's key or the submerchant's own. amount is integer cents (BRL). The submerchant must be active, have its CNPJ and a payout fee " +
          "definition; payoutFee = fixed + amount x percentage / 100, rounded half-up once (200 cents + 1 % of 10000 = 300, net 9700). The amount is " +
          "reserved from the available balance at once: requests beyond it are refused (422), even when they race. Pending until approved or rejected; " +
          "approved payouts go by Pix to the submerchant's CNPJ. One request per Idempotency-Key.",
        headers: IdempotencyHeaders, params: s.PayoutParams, body: s.CreatePayoutBody,
        response: { 201: s.PayoutRequest, ...errors(400, 401, 403, 404, 409, 422) },
      },
    }, async (req, reply) => reply.code(201).send(await payouts.create(req.ctx, req.params.merchantId, req.body.amount)));

    app.get("/v1/payout-requests", {
      schema: {
        operationId: "listPayoutRequests", tags: ["connect"], summary: "List payout requests",
        description: "A master sees its submerchants' requests, a submerchant its own; in the key's environment, newest first.",
        querystring: s.ListPayoutsQuery,
        response: { 200: s.PayoutList, ...errors(401, 403, 422) },
      },
    }, async (req) => payouts.list(req.ctx, req.query));

    app.get("/v1/payout-requests/:id", {
      schema: {
        operationId: "getPayoutRequest", tags: ["connect"], summary: "Retrieve a payout request",
        description: "One payout request of the caller's view (its submerchants' for a master, its own for a submerchant); others answer 404.",
        params: IdParams,
        response: { 200: s.PayoutRequest, ...errors(401, 403, 404) },
      },
    }, async (req) => payouts.get(req.ctx, req.params.id));

    app.post("/v1/admin/payout-requests/:id/approve", {
      config: { auth: "admin" },
      schema: {
        operationId: "adminApprovePayoutRequest", tags: ["connect"], summary: "Approve a payout request",
        description:
          "Sends the net amount by Pix to the submerchant's CNPJ, takes the reserve off the ledger (fee to revenue) and emits payout.approved " +
          "to the submerchant's webhook endpoints. Only pending requests (409 otherwise).",
        headers: IdempotencyHeaders, params: IdParams,
        response: { 200: s.PayoutRequest, ...errors(401, 404, 409, 422) },
      },
    }, async (req) => payouts.approve(req.params.id));

    app.post("/v1/admin/payout-requests/:id/reject", {
      config: { auth: "admin" },
      // The body is optional: no body is a rejection without a reason.
      preValidation: async (req) => { if (req.body === undefined || req.body === null) req.body = {}; },
      schema: {
        operationId: "adminRejectPayoutRequest", tags: ["connect"], summary: "Reject a payout request",
        description: "Releases the reserved amount to the available balance and emits payout.rejected to the submerchant's webhook endpoints. Only pending requests (409 otherwise).",
        headers: IdempotencyHeaders, params: IdParams, body: s.RejectBody,
        response: { 200: s.PayoutRequest, ...errors(401, 404, 409, 422) },
      },
    }, async (req) => payouts.reject(req.params.id, req.body?.reason));
  };
}
