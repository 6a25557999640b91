import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { LoginThrottle } from "../../http/rate-limit.js";
import { errors, IdParams } from "../../http/schemas.js";
import type { MerchantService } from "./merchants.service.js";
import * as s from "./merchants.schemas.js";

const TOKEN_TTL_SECONDS = 3600;

export function merchantRoutes(service: MerchantService, loginThrottle: LoginThrottle) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    // New keys are shown in this answer only: an idempotent replay answers them as null.
    const keyFields = ["apiKeys.sandbox", "apiKeys.production"];
    app.post("/v1/admin/merchants", {
      config: { auth: "admin", secretFields: keyFields },
      schema: {
        operationId: "adminCreateMerchant", tags: ["admin"], summary: "Create a merchant",
        description: "Creates a merchant with a login and one sandbox and one production secret key, returned in full this once.",
        body: s.CreateMerchantBody,
        response: { 201: s.MerchantWithKeys, ...errors(401, 422, { 409: ["conflict", "A merchant with email dono@loja-exemplo.com.br already exists"] }) },
      },
    }, async (req, reply) => reply.code(201).send(await service.createMerchant(req.body)));

    app.patch("/v1/admin/merchants/:id", {
      config: { auth: "admin" },
      schema: {
        operationId: "adminUpdateMerchant", tags: ["admin"], summary: "Update a merchant",
        description: "Enables or disables Connect, or changes the merchant's status (inactive and blocked merchants' keys stop working).",
        params: IdParams, body: s.PatchMerchantBody,
        response: { 200: s.Merchant, ...errors(401, 404, 422) },
      },
    }, async (req) => service.updateMerchant(req.params.id, req.body));

    app.put("/v1/admin/merchants/:id/fees", {
      config: { auth: "admin" },
      schema: {
        operationId: "adminSetMerchantFees", tags: ["admin"], summary: "Replace a merchant's fee definitions",
        description: "Stores tx_spread, anticipation and payout fee definitions (fixed part in cents, percentages by installment count). Replaces all earlier ones.",
        params: IdParams, body: s.PutFeesBody,
        response: { 200: s.FeesResponse, ...errors(401, 404, 422) },
      },
    }, async (req) => ({ merchantId: req.params.id, fees: await service.setFees(req.params.id, req.body.fees) }));

    app.post("/v1/admin/merchants/:id/rotate-keys", {
      config: { auth: "admin", secretFields: keyFields },
      schema: {
        operationId: "adminRotateMerchantKeys", tags: ["admin"], summary: "Rotate a merchant's secret keys",
        description: "Revokes both secret keys at once and issues new ones, returned in full this once.",
        params: IdParams,
        response: { 200: s.RotateKeysResponse, ...errors(401, 404) },
      },
    }, async (req) => service.rotateKeys(req.params.id));

    app.get("/v1/merchant", {
      config: { auth: "keyOrJwt" },
      schema: {
        operationId: "getMerchantProfile", tags: ["merchant"], summary: "Retrieve your merchant profile",
        description: "The merchant the key or login token belongs to: name, e-mail, status, Connect access, default soft descriptor and time zone. The profile is one for both environments.",
        response: { 200: s.MerchantProfile, ...errors(401, 403) },
      },
    }, async (req) => service.getProfile(req.ctx.merchantId));

    app.patch("/v1/merchant", {
      config: { auth: "keyOrJwt" },
      schema: {
        operationId: "updateMerchantProfile", tags: ["merchant"], summary: "Update your merchant profile",
        description:
          "Changes the merchant's name, its default soft descriptor (the text on the buyer's card statement: at most 13 letters A to Z, digits and spaces; null removes it) " +
          "and its time zone (an IANA name such as America/Sao_Paulo, the default: the panel's dates, today's sales and the CSV export's times are in it). " +
          "The profile is one for both environments, so a sandbox key changes it too. Card charges send the soft descriptor to Pagar.me and Mercado Pago, cut to each one's documented length. " +
          "The e-mail, status and Connect access are the operator's (PATCH /v1/admin/merchants/{id}). Setting the same values again changes nothing, so no Idempotency-Key is needed.",
        body: s.PatchProfileBody,
        response: { 200: s.MerchantProfile, ...errors(401, 403, 422) },
      },
    }, async (req) => service.updateProfile(req.ctx.merchantId, req.body));

    app.post("/v1/auth/login", {
      config: { auth: "public", idempotent: false },
      schema: {
        operationId: "login", tags: ["auth"], summary: "Log in as a merchant",
        description:
          "Exchanges e-mail and password for a Bearer JWT used by the panel endpoints (shipping integration, fees-info). " +
          "Failed attempts are counted per account from each client address, per account and per address: five in a row lock that address out of the account " +
          "(the right password from another address still signs in); many more, from any addresses, slow the account for everyone for minutes at most; " +
          "many from one address, across accounts, lock the address. Each lock doubles with each further failure; while locked, the answer is 429 with Retry-After " +
          "and the password is not checked. " +
          "503 when the attempt counters cannot be reached.",
        body: s.LoginBody,
        response: {
          200: s.LoginResponse,
          ...errors(401, 403, 422, { 429: "Too many failed login attempts; retry later", 503: "Login is temporarily unavailable; retry later" }),
        },
      },
    }, async (req, reply) => {
      const { email, password } = req.body;
      const merchantId = await loginThrottle.attempt({ email, ip: req.ip }, reply, () => service.login(email, password));
      const accessToken = base.jwt.sign(
        { sub: merchantId, env: req.body.environment ?? "sandbox" },
        { expiresIn: TOKEN_TTL_SECONDS },
      );
      return { accessToken, tokenType: "Bearer" as const, expiresIn: TOKEN_TTL_SECONDS };
    });
  };
}
