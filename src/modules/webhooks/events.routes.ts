import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { errors, IdempotencyHeaders, IdParams } from "../../http/schemas.js";
import type { EventService } from "./events.service.js";
import * as s from "./events.schemas.js";

const tags = ["events"];

export function eventRoutes(service: EventService) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.get("/v1/events", {
      schema: {
        operationId: "listEvents", tags, summary: "List events",
        description: "Every event of this merchant and environment, newest first, with cursor pagination and filters by type and creation time.",
        querystring: s.ListEventsQuery,
        response: { 200: s.EventList, ...errors(401, 403, 422) },
      },
    }, async (req) => service.list(req.ctx, req.query));

    app.get("/v1/events/:id", {
      schema: {
        operationId: "getEvent", tags, summary: "Retrieve an event",
        description: "The event with every delivery (webhook endpoints and postback URL) and every attempt of each.",
        params: IdParams,
        response: { 200: s.EventDetail, ...errors(401, 403, 404) },
      },
    }, async (req) => service.get(req.ctx, req.params.id));

    app.post("/v1/events/:id/redeliver", {
      schema: {
        operationId: "redeliverEvent", tags, summary: "Send an event again",
        description:
          "Queues new deliveries of the event: to `endpointId` only, or to every enabled endpoint that receives its type now and to the postback URL it went to. The body and the webhook-id header are those of the first delivery, so receivers deduplicate it. 409 when there is no destination or the endpoint is disabled.",
        headers: IdempotencyHeaders, params: IdParams,
        body: Type.Union([s.RedeliverBody, Type.Null()], { examples: [{ endpointId: "whe_01jd3k5x7m9q2r4t6v8w0y2z4a" }] }),
        response: { 201: s.DeliveryBatch, ...errors(400, 401, 403, 404, 409, 422) },
      },
    }, async (req, reply) => reply.code(201).send(await service.redeliver(req.ctx, req.params.id, req.body?.endpointId)));
  };
}
