import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type, type Static } from "typebox";
import type { Scope } from "../../db/scope.js";
import type { Dispute } from "../disputes/disputes.schemas.js";
import { errors, IdempotencyHeaders, IdParams } from "../../http/schemas.js";
import { rejectServerFields } from "./charge-input.js";
import { toChargeResponse } from "./charges.mapper.js";
import type { ChargeService } from "./charges.service.js";
import type { RefundService } from "./refunds.service.js";
import * as s from "./charges.schemas.js";

/** The disputes of a charge, as GET /v1/charges/{id} shows them (the disputes module answers). */
export type ChargeDisputesView = (scope: Scope, chargeId: string) => Promise<Static<typeof Dispute>[]>;

export function chargeRoutes(charges: ChargeService, refunds: RefundService, disputesOf: ChargeDisputesView) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post("/v1/charges", {
      // Before schema validation, so the message says why rather than "not a recognized field".
      preValidation: async (req) => rejectServerFields(req.body),
      schema: {
        operationId: "createCharge", tags: ["charges"], summary: "Create a charge",
        description:
          "Charges a customer. Cards are answered at once (paid, refused, failed, in_analysis or authentication_required); " +
          "Pix, open_finance, qr_code, boleto, bank_transfer, oxxo, spei and pse answer pending with payment instructions in paymentDetails. " +
          "Sandbox cards: 4111111111111111 paid, 4000000000000002 card_declined, 4000000000009995 insufficient_funds, 4000000000000119 failed, " +
          "4000000000000259 in_analysis, 4000000000003220 3DS with threeDSMode managed, 4000000000000101 blocked; any other Luhn-valid number is paid (5555555555554444 too), a Luhn-invalid one is 422. " +
          "Amounts are in currency units, at least 1, with at most the currency's decimals (BRL 2, JPY 0); currency codes are ISO 4217, answered upper-case. freight_amount and freight_details are refused (set by the server).",
        headers: IdempotencyHeaders, body: s.CreateChargeBody,
        response: {
          201: s.ChargeCreated,
          ...errors(400, 401, 403, 404, 409, 422, 500, {
            503: ["processor_busy", "The payment processor is slow to answer and 1024 charges are already waiting on it in this server process; nothing was charged, retry after the Retry-After delay"],
          }),
        },
      },
    }, async (req, reply) => reply.code(201).send(await charges.submit(req.ctx, charges.fromBody(req.body))));

    app.get("/v1/charges", {
      schema: {
        operationId: "listCharges", tags: ["charges"], summary: "List charges",
        description: "Newest first, with cursor pagination and filters by status, payment method type, customer and creation time.",
        querystring: s.ListChargesQuery,
        response: { 200: s.ChargeList, ...errors(401, 403, 422) },
      },
    }, async (req) => charges.list(req.ctx, req.query));

    app.get("/v1/charges/:id", {
      schema: {
        operationId: "getCharge", tags: ["charges"], summary: "Retrieve a charge",
        description: "Amounts in currency units. Card numbers and CVVs are never returned. `disputes` lists the charge's disputes, newest first.",
        params: IdParams,
        response: { 200: s.ChargeWithDisputes, ...errors(401, 403, 404) },
      },
    }, async (req) => {
      const charge = await charges.get(req.ctx, req.params.id);
      return { ...toChargeResponse(charge), disputes: await disputesOf(req.ctx, charge.id) };
    });

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
      schema: sandbox("sandboxPayCharge", "Pay a pending charge (sandbox)", "Stands in for the payer of a Pix, boleto or other payer-paid charge: pending becomes paid, charge.paid is sent. Sandbox keys only.", s.PIX_PAID_EXAMPLE),
    }, async (req) => charges.pay(req.ctx, req.params.id));

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
