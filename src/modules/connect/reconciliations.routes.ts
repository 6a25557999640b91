import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { errors, IdParams } from "../../http/schemas.js";
import type { Reconciliations } from "./reconciliations.js";

// GET /v1/submerchants/{id}/reconciliation: provider settlement's last daily reconciliation of a
// seller, per processor and currency.

const Result = Type.Object({
  processor: Type.String(),
  currency: Type.String(),
  day: Type.String({ format: "date", description: "The day reconciled (Brasília's calendar; the sandbox's test clock's day)." }),
  status: Type.Union([Type.Literal("matched"), Type.Literal("mismatch")]),
  feiraAmount: Type.Integer({ description: "feira's atProvider figure for the seller at the processor, in cents." }),
  processorAmount: Type.Integer({ description: "What the processor held for the seller (not yet transferred to its bank), in cents." }),
  difference: Type.Integer({ description: "processorAmount - feiraAmount." }),
  checkedAt: Type.String({ format: "date-time" }),
});

export const LastReconciliation = Type.Object({
  submerchantId: Type.String(),
  accounts: Type.Array(Result, { description: "The last result per processor and currency; empty until the first reconciliation ran." }),
}, {
  examples: [{
    submerchantId: "mer_01jd5a8w2n7q3k9x4c6v8b0m2p",
    accounts: [{ processor: "sandbox", currency: "BRL", day: "2026-12-01", status: "matched", feiraAmount: 9000, processorAmount: 9000, difference: 0, checkedAt: "2026-12-01T09:00:00.000Z" }],
  }],
});

export function reconciliationRoutes(reconciliations: Pick<Reconciliations, "last">) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.get("/v1/submerchants/:id/reconciliation", {
      schema: {
        operationId: "getSubmerchantReconciliation", tags: ["connect"], summary: "Read a submerchant's last balance reconciliation",
        description:
          "The master's key. In provider settlement a worker compares, once a day, each seller's balance at each processor where it has an active account " +
          "(what the processor holds and has not transferred yet) with feira's atProvider figure, and sends connect.balance_mismatch when they differ. " +
          "This answers the last result per processor and currency.",
        params: IdParams,
        response: { 200: LastReconciliation, ...errors(401, 403, 404) },
      },
    }, async (req) => reconciliations.last(req.ctx, req.params.id));
  };
}
