import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { AppError } from "../../http/errors.js";
import { errors } from "../../http/schemas.js";
import { verifyMercadoPagoSignature } from "../../processors/mercadopago/signature.js";
import { tooManyRequests } from "../../http/lockout.js";
import type { NoticeGate } from "./provider-notices.js";

// Where the providers tell feira that a payment changed. Neither body is trusted: it only names
// the payment, which is then read again from the provider (provider-sync.ts). Mercado Pago's
// notices are signed and checked first; Pagar.me v5 documents no signature, so its notices are
// accepted as they come. Unknown, repeated and late notices are answered 200 and change nothing
// twice, so a provider never retries a notice feira already has.

const Received = Type.Object({
  received: Type.Boolean({ description: "Always true: the notice was taken; the payment was read again from the provider when it names a live charge." }),
}, { description: "The notice was accepted.", examples: [{ received: true }] });

const text = (v: unknown): string | undefined =>
  (typeof v === "string" && v.length > 0 && v.length <= 64 ? v : typeof v === "number" && Number.isSafeInteger(v) ? String(v) : undefined);
const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** Reads the charge a notice names within the gate's bounds; past them, a 429 the provider retries. */
async function readAgain(gate: NoticeGate, processor: string, refs: readonly string[], req: FastifyRequest, reply: FastifyReply) {
  const admission = await gate.notice(processor, refs, req.ip);
  if (!admission.admitted) throw tooManyRequests(reply, admission.retryInMs, "Too many payment notices to read now; send this one again later");
  return { received: true };
}

const LIMIT_TEXT = " Each notice that names a live charge makes feira read the payment at the provider: notices for one charge that arrive together share one read, "
  + "and reads are limited per client address and in all (PROCESSOR_WEBHOOK_LOOKUPS_PER_ADDRESS, PROCESSOR_WEBHOOK_LOOKUPS_PER_SECOND); "
  + "past them the notice gets a 429 with Retry-After, and the provider's retry or feira's reconciliation applies the change.";

export function providerWebhookRoutes(gate: NoticeGate, mercadopagoSecret: string) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post("/v1/processors/mercadopago/webhooks", {
      config: { auth: "public", idempotent: false },
      schema: {
        operationId: "mercadoPagoWebhook", tags: ["charges"], summary: "Mercado Pago payment notice",
        description: "Register this URL as the webhook of the Mercado Pago application (event `payment`). "
          + "The `x-signature` header (`ts=...,v1=...`, HMAC-SHA256 with MERCADOPAGO_WEBHOOK_SECRET over `id:<data.id>;request-id:<x-request-id>;ts:<ts>;`) "
          + "must be valid and signed within 300 s, else 401 and nothing changes. The body is not trusted: the payment named by `data.id` is read again from Mercado Pago." + LIMIT_TEXT,
        querystring: Type.Object({
          "data.id": Type.Optional(Type.String({ maxLength: 64, description: "The Mercado Pago payment id the notice is about (signed)." })),
          type: Type.Optional(Type.String({ maxLength: 64, description: "The notice's topic, e.g. `payment`." })),
        }, { additionalProperties: true }),
        body: Type.Optional(Type.Unknown({
          description: "Mercado Pago's thin notice (`{ action, type, data: { id } }`); feira reads the payment from Mercado Pago instead of trusting it.",
          examples: [{ action: "payment.updated", api_version: "v1", type: "payment", data: { id: "1234567890" }, date_created: "2026-11-25T12:00:00Z", live_mode: true }],
        })),
        response: { 200: Received, ...errors(401, 429) },
      },
    }, async (req, reply) => {
      const dataId = req.query["data.id"];
      const check = verifyMercadoPagoSignature({
        signature: header(req.headers["x-signature"]), requestId: header(req.headers["x-request-id"]),
        dataId, secret: mercadopagoSecret, now: new Date(),
      });
      if (!mercadopagoSecret || !check.ok) {
        throw new AppError("unauthorized", `x-signature is ${check.ok ? "not checkable (no MERCADOPAGO_WEBHOOK_SECRET)" : check.reason}`);
      }
      return readAgain(gate, "mercadopago", dataId ? [dataId] : [], req, reply);
    });

    app.post("/v1/processors/pagarme/webhooks", {
      config: { auth: "public", idempotent: false },
      schema: {
        operationId: "pagarmeWebhook", tags: ["charges"], summary: "Pagar.me payment notice",
        description: "Register this URL as a webhook of the Pagar.me account (events `order.*` and `charge.*`). "
          + "Pagar.me v5 signs nothing: the body only names the order or charge (`data.code`, `data.order.code` = feira's charge id, or `data.id`), "
          + "which is read again from Pagar.me before anything changes." + LIMIT_TEXT,
        body: Type.Optional(Type.Unknown({
          description: "Pagar.me's notice (`{ id, type, data: order or charge }`); only its references are used, and the order is read from Pagar.me.",
          examples: [{ id: "hook_RyEKQO789TRpZjv5", type: "order.paid", created_at: "2026-11-25T12:00:00Z", data: { id: "or_56GXnk6T0eU88qMm", code: "ch_01jd3k2m4nabcdefghjkmnpqrs", status: "paid" } }],
        })),
        response: { 200: Received, ...errors(429) },
      },
    }, async (req, reply) => {
      const data = (req.body as { data?: { id?: unknown; code?: unknown; order?: { code?: unknown } } } | undefined)?.data;
      const refs = [text(data?.code), text(data?.order?.code), text(data?.id)].filter((r): r is string => r !== undefined);
      return readAgain(gate, "pagarme", refs, req, reply);
    });
  };
}
