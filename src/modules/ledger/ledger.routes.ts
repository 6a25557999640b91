import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { AppError } from "../../core/errors.js";
import { errors, ListOf, ListQuery } from "../../http/schemas.js";
import { Balance } from "./ledger.schemas.js";
import type { LedgerService } from "./ledger.service.js";

const BalanceTransaction = Type.Object({
  id: Type.String(),
  type: Type.String({ description: "charge, refund or settlement." }),
  balance: Type.String({ description: "The balance moved: pending, available or held." }),
  amount: Type.Integer({ description: "Signed minor units: positive credits the balance." }),
  currency: Type.String(),
  sourceId: Type.Union([Type.String(), Type.Null()]),
  transactionId: Type.String(),
  createdAt: Type.String({ format: "date-time" }),
});

// The merchant of the charge examples: a paid Pix of R$ 120,00 (0.99 % fee) still pending, and
// a paid card charge of R$ 49,90 settled on its date (pending -> available).
const PIX_ID = "ch_01jd3m7q2w4e6r8t0y2v4x6z8b";
const CARD_ID = "ch_01m83z4fb49ymhph6hwrvbtqq2";
const BalanceTransactions = ListOf(BalanceTransaction, {
  data: [
    { id: "le_01jd3mf8k0n2q4s6v8x0z2b4d6", type: "charge", balance: "pending", amount: 11881, currency: "BRL", sourceId: PIX_ID, transactionId: "ltx_01jd3mf8k0a2c4e6g8j0m2p4r6", createdAt: "2026-11-23T12:03:10.000Z" },
    { id: "le_01jd3me7j9m1p3r5t7w9y1a3c5", type: "settlement", balance: "available", amount: 4761, currency: "BRL", sourceId: CARD_ID, transactionId: "ltx_01jd3me7j9b1d3f5h7k9n1q3s5", createdAt: "2026-11-23T12:02:00.000Z" },
    { id: "le_01jd3me7j9x1z3b5d7f9h1k3m5", type: "settlement", balance: "pending", amount: -4761, currency: "BRL", sourceId: CARD_ID, transactionId: "ltx_01jd3me7j9b1d3f5h7k9n1q3s5", createdAt: "2026-11-23T12:02:00.000Z" },
  ],
  hasMore: true,
});

export function ledgerRoutes(ledger: LedgerService) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.get("/v1/balance", {
      schema: {
        operationId: "getBalance", tags: ["balance"], summary: "Retrieve the balance",
        description: "Pending (paid, not yet settled) and available amounts per currency, in cents; atProvider: shares of charges in provider settlement that processors hold and pay (never available to a payout request).",
        response: { 200: Balance, ...errors(401, 403) },
      },
    }, async (req) => ledger.balance(req.ctx));

    app.get("/v1/balance-transactions", {
      schema: {
        operationId: "listBalanceTransactions", tags: ["balance"], summary: "List balance transactions",
        description: "Every movement of the merchant's pending and available balances, newest first.",
        querystring: Type.Object({ ...ListQuery, type: Type.Optional(Type.String({ maxLength: 30 })) }, { additionalProperties: false }),
        response: { 200: BalanceTransactions, ...errors(401, 403, 422) },
      },
    }, async (req) => ledger.transactions(req.ctx, req.query));

    app.post("/v1/sandbox/settle", {
      schema: {
        operationId: "sandboxSettle", tags: ["sandbox"], summary: "Settle everything now (sandbox)",
        description: "Moves all of the merchant's pending sandbox balance to available, whatever the settlement dates. Sandbox keys only.",
        response: { 200: Type.Object({ settled: Type.Integer({ description: "Settlement rows settled." }) }, { examples: [{ settled: 3 }] }), ...errors(401, 403) },
      },
    }, async (req) => {
      if (req.ctx.environment !== "sandbox") throw new AppError("forbidden", "Forbidden: sandbox endpoints need a sandbox (sk_test_) key");
      const far = new Date(Date.UTC(9999, 0, 1));
      return { settled: await ledger.settle({ dueBy: far, environment: "sandbox", owner: req.ctx.merchantId }) };
    });
  };
}
