import { defineProcessor } from "../definition.js";
import { createMercadoPagoProcessor } from "./mercadopago.processor.js";
import { verifyMercadoPagoSignature } from "./signature.js";

// Mercado Pago (Payments API) as a feira processor: its settings, its adapter and its notices.
// Its notices are signed (x-signature, with MERCADOPAGO_WEBHOOK_SECRET): one that is not, or
// whose signature is stale, is refused before anything is read; a good one only names the
// payment, or the chargeback (topic `chargebacks`), which is read again from Mercado Pago.

const MAX_ID = 64;

/** Whether a notice is of the `chargebacks` topic (`type` or `topic` in the query, as webhooks and IPN send it, or the body's `type`). */
function isChargeback(notice: { query: Readonly<Record<string, string | undefined>>; body: unknown }): boolean {
  const bodyType = (notice.body as { type?: unknown } | null | undefined)?.type;
  return [notice.query.type, notice.query.topic, typeof bodyType === "string" ? bodyType : undefined].some((t) => t !== undefined && /chargebacks/.test(t));
}

export const mercadopago = defineProcessor({
  name: "mercadopago",
  methods: ["credit_card", "pix", "boleto"],
  settings: {
    accessToken: { env: "MERCADOPAGO_ACCESS_TOKEN", required: true },
    webhookSecret: { env: "MERCADOPAGO_WEBHOOK_SECRET", required: true },
    // Card data goes to /v1/card_tokens with the public key before the payment.
    publicKey: { env: "MERCADOPAGO_PUBLIC_KEY", required: ["credit_card"] },
    apiUrl: { env: "MERCADOPAGO_API_URL", url: true, default: "https://api.mercadopago.com" },
    // The marketplace's application, through which sellers authorize (provider settlement).
    clientId: { env: "MERCADOPAGO_CLIENT_ID" },
    clientSecret: { env: "MERCADOPAGO_CLIENT_SECRET" },
    authUrl: { env: "MERCADOPAGO_AUTH_URL", url: true, default: "https://auth.mercadopago.com" },
  },
  create: (o, limits) => createMercadoPagoProcessor({
    accessToken: o.accessToken, publicKey: o.publicKey || undefined, baseUrl: o.apiUrl, timeoutMs: limits.timeoutMs, connections: limits.connections,
    clientId: o.clientId || undefined, clientSecret: o.clientSecret || undefined, authUrl: o.authUrl,
  }),
  notices: {
    description: "Mercado Pago (`mercadopago`): register `/v1/processors/mercadopago/webhooks` as the webhook of the Mercado Pago application (events `payment` and `chargebacks`). "
      + "The `x-signature` header (`ts=...,v1=...`, HMAC-SHA256 with MERCADOPAGO_WEBHOOK_SECRET over `id:<data.id>;request-id:<x-request-id>;ts:<ts>;`) "
      + "must be valid and signed within 300 s, else 401 and nothing changes. The body (`{ action, type, data: { id } }`) is not trusted: "
      + "the payment named by the query's `data.id` (at most 64 characters, else 422) is read again from Mercado Pago; "
      + "of the `chargebacks` topic (`type` or `topic` in the query, or the body's `type`), `data.id` names a chargeback, read again with `GET /v1/chargebacks/{id}`: "
      + "it opens, moves or closes the dispute of its payment's charge. "
      + "A chargeback whose `user_id` is a seller's linked Mercado Pago account is read with that seller's token (its payment was made on the seller's account).",
    read(notice, o) {
      const dataId = notice.query["data.id"];
      if (dataId !== undefined && dataId.length > MAX_ID) {
        return { outcome: "refused", status: 422, message: `data.id must be at most ${MAX_ID} characters` };
      }
      const check = verifyMercadoPagoSignature({
        signature: notice.header("x-signature"), requestId: notice.header("x-request-id"), dataId, secret: o.webhookSecret, now: notice.now,
      });
      if (!o.webhookSecret || !check.ok) {
        return { outcome: "refused", status: 401, message: `x-signature is ${check.ok ? "not checkable (no MERCADOPAGO_WEBHOOK_SECRET)" : check.reason}` };
      }
      const ids = dataId ? [dataId] : [];
      if (!isChargeback(notice)) return { outcome: "accepted", payments: ids };
      // user_id: the account the chargeback is of, a seller's when its payment was made on the
      // seller's account; read with that seller's token (a reference only, like data.id).
      const userId = (notice.body as { user_id?: unknown } | null | undefined)?.user_id;
      const account = (typeof userId === "number" || typeof userId === "string") && /^\d{1,20}$/.test(String(userId)) ? String(userId) : undefined;
      return { outcome: "accepted", payments: [], disputes: ids, ...(account ? { account } : {}) };
    },
  },
});
