import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { errors, IdempotencyHeaders, IdParams } from "../../http/schemas.js";
import { toEndpoint, type EndpointService } from "./endpoints.service.js";
import type { EventService } from "./events.service.js";
import * as s from "./endpoints.schemas.js";
import { DeliveryList, ListDeliveriesQuery } from "./events.schemas.js";

const tags = ["webhooks"];

// Both rotations keep the replaced secret signing for a day (SECRET_OVERLAP_MS).
const rotationDescription = (issued: string, what: string) =>
  `${issued} For 24 hours (until previousSecretExpiresAt) every ${what}, including retries, carries two signatures in webhook-signature, the new one first and the replaced one second, separated by a space (\`v1,<new> v1,<old>\`); Standard Webhooks receivers accept a message when any signature verifies, so receivers can switch to the new secret at any time in that window. Rotating again within the 24 hours ends the oldest secret at once: the one being replaced becomes the previous one.`;

export function endpointRoutes(service: EndpointService, events: EventService) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post("/v1/webhook-endpoints", {
      // The secret is shown in this answer only: an idempotent replay answers it as null.
      config: { secretFields: ["secret"] },
      schema: {
        operationId: "createWebhookEndpoint", tags, summary: "Create a webhook endpoint",
        description:
          "Registers a URL that receives the standard events (charge.created, charge.pending, charge.paid, charge.refunded, payout.*) of this merchant and environment, filtered by `events`. Deliveries are signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature) with the `secret` returned here, and only here (and by rotate-secret). The URL is checked now and again before every send.",
        headers: IdempotencyHeaders, body: s.CreateEndpointBody,
        response: { 201: s.WebhookEndpointWithSecret, ...errors(400, 401, 403, 409, 422) },
      },
    }, async (req, reply) => reply.code(201).send(await service.create(req.ctx, req.body)));

    app.get("/v1/webhook-endpoints", {
      schema: {
        operationId: "listWebhookEndpoints", tags, summary: "List webhook endpoints",
        description: "Newest first, with cursor pagination. Secrets are never listed.",
        querystring: s.ListEndpointsQuery,
        response: { 200: s.EndpointList, ...errors(401, 403, 422) },
      },
    }, async (req) => service.list(req.ctx, req.query));

    app.get("/v1/webhook-endpoints/postback-secret", {
      schema: {
        operationId: "getPostbackSecret", tags, summary: "Retrieve the postback signing secret",
        description:
          "Postbacks (the standard events and the legacy charge.updated sent to a charge's postbackUrl, and submerchant notifications) carry the same Standard Webhooks headers as endpoint deliveries, signed with this one secret per merchant and environment. It is created on first use.",
        response: { 200: s.PostbackSecret, ...errors(401, 403) },
      },
    }, async (req) => service.postbackSecret(req.ctx));

    app.post("/v1/webhook-endpoints/postback-secret/rotate", {
      // The secret is shown in this answer only: an idempotent replay answers it as null.
      config: { secretFields: ["secret"] },
      schema: {
        operationId: "rotatePostbackSecret", tags, summary: "Rotate the postback signing secret",
        description:
          rotationDescription("Issues a new postback secret, returned this once.", "postback"),
        headers: IdempotencyHeaders,
        response: { 200: s.RotatedPostbackSecret, ...errors(400, 401, 403, 409, 422) },
      },
    }, async (req) => service.rotatePostbackSecret(req.ctx));

    app.get("/v1/webhook-endpoints/:id", {
      schema: {
        operationId: "getWebhookEndpoint", tags, summary: "Retrieve a webhook endpoint",
        params: IdParams,
        response: { 200: s.WebhookEndpoint, ...errors(401, 403, 404) },
      },
    }, async (req) => toEndpoint(await service.get(req.ctx, req.params.id)));

    app.patch("/v1/webhook-endpoints/:id", {
      schema: {
        operationId: "updateWebhookEndpoint", tags, summary: "Update a webhook endpoint",
        description:
          "Changes the URL (checked as on creation; pending retries follow it), the event filter, the description, or enables and disables the endpoint. `enabled: true` re-enables an endpoint the service disabled (after a 410 Gone, or after failing for days) and clears disabledReason and failingSince.",
        params: IdParams, body: s.PatchEndpointBody,
        response: { 200: Type.With(s.WebhookEndpoint, { examples: [{ ...s.ENDPOINT_EXAMPLE, events: ["*"], updatedAt: "2026-11-24T09:00:00.000Z" }] }), ...errors(400, 401, 403, 404, 422) },
      },
    }, async (req) => service.update(req.ctx, req.params.id, req.body));

    app.delete("/v1/webhook-endpoints/:id", {
      schema: {
        operationId: "deleteWebhookEndpoint", tags, summary: "Delete a webhook endpoint",
        description: "The endpoint receives nothing more; deliveries still pending for it are skipped.",
        params: IdParams,
        response: { 200: s.DeletedEndpoint, ...errors(401, 403, 404) },
      },
    }, async (req) => service.remove(req.ctx, req.params.id));

    app.post("/v1/webhook-endpoints/:id/rotate-secret", {
      // The secret is shown in this answer only: an idempotent replay answers it as null.
      config: { secretFields: ["secret"] },
      schema: {
        operationId: "rotateWebhookEndpointSecret", tags, summary: "Rotate a webhook endpoint's signing secret",
        description:
          rotationDescription("Issues a new secret, returned this once.", "delivery"),
        headers: IdempotencyHeaders, params: IdParams,
        response: { 200: s.RotatedEndpointSecret, ...errors(400, 401, 403, 404, 409, 422) },
      },
    }, async (req) => service.rotateSecret(req.ctx, req.params.id));

    app.get("/v1/webhook-endpoints/:id/deliveries", {
      schema: {
        operationId: "listWebhookEndpointDeliveries", tags, summary: "List an endpoint's deliveries",
        description:
          "The delivery log of one endpoint, newest first: each delivery with its status and every attempt (time, HTTP status, duration, error, the start of the answer).",
        params: IdParams, querystring: ListDeliveriesQuery,
        response: { 200: DeliveryList, ...errors(401, 403, 404, 422) },
      },
    }, async (req) => events.endpointDeliveries(req.ctx, req.params.id, req.query));
  };
}
