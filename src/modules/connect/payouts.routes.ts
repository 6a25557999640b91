import type { FastifyInstance, FastifyRequest } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { errors, IdempotencyHeaders, IdParams } from "../../http/schemas.js";
import { SubmerchantBalance } from "../ledger/index.js";
import type { PayoutService } from "./payouts.service.js";
import * as s from "./payouts.schemas.js";

// The admin's approve and reject bodies are optional: no body is an approval without an
// end-to-end id, a rejection without a reason.
const emptyBodyIsNoFields = async (req: FastifyRequest) => {
  if (req.body === undefined || req.body === null) req.body = {};
};

export function payoutRoutes(payouts: PayoutService) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post("/v1/submerchants/:merchantId/payout-requests", {
      schema: {
        operationId: "createPayoutRequest", tags: ["connect"], summary: "Request a payout for a submerchant",
        description:
          "With the master's key or the submerchant's own. amount is integer cents (BRL). The submerchant must be active, have its CNPJ and a payout fee " +
          "definition; payoutFee = fixed + amount x percentage / 100, rounded half-up once (200 cents + 1 % of 10000 = 300, net 9700). The amount is " +
          "reserved from the available balance at once: requests beyond it are refused (422), even when they race, and so is any request while the " +
          "balance is below zero (a refund or chargeback took back more than it held; the 422 names the balance). Pending until approved or rejected; " +
          "a refund, chargeback or dispute that takes money back from the submerchant rejects its pending requests, newest first, as far as needed " +
          "(reason balance_reversed, payout.rejected) before its balance may go below zero; " +
          "approved payouts went by Pix to the submerchant's CNPJ (through PAYOUT_PROVIDER or the operator's own transfer in production, the simulator in the sandbox), " +
          "and show that transfer's endToEndId. With PAYOUT_AUTO_APPROVE=true a production request is sent at once: still 201, pending with transfer.status `sending`. " +
          "One request per Idempotency-Key.",
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

    app.get("/v1/submerchants/:id/balance", {
      schema: {
        operationId: "getSubmerchantBalance", tags: ["connect"], summary: "Retrieve a submerchant's balance",
        description: "A master's submerchant's balances in cents: pending, available (what payout requests may take), held (shares of split rules with hold: true, "
          + "until POST /v1/charges/{id}/release or the charge's refund; payouts cannot take them) and atProvider, "
          + "its shares of charges in provider settlement, held and paid by each processor in the seller's own account there. Another master's submerchant answers 404.",
        params: IdParams,
        response: { 200: SubmerchantBalance, ...errors(401, 403, 404) },
      },
    }, async (req) => payouts.balance(req.ctx, req.params.id));

    app.get("/v1/payout-requests/:id", {
      schema: {
        operationId: "getPayoutRequest", tags: ["connect"], summary: "Retrieve a payout request",
        description: "One payout request of the caller's view (its submerchants' for a master, its own for a submerchant); others answer 404.",
        params: IdParams,
        response: { 200: s.PayoutRequest, ...errors(401, 403, 404) },
      },
    }, async (req) => payouts.get(req.ctx, req.params.id));

    app.get("/v1/admin/payout-requests", {
      config: { auth: "admin" },
      schema: {
        operationId: "adminListPayoutRequests", tags: ["connect"], summary: "List every merchant's payout requests",
        description:
          "The operator's queue: every merchant's requests, newest first, with the submerchant's CNPJ as the Pix key to pay. " +
          "`?status=pending&environment=production` lists the live payouts awaiting the operator's transfer.",
        querystring: s.AdminListPayoutsQuery,
        response: { 200: s.AdminPayoutList, ...errors(401, 422) },
      },
    }, async (req) => payouts.listForOperator(req.query));

    app.post("/v1/admin/payout-requests/:id/approve", {
      config: { auth: "admin" },
      preValidation: emptyBodyIsNoFields,
      schema: {
        operationId: "adminApprovePayoutRequest", tags: ["connect"], summary: "Approve a payout request",
        description:
          "With endToEndId: records the operator's own Pix transfer of netAmount to the submerchant's CNPJ (pixKey in the admin list) and " +
          "approves the payout at once (200): the reserve leaves the ledger (net paid out, fee to revenue) and payout.approved goes to the " +
          "submerchant's webhook endpoints. The id must be of the Pix shape (422 otherwise); the same endToEndId again answers the approved " +
          "payout; another one, or one already recorded on another payout, is 409.\n\n" +
          "Without endToEndId: the processor sends netAmount by Pix to the submerchant's CNPJ (production: the processor PAYOUT_PROVIDER names; sandbox: " +
          "the simulator), exactly once (its transfer id is derived from the payout and recorded before the call). The answer is 202 with the " +
          "payout still pending and transfer.status `sending`; the transfer's end then decides it with no further call: `sent` approves it " +
          "with the processor's endToEndId (payout.approved), `failed` rejects it with the processor's reason (reserve released, " +
          "payout.rejected). Approving a payout already being sent answers 202 with its state and sends nothing. Production without " +
          "PAYOUT_PROVIDER: 422 naming endToEndId. The submerchant must still be active with a valid CNPJ (422 otherwise, before any call). " +
          "Only pending requests (409 otherwise); a payout being sent cannot be rejected or approved with another transfer (409).",
        headers: IdempotencyHeaders, params: IdParams, body: s.ApproveBody,
        response: { 200: s.PayoutRequest, 202: s.PayoutRequest, ...errors(401, 404, 409, 422) },
      },
    }, async (req, reply) => {
      const payout = await payouts.approve(req.params.id, req.body?.endToEndId);
      // Still pending: the transfer is on its way, and its end decides the payout.
      return reply.code(payout.status === "pending" ? 202 : 200).send(payout);
    });

    app.post("/v1/admin/payout-requests/:id/reject", {
      config: { auth: "admin" },
      preValidation: emptyBodyIsNoFields,
      schema: {
        operationId: "adminRejectPayoutRequest", tags: ["connect"], summary: "Reject a payout request",
        description: "Releases the reserved amount to the available balance and emits payout.rejected to the submerchant's webhook endpoints. Only pending requests (409 otherwise).",
        headers: IdempotencyHeaders, params: IdParams, body: s.RejectBody,
        response: { 200: s.PayoutRequest, ...errors(401, 404, 409, 422) },
      },
    }, async (req) => payouts.reject(req.params.id, req.body?.reason));
  };
}
