import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { errors, IdParams } from "../../http/schemas.js";
import type { Mandates } from "./mandates.js";
import { FailDebitsBody, Mandate } from "./subscriptions.schemas.js";
import type { SubscriptionService } from "./subscriptions.service.js";

// GET /v1/mandates/{id} and the sandbox stand-ins for the payer's bank.
export function mandateRoutes(mandates: Mandates, subs: SubscriptionService) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const response = { 200: Mandate, ...errors(401, 403, 404, 409) };

    app.get("/v1/mandates/:id", {
      schema: {
        operationId: "getMandate", tags: ["subscriptions"], summary: "Retrieve a Pix Automático mandate",
        description: "A pix_automatico subscription's mandate: its status (pending, active, rejected, expired, cancelled), journey, QR for the payer's bank app, retry policy and maximum amount per period.",
        params: IdParams, response,
      },
    }, async (req) => mandates.get(req.ctx, req.params.id));

    const sandbox = (name: string, summary: string, description: string) => ({
      operationId: name, tags: ["subscriptions", "sandbox"], summary, description: `${description} Sandbox keys only (403 with a production key).`, params: IdParams, response,
    });

    app.post("/v1/sandbox/mandates/:id/approve", {
      schema: sandbox("sandboxApproveMandate", "Approve a mandate as the payer's bank (sandbox)",
        "A pending mandate becomes active (mandate.activated) and activates its subscription (subscription.activated). Journey 3 (qr_with_payment) pays the first charge too (charge.paid). 409 unless pending."),
    }, async (req) => mandates.approve(req.ctx, req.params.id));

    app.post("/v1/sandbox/mandates/:id/reject", {
      schema: sandbox("sandboxRejectMandate", "Reject a mandate as the payer's bank (sandbox)",
        "A pending mandate becomes rejected (mandate.rejected); the subscription stays pending_activation until the merchant cancels it. 409 unless pending."),
    }, async (req) => mandates.reject(req.ctx, req.params.id));

    app.post("/v1/sandbox/mandates/:id/fail-debits", {
      schema: {
        ...sandbox("sandboxFailMandateDebits", "Make the next debits fail (sandbox)",
          "The next `count` debits of this mandate fail for lack of funds (the charge fails), so the retry policy and then the subscription's dunning can be rehearsed on the test clock. 409 for a mandate rejected, expired or cancelled."),
        body: FailDebitsBody,
      },
    }, async (req) => mandates.failDebits(req.ctx, req.params.id, req.body.count));

    app.post("/v1/sandbox/mandates/:id/cancel", {
      schema: sandbox("sandboxCancelMandate", "Cancel a mandate as the payer would in the bank app (sandbox)",
        "The mandate is cancelled (mandate.cancelled, cancelledBy payer) and so is its subscription (cancellationType mandate_cancelled, subscription.cancelled). 409 for a mandate already rejected, expired or cancelled."),
    }, async (req) => subs.cancelByPayer(req.ctx, req.params.id));
  };
}
