import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { AppError } from "../../http/errors.js";
import { errors, ListOf, ListQuery } from "../../http/schemas.js";
import type { LedgerService } from "./ledger.service.js";

const Amounts = Type.Array(Type.Object({ currency: Type.String(), amount: Type.Integer({ description: "Cents (minor units)." }) }));
const BalanceTransaction = Type.Object({
  id: Type.String(),
  type: Type.String({ description: "charge, refund or settlement." }),
  balance: Type.String({ description: "The balance moved: pending or available." }),
  amount: Type.Integer({ description: "Signed minor units: positive credits the balance." }),
  currency: Type.String(),
  sourceId: Type.Union([Type.String(), Type.Null()]),
  transactionId: Type.String(),
  createdAt: Type.String({ format: "date-time" }),
});

export function ledgerRoutes(ledger: LedgerService) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.get("/v1/balance", {
      schema: {
        operationId: "getBalance", tags: ["balance"], summary: "Retrieve the balance",
        description: "Pending (paid, not yet settled) and available amounts per currency, in cents.",
        response: { 200: Type.Object({ available: Amounts, pending: Amounts }), ...errors(401, 403) },
      },
    }, async (req) => ledger.balance(req.ctx));

    app.get("/v1/balance-transactions", {
      schema: {
        operationId: "listBalanceTransactions", tags: ["balance"], summary: "List balance transactions",
        description: "Every movement of the merchant's pending and available balances, newest first.",
        querystring: Type.Object({ ...ListQuery, type: Type.Optional(Type.String({ maxLength: 30 })) }, { additionalProperties: false }),
        response: { 200: ListOf(BalanceTransaction), ...errors(401, 403, 422) },
      },
    }, async (req) => ledger.transactions(req.ctx, req.query));

    app.post("/v1/sandbox/settle", {
      schema: {
        operationId: "sandboxSettle", tags: ["sandbox"], summary: "Settle everything now (sandbox)",
        description: "Moves all of the merchant's pending sandbox balance to available, whatever the settlement dates. Sandbox keys only.",
        response: { 200: Type.Object({ settled: Type.Integer({ description: "Settlement rows settled." }) }), ...errors(401, 403) },
      },
    }, async (req) => {
      if (req.ctx.environment !== "sandbox") throw new AppError("forbidden", "Forbidden: sandbox endpoints need a sandbox (sk_test_) key");
      const far = new Date(Date.UTC(9999, 0, 1));
      return { settled: await ledger.settle({ dueBy: far, environment: "sandbox", owner: req.ctx.merchantId }) };
    });
  };
}
