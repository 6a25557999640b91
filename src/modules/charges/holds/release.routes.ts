import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { errors, IdempotencyHeaders, IdParams } from "../../../http/schemas.js";
import type { Releases } from "./release.service.js";

// POST /v1/charges/{id}/release (release.service.ts).

const ReleaseBody = Type.Object({
  submerchantId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Releases only this recipient's share; every held share of the charge without it." })),
}, { additionalProperties: false, examples: [{ submerchantId: "mer_01jd3m0a2c4e6g8j0m2p4r6t8v" }, {}] });

const Released = Type.Object({
  chargeId: Type.String(),
  released: Type.Array(Type.Object({
    merchantId: Type.String(), currency: Type.String(), amount: Type.Integer({ description: "Cents (minor units) moved from held to pending by this request." }),
  }), { description: "What this request released; empty when nothing was held any more (released or refunded before)." }),
}, { examples: [{ chargeId: "ch_01jd3m7q2w4e6r8t0y2v4x6z8b", released: [{ merchantId: "mer_01jd3m0a2c4e6g8j0m2p4r6t8v", currency: "BRL", amount: 2500 }] }] });

export function releaseRoutes(releases: Releases) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.post("/v1/charges/:id/release", {
      schema: {
        operationId: "releaseChargeHolds", tags: ["charges"], summary: "Release a charge's held shares",
        description: "Ends the holds of the charge's split shares with hold: true (of `submerchantId` only, when given), e.g. on delivery: the money moves from the recipients' held "
          + "balance to pending and settles on the charge's dates. Releasing again moves nothing. Another merchant's charge is a 404.",
        headers: IdempotencyHeaders, params: IdParams, body: ReleaseBody,
        response: { 200: Released, ...errors(401, 403, 404, 409, 422) },
      },
    }, async (req) => releases.release(req.ctx, req.params.id, req.body?.submerchantId));
  };
}
