import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { errors } from "../../http/schemas.js";
import type { ShippingService } from "./shipping.service.js";
import * as s from "./shipping.schemas.js";

// Management endpoints take the merchant's login token (Bearer JWT) only; the callback is
// public because the provider sends the merchant's browser to it.
const NOT_CONNECTED = "Melhor Envio is not connected: save credentials, then connect with GET /v1/shipping-provider/oauth/authorize";

export function shippingRoutes(shipping: ShippingService) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const jwt = { auth: "jwt" as const };
    const tags = ["shipping"];

    app.post("/v1/shipping-provider/credentials", {
      config: jwt,
      schema: {
        operationId: "saveShippingCredentials", tags, summary: "Save the Melhor Envio app credentials",
        description: "Client ID and Client Secret of the merchant's app at Melhor Envio (its callback URL must be {base_url}/v1/shipping-provider/oauth/callback, scope shipping-calculate). The secret is sealed and never returned. New credentials end the current connection: connect again.",
        body: s.CredentialsBody,
        response: { 200: s.IntegrationStatus, ...errors(401, 403, 422) },
      },
    }, async (req) => shipping.saveCredentials(req.ctx, req.body));

    app.get("/v1/shipping-provider/oauth/authorize", {
      config: jwt,
      schema: {
        operationId: "shippingAuthorizeUrl", tags, summary: "Start the OAuth connection",
        description: "The Melhor Envio authorize URL with a signed, single-use state bound to this merchant and environment, valid 10 minutes.",
        response: { 200: s.AuthorizeResponse, ...errors(401, 403, { 409: "Save the Melhor Envio client id and secret first (POST /v1/shipping-provider/credentials)" }) },
      },
    }, async (req) => shipping.authorizeUrl(req.ctx));

    app.get("/v1/shipping-provider/oauth/callback", {
      config: { auth: "public" },
      schema: {
        operationId: "shippingOauthCallback", tags, summary: "OAuth callback (called by Melhor Envio)",
        description: "Exchanges the code for tokens and redirects (303) to PANEL_URL with ?shipping=connected, or ?shipping=error&reason=invalid_state|access_denied|code_refused|provider_unavailable|no_credentials. A missing, forged, expired or reused state connects nothing.",
        querystring: s.CallbackQuery,
        // Every outcome, a refusal of the provider's included, is the 303 to the panel; the other
        // answers any route can give (429, 500, 503 while starting or draining) are `default`,
        // which code generators read as the operation's other result.
        response: { 303: { type: "null", description: "Redirect to the merchant panel." }, ...errors(400, 422), default: Type.Ref("ErrorBody", { description: "Any other answer (rate limited, unavailable): the error body." }) },
      },
    }, async (req, reply) => reply.header("cache-control", "no-store").redirect(await shipping.callback(req.query), 303));

    app.get("/v1/shipping-provider/status", {
      config: jwt,
      schema: {
        operationId: "shippingStatus", tags, summary: "Integration status",
        description: "The Melhor Envio connection: connected, status, hasCredentials, originPostalCode, enabledServices, tokenExpiresAt.",
        response: { 200: s.IntegrationStatus, ...errors(401, 403) },
      },
    }, async (req) => shipping.status(req.ctx));

    app.get("/v1/shipping-provider/services", {
      config: jwt,
      schema: {
        operationId: "shippingServices", tags, summary: "Services of the connected account",
        description: "Read live from Melhor Envio. 409 when not connected; 503 when the provider is unavailable.",
        response: { 200: s.ServiceList, ...errors(401, 403, 503, { 409: NOT_CONNECTED }) },
      },
    }, async (req) => shipping.services(req.ctx));

    app.put("/v1/shipping-provider/settings", {
      config: jwt,
      schema: {
        operationId: "shippingSettings", tags, summary: "Set the origin CEP and enabled services",
        description: "originPostalCode as 00000-000 or 00000000 (else 422); every id in enabledServices must be a service of the connected account (else 422). Only enabled services are ever quoted.",
        body: s.SettingsBody,
        response: { 200: s.IntegrationStatus, ...errors(401, 403, 422, 503, { 409: NOT_CONNECTED }) },
      },
    }, async (req) => shipping.updateSettings(req.ctx, req.body));

    app.delete("/v1/shipping-provider", {
      config: jwt,
      schema: {
        operationId: "shippingDisconnect", tags, summary: "Disconnect Melhor Envio",
        description: "The integration becomes inactive and its tokens are forgotten; new freight quotes fail (409), links with fixed, free or pickup freight keep working.",
        response: { 204: { type: "null", description: "Disconnected." }, ...errors(401, 403) },
      },
    }, async (req, reply) => {
      await shipping.disconnect(req.ctx);
      return reply.code(204).send(null);
    });
  };
}
