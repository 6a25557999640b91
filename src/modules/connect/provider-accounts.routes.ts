import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { errors, IdempotencyHeaders, IdParams } from "../../http/schemas.js";
import type { ProviderAccountService } from "./provider-accounts.service.js";
import { OAUTH_CALLBACK_PATH } from "./provider-oauth.js";
import * as s from "./provider-accounts.schemas.js";

export function providerAccountRoutes(accounts: ProviderAccountService) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post("/v1/submerchants/:id/provider-accounts", {
      schema: {
        operationId: "openProviderAccount", tags: ["connect"], summary: "Open a submerchant's account at a processor",
        description:
          "The master's key; the submerchant must be active (KYC approved, else 422 submerchant_not_active). One account per processor: " +
          "sandbox (sandbox keys) is active at once; Pagar.me makes a recipient with the submerchant's data and bankAccount " +
          "(bank: 3-digit code, branch up to 4 digits, branchDigit 1 digit, account up to 13 digits, accountDigit 1-2, type checking|savings, " +
          "holderDocument a valid CPF or CNPJ: checked before any call, a 422 names the field and nothing is written), under code = the submerchant id, " +
          "so a retry after a lost answer reads the recipient back instead of making a second; Efí takes account, the seller's own Efí account number " +
          "(with the submerchant's CNPJ), active once given; Mercado Pago answers authorizeUrl, where the seller authorizes the marketplace's application " +
          "(MERCADOPAGO_CLIENT_ID and MERCADOPAGO_CLIENT_SECRET): its state is signed, single-use and expires in 10 minutes (authorizeUrlExpiresAt); " +
          `the seller's tokens, received at ${OAUTH_CALLBACK_PATH}, are sealed and never answered, and the account is active with the seller's user id. ` +
          "A second call answers the account as the processor has it now (a pending Mercado Pago account: a new authorizeUrl). " +
          "Bank data is never answered beyond its last four digits.",
        headers: IdempotencyHeaders, params: IdParams, body: s.OpenProviderAccountBody,
        response: { 201: s.ProviderAccount, ...errors(400, 401, 403, 404, 422, 503) },
      },
    }, async (req, reply) => reply.code(201).send(await accounts.open(req.ctx, req.params.id, req.body)));

    app.get(OAUTH_CALLBACK_PATH, {
      config: { auth: "public" },
      schema: {
        operationId: "providerAccountOauthCallback", tags: ["connect"], summary: "OAuth callback of a seller's authorization (called by the processor)",
        description:
          "The processor sends the seller's browser here after it authorized the marketplace's application (POST /v1/submerchants/{id}/provider-accounts answered the URL). " +
          "The code is exchanged for the seller's tokens, sealed at rest and never answered; the account is then active. A missing, forged, tampered, expired " +
          "or already used state is a 400 and nothing is written; a code the processor refuses is a 400 and the account stays pending.",
        querystring: s.OAuthCallbackQuery,
        response: { 200: s.ProviderAccount, ...errors(400, 503) },
      },
    }, async (req, reply) => reply.header("cache-control", "no-store").send(await accounts.callback(req.query)));

    app.get("/v1/submerchants/:id/provider-accounts", {
      schema: {
        operationId: "listProviderAccounts", tags: ["connect"], summary: "List a submerchant's accounts at processors",
        description: "The master's key: the submerchant's accounts as feira last recorded them (also in the submerchant's providerAccounts).",
        params: IdParams,
        response: { 200: s.ProviderAccountList, ...errors(401, 403, 404) },
      },
    }, async (req) => accounts.list(req.ctx, req.params.id));

    app.get("/v1/submerchants/:id/provider-accounts/:processor", {
      schema: {
        operationId: "getProviderAccount", tags: ["connect"], summary: "Read a submerchant's account at a processor",
        description: "The master's key: the account's state read back from the processor now (a refused Pagar.me recipient shows Pagar.me's reason).",
        params: s.ProcessorParams,
        response: { 200: s.ProviderAccount, ...errors(401, 403, 404) },
      },
    }, async (req) => accounts.get(req.ctx, req.params.id, req.params.processor));
  };
}
