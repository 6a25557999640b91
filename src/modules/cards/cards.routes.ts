import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { errors, IdempotencyHeaders } from "../../http/schemas.js";
import { toCard, type CardService } from "./cards.service.js";
import * as s from "./cards.schemas.js";

export function cardRoutes(service: CardService) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post("/v1/customers/:id/cards", {
      schema: {
        operationId: "createCard", tags: ["cards"], summary: "Save a card for a customer",
        description:
          "Stores a card in the vault for later charges (paymentMethod.cardId). The number is checked (13-19 digits, Luhn, " +
          "expiry not past) and kept only encrypted; it is never returned. No CVV is taken or stored.",
        headers: IdempotencyHeaders, params: s.CardParams, body: s.CreateCardBody,
        response: { 201: s.Card, ...errors(400, 401, 403, 404, 409, 422) },
      },
    }, async (req, reply) => {
      const row = await service.create(req.ctx, req.params.id, req.body);
      return reply.code(201).send(toCard(row));
    });

    app.get("/v1/customers/:id/cards", {
      schema: {
        operationId: "listCards", tags: ["cards"], summary: "List a customer's saved cards",
        description: "Newest first, at most 100 cards; hasMore tells whether the customer has more.",
        params: s.CardParams,
        response: { 200: s.CardList, ...errors(401, 403, 404) },
      },
    }, async (req) => service.list(req.ctx, req.params.id));

    app.get("/v1/customers/:id/cards/:cardId", {
      schema: {
        operationId: "getCard", tags: ["cards"], summary: "Retrieve a saved card",
        description: "Brand, first six and last four digits, expiry and holder; never the number.",
        params: s.CardItemParams,
        response: { 200: s.Card, ...errors(401, 403, 404) },
      },
    }, async (req) => toCard(await service.get(req.ctx, req.params.id, req.params.cardId)));

    app.delete("/v1/customers/:id/cards/:cardId", {
      schema: {
        operationId: "deleteCard", tags: ["cards"], summary: "Delete a saved card",
        description: "Deletes the card and its encrypted number. Charges already made with it are unchanged.",
        params: s.CardItemParams,
        response: { 204: s.Deleted, ...errors(401, 403, 404) },
      },
    }, async (req, reply) => {
      await service.remove(req.ctx, req.params.id, req.params.cardId);
      return reply.code(204).send(null);
    });
  };
}
