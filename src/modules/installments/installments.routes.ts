import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { errors } from "../../http/schemas.js";
import { InstallmentQuery, InstallmentQuote, InstallmentSettings } from "./installments.schemas.js";
import type { InstallmentsService } from "./installments.service.js";

export function installmentsRoutes(service: InstallmentsService) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.get("/v1/settings/installments", {
      schema: {
        operationId: "getInstallmentSettings", tags: ["installments"], summary: "Retrieve the installment settings",
        description: "The card installments this environment's buyers may choose and the monthly rate they pay beyond the interest-free ones. Unset: 12 installments, all interest-free.",
        response: { 200: InstallmentSettings, ...errors(401, 403) },
      },
    }, async (req) => service.getSettings(req.ctx));

    app.put("/v1/settings/installments", {
      schema: {
        operationId: "putInstallmentSettings", tags: ["installments"], summary: "Set the installment settings",
        description: "Sets this environment's installment terms; charges, quotes and checkout pages use them at once. " +
          "A card charge in more installments than interestFreeInstallments keeps `amount` (the price) and adds `totalAmount` and `installmentAmount`; the processor is asked for totalAmount, and the interest is the merchant's own, never split. " +
          "Setting the same values again changes nothing, so no Idempotency-Key is needed.",
        body: InstallmentSettings,
        response: { 200: InstallmentSettings, ...errors(401, 403, 422) },
      },
    }, async (req) => service.putSettings(req.ctx, req.body));

    app.get("/v1/installments", {
      schema: {
        operationId: "quoteInstallments", tags: ["installments"], summary: "Quote the installment plans of a price",
        description: "Every plan a card buyer may choose for this price, with each installment and the total (Tabela Price: PMT = P·i / (1 - (1+i)^-n) beyond the interest-free installments). " +
          "installmentAmount and totalAmount are each rounded once, half up, to the cent; the last installment takes the difference, so it is totalAmount - (installments - 1) x installmentAmount. " +
          "A plan whose installments would be under one cent is left out.",
        querystring: InstallmentQuery,
        response: { 200: InstallmentQuote, ...errors(401, 403, 422) },
      },
    }, async (req) => service.quote(req.ctx, req.query));
  };
}
