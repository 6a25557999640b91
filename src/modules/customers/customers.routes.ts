import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { Static } from "typebox";
import type { RequestCtx } from "../../core/context.js";
import { errors, IdempotencyHeaders, IdParams } from "../../http/schemas.js";
import { toCustomer, type CustomerService } from "./customers.service.js";
import * as s from "./customers.schemas.js";

export function customerRoutes(service: CustomerService) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post("/v1/customers", {
      schema: {
        operationId: "createCustomer", tags: ["customers"], summary: "Create a customer",
        description: "Stores a customer of the merchant. CPF and CNPJ check digits are verified; the document is stored without punctuation.",
        headers: IdempotencyHeaders, body: s.CreateCustomerBody,
        response: { 201: s.Customer, ...errors(400, 401, 403, 409, 422) },
      },
    }, async (req, reply) => {
      const b = req.body;
      const row = await service.create(req.ctx, {
        name: b.name,
        email: b.email,
        phone: b.phoneNumber,
        document: { type: b.documentType, id: b.documentId },
      });
      return reply.code(201).send(toCustomer(row));
    });

    // Both methods update: POST as Stripe's clients send it (with an Idempotency-Key, replayed as
    // any POST), PATCH as the other resources here are updated (repeating it changes nothing more).
    const update = {
      summary: "Update a customer",
      description: "Changes the fields given, checked as on create (CPF and CNPJ check digits, e-mail); the others keep their values. A deleted customer is not found.",
      params: IdParams, body: s.UpdateCustomerBody,
      response: { 200: s.Customer, ...errors(400, 401, 403, 404, 409, 422) },
    };
    const apply = async (req: { ctx: RequestCtx; params: { id: string }; body: Static<typeof s.UpdateCustomerBody> }) => {
      const b = req.body;
      return toCustomer(await service.update(req.ctx, req.params.id, {
        name: b.name, email: b.email, phone: b.phoneNumber, documentType: b.documentType, documentId: b.documentId,
      }));
    };
    app.post("/v1/customers/:id", { schema: { operationId: "updateCustomer", tags: ["customers"], headers: IdempotencyHeaders, ...update } }, apply);
    app.patch("/v1/customers/:id", { schema: { operationId: "patchCustomer", tags: ["customers"], ...update } }, apply);

    app.delete("/v1/customers/:id", {
      schema: {
        operationId: "deleteCustomer", tags: ["customers"], summary: "Delete a customer",
        description: "Deletes a customer that nothing still needs: 409 while it has a charge awaiting payment (pending, in_analysis, authentication_required) or a subscription that may bill again (pending_activation, active, paused), whose saved card is in use. Its saved cards are deleted; its charges keep naming it. Afterwards it is not found, listed or matched by a charge's inline customer.",
        params: IdParams,
        response: { 200: s.DeletedCustomer, ...errors(401, 403, 404, 409) },
      },
    }, async (req) => service.remove(req.ctx, req.params.id));

    app.get("/v1/customers", {
      schema: {
        operationId: "listCustomers", tags: ["customers"], summary: "List customers",
        description: "Newest first, with cursor pagination and filters by e-mail and document.",
        querystring: s.ListCustomersQuery,
        response: { 200: s.CustomerList, ...errors(401, 403, 422) },
      },
    }, async (req) => service.list(req.ctx, req.query));

    app.get("/v1/customers/:id", {
      schema: {
        operationId: "getCustomer", tags: ["customers"], summary: "Retrieve a customer",
        params: IdParams,
        response: { 200: s.Customer, ...errors(401, 403, 404) },
      },
    }, async (req) => toCustomer(await service.get(req.ctx, req.params.id)));
  };
}
