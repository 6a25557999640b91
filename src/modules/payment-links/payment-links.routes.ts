import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { errors, IdempotencyHeaders, IdParams } from "../../http/schemas.js";
import { rejectServerFields } from "../charges/index.js";
import type { PaymentLinkService } from "./payment-links.service.js";
import type { createPublicLimits } from "./public-limits.js";
import * as s from "./payment-links.schemas.js";
import { InstallmentQuote } from "../installments/index.js";

export function paymentLinkRoutes(links: PaymentLinkService, limit: ReturnType<typeof createPublicLimits>) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ["payment-links"];
    const merchant = { auth: "keyOrJwt" as const };
    const PageQuery = Type.Omit(s.ListLinksQuery, ["active"]);

    app.post("/v1/payment-links", {
      config: merchant,
      schema: {
        operationId: "createPaymentLink", tags, summary: "Create a payment link",
        description: "A reusable checkout at {base_url}/pay/{id}: one link takes many payments. freightMode checkout quotes Melhor Envio live (BRL; physical products need width, height, length in cm and weight in kg); fixed charges fixedFreightAmount; pickup and free charge no freight.",
        headers: IdempotencyHeaders, body: s.CreateLinkBody,
        response: { 201: s.PaymentLink, ...errors(401, 403, 409, 422) },
      },
    }, async (req, reply) => reply.code(201).send(await links.create(req.ctx, req.body)));

    app.get("/v1/payment-links", {
      config: merchant,
      schema: {
        operationId: "listPaymentLinks", tags, summary: "List payment links",
        description: "Newest first, cursor pagination; filter by active.",
        querystring: s.ListLinksQuery,
        response: { 200: s.PaymentLinkList, ...errors(401, 403, 422) },
      },
    }, async (req) => links.list(req.ctx, req.query));

    // Before /:id, so that "freight-availability" is never read as a link id.
    app.get("/v1/payment-links/freight-availability", {
      config: { auth: "public" },
      schema: {
        operationId: "freightAvailability", tags, summary: "Whether a merchant has live freight",
        description: "Public. hasFreightTool is true once the merchant's Melhor Envio integration is active (in `environment`, or in either when it is not given). Unknown merchants answer false.",
        querystring: s.AvailabilityQuery,
        response: { 200: s.AvailabilityResponse, ...errors(422) },
      },
    }, async (req) => links.freightAvailability(req.query.merchantId, req.query.environment));

    app.get("/v1/payment-links/:id", {
      config: merchant,
      schema: {
        operationId: "getPaymentLink", tags, summary: "Retrieve a payment link",
        params: IdParams, response: { 200: s.PaymentLink, ...errors(401, 403, 404) },
      },
    }, async (req) => links.get(req.ctx, req.params.id));

    app.patch("/v1/payment-links/:id", {
      config: merchant,
      schema: {
        operationId: "updatePaymentLink", tags, summary: "Update a payment link",
        description: "Any field of the creation body, plus active. The result is checked as a whole, by the creation rules.",
        params: IdParams, body: s.UpdateLinkBody,
        response: { 200: s.PaymentLink, ...errors(401, 403, 404, 422) },
      },
    }, async (req) => links.update(req.ctx, req.params.id, req.body));

    app.delete("/v1/payment-links/:id", {
      config: merchant,
      schema: {
        operationId: "deactivatePaymentLink", tags, summary: "Deactivate a payment link",
        description: "Links are never deleted (their payments refer to them): the link stops taking payments and its page answers 404. PATCH {active: true} reactivates it.",
        params: IdParams, response: { 200: s.PaymentLink, ...errors(401, 403, 404) },
      },
    }, async (req) => links.deactivate(req.ctx, req.params.id));

    app.get("/v1/payment-links/:id/payments", {
      config: merchant,
      schema: {
        operationId: "listPaymentLinkPayments", tags, summary: "Charges made through a link",
        params: IdParams, querystring: PageQuery,
        response: { 200: s.LinkPayments, ...errors(401, 403, 404, 422) },
      },
    }, async (req) => links.payments(req.ctx, req.params.id, req.query));

    // ---- Public: the buyer's checkout. Unknown, inactive and expired links are one 404.

    app.get("/v1/payment-links/:id/public", {
      config: { auth: "public" },
      schema: {
        operationId: "getPublicPaymentLink", tags, summary: "Public view of a link",
        description: "No key. What the buyer needs: title, description, products with prices, currency, freight mode and the merchant's public name.",
        params: IdParams, response: { 200: s.PublicLink, ...errors(404) },
      },
    }, async (req) => links.publicView(req.params.id));

    app.get("/v1/payment-links/:id/installments", {
      config: { auth: "public" },
      schema: {
        operationId: "paymentLinkInstallments", tags: ["payment-links", "installments"], summary: "Installment plans of a checkout",
        description: "No key; the checkout page calls it for what the buyer pays now (the products and the freight chosen), so each plan shows its installment and total before the buyer pays. The link's merchant's terms (PUT /v1/settings/installments) in the link's environment; the same table as GET /v1/installments.",
        params: IdParams, querystring: Type.Object({ amount: Type.Number({ exclusiveMinimum: 0, description: "Currency units." }) }, { additionalProperties: false }),
        response: { 200: InstallmentQuote, ...errors(404, 422) },
      },
    }, async (req) => links.installments(req.params.id, req.query.amount));

    app.post("/v1/payment-links/:id/freight/quote", {
      config: { auth: "public", idempotent: false },
      preHandler: limit("quote"),
      schema: {
        operationId: "quotePaymentLinkFreight", tags: ["payment-links", "shipping"], summary: "Quote live freight",
        description: "No key (called by the checkout page). Only for freightMode checkout links (else 409) in BRL (else 422), with physical products that have measures. Only the merchant's enabled services, entries the provider could not price dropped, cheapest first; cached 15 minutes per link, CEP and items. 503 when the provider is unavailable or busy.",
        params: IdParams, body: s.QuoteBody,
        response: { 200: s.QuoteResponse, ...errors(404, 409, 422, 429, 503) },
      },
    }, async (req) => links.quote(req.params.id, req.body));

    app.post("/v1/payment-links/:id/charge", {
      config: { auth: "public" },
      // The link decides merchant and environment, before the Idempotency-Key claim (scoped by them).
      preValidation: async (req) => {
        rejectServerFields(req.body);
        const link = await links.payable((req.params as { id: string }).id);
        req.ctx = { ...req.ctx, merchantId: link.merchantId, environment: link.environment, actor: { type: "public", id: `payment_link:${link.id}` } };
      },
      preHandler: limit("charge"),
      schema: {
        operationId: "chargePaymentLink", tags, summary: "Pay through a link",
        description: "No key; used by the hosted checkout. The amount is the products' total plus freight: with freightMode checkout the server re-quotes for shippingAddress.postalCode and takes freightServiceId only if it is enabled and offered now (else 422); fixed, free and pickup use their own rule. Sandbox links make sandbox charges. Idempotency-Key as on POST /v1/charges.",
        headers: IdempotencyHeaders, params: IdParams, body: s.LinkChargeBody,
        response: { 201: s.LinkChargeCreated, ...errors(400, 404, 409, 422, 429, 503) },
      },
    }, async (req, reply) => reply.code(201).send(await links.charge(req.ctx, req.params.id, req.body)));

    app.get("/v1/payment-links/:id/charges/:chargeId/status", {
      config: { auth: "public" },
      schema: {
        operationId: "paymentLinkChargeStatus", tags, summary: "Status of a checkout's charge",
        description: "No key; the checkout page polls it while a Pix or boleto awaits payment. Only charges made through this link, and only their status.",
        params: s.LinkChargeParams, response: { 200: s.ChargeStatusResponse, ...errors(404) },
      },
    }, async (req, reply) => {
      reply.header("cache-control", "no-store");
      return links.chargeStatus(req.params.id, req.params.chargeId);
    });
  };
}
