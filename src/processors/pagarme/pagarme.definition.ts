import { defineProcessor } from "../definition.js";
import { noticeText } from "../notice-text.js";
import { createPagarmeProcessor } from "./pagarme.processor.js";

// Pagar.me (core API v5) as a feira processor: its settings, its adapter and its notices.
// Pagar.me v5 documents no signature on its webhooks, so a notice is accepted as it comes: it
// only names the order or charge, which is read again from Pagar.me before anything changes.

export const pagarme = defineProcessor({
  name: "pagarme",
  methods: ["credit_card", "pix", "boleto"],
  settings: {
    secretKey: { env: "PAGARME_SECRET_KEY", required: true },
    apiUrl: { env: "PAGARME_API_URL", url: true, default: "https://api.pagar.me/core/v5" },
    // The operator's own recipient: the remainder of a split charge in provider settlement.
    recipientId: { env: "PAGARME_RECIPIENT_ID" },
  },
  create: (o, limits) => createPagarmeProcessor({ secretKey: o.secretKey, baseUrl: o.apiUrl, recipientId: o.recipientId, timeoutMs: limits.timeoutMs, connections: limits.connections }),
  notices: {
    description: "Pagar.me (`pagarme`): register `/v1/processors/pagarme/webhooks` as a webhook of the Pagar.me account (events `order.*` and `charge.*`). "
      + "Pagar.me v5 signs nothing: the body (`{ id, type, data: order or charge }`) only names the order or charge (`data.code`, `data.order.code` = feira's charge id, or `data.id`), "
      + "which is read again from Pagar.me before anything changes.",
    read(notice) {
      const data = (notice.body as { data?: { id?: unknown; code?: unknown; order?: { code?: unknown } } } | undefined)?.data;
      const payments = [noticeText(data?.code), noticeText(data?.order?.code), noticeText(data?.id)].filter((r): r is string => r !== undefined);
      return { outcome: "accepted", payments };
    },
  },
});
