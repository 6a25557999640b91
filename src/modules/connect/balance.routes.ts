import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { errors, IdParams } from "../../http/schemas.js";
import { Amounts, type LedgerService } from "../ledger/index.js";
import type { ConnectService } from "./connect.service.js";

// A submerchant's balances as its master reads them (issue 47): available, pending and held.

const SubmerchantBalance = Type.Object({
  available: Amounts,
  pending: Amounts,
  held: Amounts,
}, { examples: [{ available: [{ currency: "BRL", amount: 4761 }], pending: [{ currency: "BRL", amount: 1188 }], held: [{ currency: "BRL", amount: 2500 }] }] });

export function submerchantBalanceRoutes(connect: Pick<ConnectService, "ownSubmerchant">, ledger: Pick<LedgerService, "balanceOf">) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.get("/v1/submerchants/:id/balance", {
      schema: {
        operationId: "getSubmerchantBalance", tags: ["connect"], summary: "Retrieve a submerchant's balance",
        description: "The submerchant's available, pending and held amounts per currency, in cents. Held: shares of split rules with hold: true, until POST /v1/charges/{id}/release or the charge's refund; payouts cannot take them. The master's key only; another master's submerchant is a 404.",
        params: IdParams,
        response: { 200: SubmerchantBalance, ...errors(401, 403, 404) },
      },
    }, async (req) => {
      const sm = await connect.ownSubmerchant(req.ctx, req.params.id);
      return ledger.balanceOf({ merchantId: sm.id, environment: req.ctx.environment });
    });
  };
}
