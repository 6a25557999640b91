import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { Static } from "typebox";
import type { Scope } from "../../../db/scope.js";
import { errors, IdempotencyHeaders, IdParams } from "../../../http/schemas.js";
import type { Dispute } from "../../disputes/index.js";
import { rejectServerFields } from "./charge-pipeline.js";
import { toChargeResponse } from "../charges.mapper.js";
import type { ChargeService } from "../charges.service.js";
import * as s from "../charges.schemas.js";

// Creating, listing and reading charges; refunds (refunds/) and the sandbox's actions (sandbox/)
// have their own routes, registered after these (the OpenAPI document keeps its order).
/** The disputes of a charge, as GET /v1/charges/{id} shows them (the disputes module answers). */
export type ChargeDisputesView = (scope: Scope, chargeId: string) => Promise<Static<typeof Dispute>[]>;

/** The buyer's page of a charge, from its token (charge-page.ts's chargePageUrl under the config). */
export type PageUrlOf = (token: string) => string;

export function chargeRoutes(charges: ChargeService, disputesOf: ChargeDisputesView, pageUrlOf: PageUrlOf) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post("/v1/charges", {
      // Step 1 of the charge pipeline (create/charge-pipeline.ts): before the schema.
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
    }, async (req, reply) => {
      const created = await charges.submit(req.ctx, charges.toChargeCommand(req.body));
      return reply.code(201).send({ ...created, pageUrl: pageUrlOf(created.pageToken) });
    });

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
      return { ...toChargeResponse(charge, await charges.dayFor(req.ctx, charge)), pageUrl: pageUrlOf(charge.pageToken), disputes: await disputesOf(req.ctx, charge.id) };
    });
  };
}
