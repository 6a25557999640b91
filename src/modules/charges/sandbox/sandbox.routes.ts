import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { errors, IdempotencyHeaders, IdParams } from "../../../http/schemas.js";
import type { SandboxActions } from "./sandbox-actions.js";
import * as s from "../charges.schemas.js";

// The sandbox's actions on a charge: the resend of a simulated status, and what stands in for
// the payer, the clock, the issuer's 3DS page and the risk review.
export function sandboxRoutes(charges: SandboxActions) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post("/v1/charges/:id/resend-webhook", {
      schema: {
        operationId: "resendChargeWebhook", tags: ["charges"], summary: "Send a webhook with a simulated status",
        description: "Test-mode charges only: records and sends the event of the given status (charge.updated for refused, failed, in_analysis and authentication_required) without changing the charge. Production charges: 422.",
        headers: IdempotencyHeaders, params: IdParams, body: s.ResendWebhookBody,
        response: { 202: s.ResendWebhookResponse, ...errors(401, 403, 404, 422) },
      },
    }, async (req, reply) => reply.code(202).send(await charges.resendWebhook(req.ctx, req.params.id, req.body.status)));

    // One Charge schema, with the example of the charge each action leaves behind.
    const sandbox = (name: string, summary: string, description: string, example: object) => ({
      operationId: name, tags: ["sandbox"], summary, description, params: IdParams,
      response: { 200: Type.With(s.Charge, { examples: [example] }), ...errors(401, 403, 404, 409, 422) },
    });

    app.post("/v1/sandbox/charges/:id/pay", {
      schema: { ...sandbox("sandboxPayCharge", "Pay a pending charge (sandbox)", "Stands in for the payer of a Pix, boleto or other payer-paid charge: pending becomes paid, charge.paid is sent. A boleto paid by its line and by its Pix (via) is paid once; the second payment is refunded as a late payment is. Sandbox keys only.", s.PIX_PAID_EXAMPLE), body: Type.Optional(s.PayBody) },
    }, async (req) => charges.pay(req.ctx, req.params.id, req.body?.via));

    app.post("/v1/sandbox/charges/:id/expire", {
      schema: sandbox("sandboxExpireCharge", "Expire a pending charge now (sandbox)", "Stands in for the clock: a pending Pix, boleto or other payer-paid charge fails at once with failureReason expired, as when its expiresAt passes unpaid. charge.failed goes to endpoints and the legacy charge.updated to the postback URL. Other charges: 409. Sandbox keys only.", s.PIX_EXPIRED_EXAMPLE),
    }, async (req) => charges.expire(req.ctx, req.params.id));

    app.post("/v1/sandbox/charges/:id/authenticate", {
      schema: { ...sandbox("sandboxAuthenticateCharge", "Finish 3-D Secure (sandbox)", "succeeded: paid; failed: refused with reason authentication_failed and the legacy charge.updated. Sandbox keys only.", s.THREE_DS_PAID_EXAMPLE), body: s.AuthenticateBody },
    }, async (req) => charges.authenticate(req.ctx, req.params.id, req.body.result));

    app.post("/v1/sandbox/charges/:id/review", {
      schema: { ...sandbox("sandboxReviewCharge", "Finish the risk review (sandbox)", "approved: paid; rejected: refused with reason rejected_by_review. Sandbox keys only.", s.REVIEWED_PAID_EXAMPLE), body: s.ReviewBody },
    }, async (req) => charges.review(req.ctx, req.params.id, req.body.result));
  };
}
