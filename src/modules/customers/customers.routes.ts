import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
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
        response: { 201: s.CreatedId, ...errors(400, 401, 403, 409, 422) },
      },
    }, async (req, reply) => {
      const b = req.body;
      const row = await service.create(req.ctx, {
        name: b.name,
        email: b.email,
        phone: b.phoneNumber,
        document: { type: b.documentType, id: b.documentId },
      });
      return reply.code(201).send({ id: row.id });
    });

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
