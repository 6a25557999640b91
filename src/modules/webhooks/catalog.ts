// Every kind of event the service emits and where it goes:
// - standard: envelope {id, event, livemode, data}, to matching endpoints and the postback URL;
// - legacy: charge.updated, envelope {event, data} in camelCase, only to the charge's postback
//   URL, 3 attempts;
// - payout: envelope {id, event, data} (payout events carry no livemode), to the
//   submerchant's endpoints and its postback URL when the caller gives one;
// - notification: bare data {merchantId, status, date}, no event name (submerchant status), to the postback URL.
export type Envelope = "standard" | "legacy" | "payout" | "notification";

export interface EventSpec {
  envelope: Envelope;
  toEndpoints: boolean;
  toPostback: boolean;
  description: string;
}

export const EVENT_CATALOG = {
  "charge.created": { envelope: "standard", toEndpoints: true, toPostback: true, description: "A charge was created." },
  "charge.pending": { envelope: "standard", toEndpoints: true, toPostback: true, description: "A charge awaits payment, e.g. its Pix code was generated." },
  "charge.paid": { envelope: "standard", toEndpoints: true, toPostback: true, description: "A payment was confirmed; paid_at is set." },
  "charge.refunded": { envelope: "standard", toEndpoints: true, toPostback: true, description: "A refund completed." },
  // A refund the processor refused or failed (most often one it had first accepted as pending):
  // its reserved amount is released, so data.amount_refunded no longer counts it.
  "charge.refund_failed": { envelope: "standard", toEndpoints: true, toPostback: true, description: "A refund failed at the processor (often one first answered pending); the charge keeps that amount and amount_refunded no longer counts it." },
  // Live charges only: the provider reported a chargeback; the charge is charged_back and what
  // was still paid went back on the ledger.
  "charge.disputed": { envelope: "standard", toEndpoints: true, toPostback: true, description: "The payer's bank took a paid charge back (a chargeback reported by the processor); the charge is charged_back and the amount still paid was taken back from the balance." },
  // Disputes: data is the dispute (snake_case, amount in cents).
  "charge.dispute.created": { envelope: "standard", toEndpoints: true, toPostback: true, description: "A dispute (a chargeback or a Pix MED) was opened on a paid charge; its amount was taken from the balance until it is decided." },
  "charge.dispute.updated": { envelope: "standard", toEndpoints: true, toPostback: true, description: "A dispute changed without closing: evidence was submitted and it is under_review." },
  "charge.dispute.closed": { envelope: "standard", toEndpoints: true, toPostback: true, description: "A dispute was decided: won (its amount went back to the balance) or lost (it stays taken; the charge is charged_back, or refunded for a Pix MED)." },
  // Live charges only: a payment that arrived after the charge had failed (an expired Pix or
  // boleto paid late) was refunded in full to the payer; the charge stays failed.
  "charge.late_payment_refunded": { envelope: "standard", toEndpoints: true, toPostback: true, description: "A payment arrived after the charge had failed (e.g. a Pix or boleto paid after it expired), or a second payment of a paid boleto (its line and its Pix both paid), and was refunded in full to the payer; the charge stays as it was and the balance is unchanged." },
  // The endpoints' view of a charge that failed after creation (today: unpaid Pix or boleto past
  // its expiresAt, failure_reason "expired"); the postback URL gets the legacy charge.updated.
  "charge.failed": { envelope: "standard", toEndpoints: true, toPostback: false, description: "A charge failed after it was created, e.g. an unpaid Pix or boleto expired (failure_reason expired)." },
  "charge.updated": { envelope: "legacy", toEndpoints: false, toPostback: true, description: "Legacy: block flow, 3DS failure or a processor status update; only to the charge's postbackUrl." },
  "payout.approved": { envelope: "payout", toEndpoints: true, toPostback: true, description: "A payout request was approved." },
  "payout.rejected": { envelope: "payout", toEndpoints: true, toPostback: true, description: "A payout request was rejected." },
  "payout.paid": { envelope: "payout", toEndpoints: true, toPostback: true, description: "Provider settlement: the processor transferred money from the seller's balance there to its bank; a read-only payout with source provider records it." },
  "payout.returned": { envelope: "payout", toEndpoints: true, toPostback: true, description: "The receiving bank sent back money of an approved payout's Pix transfer: it is in the submerchant's available balance again (returnedAmount in all)." },
  // Subscriptions: data is the subscription (snake_case, amounts in cents), with the invoice of
  // the period concerned where there is one. Each period's charge also sends its charge events.
  "subscription.created": { envelope: "standard", toEndpoints: true, toPostback: false, description: "A subscription was created (active, in trial, or pending_activation until its first payment)." },
  "subscription.activated": { envelope: "standard", toEndpoints: true, toPostback: false, description: "The first payment of a pending_activation subscription was paid; it is active." },
  "subscription.renewed": { envelope: "standard", toEndpoints: true, toPostback: false, description: "A new period began and its charge was made; for Pix and boleto the invoice carries the QR code or the boleto line and its due date." },
  "subscription.payment_failed": { envelope: "standard", toEndpoints: true, toPostback: false, description: "A period's charge was refused, failed or went unpaid; the invoice says whether and when it is retried." },
  "subscription.paused": { envelope: "standard", toEndpoints: true, toPostback: false, description: "A subscription was paused; nothing is billed while paused." },
  "subscription.resumed": { envelope: "standard", toEndpoints: true, toPostback: false, description: "A paused subscription was resumed; its next period starts on the resume date." },
  "subscription.cancelled": { envelope: "standard", toEndpoints: true, toPostback: false, description: "A subscription was cancelled (immediately, at the end of its period, or after failed payments per the merchant's setting)." },
  "subscription.expired": { envelope: "standard", toEndpoints: true, toPostback: false, description: "A subscription expired: its first payment never came, or its payment retries ran out." },
  // Pix Automático: data is the mandate as GET /v1/mandates/{id} shows it.
  "mandate.activated": { envelope: "standard", toEndpoints: true, toPostback: false, description: "The payer authorized a Pix Automático mandate (journey 3: by paying its QR's first charge)." },
  "mandate.rejected": { envelope: "standard", toEndpoints: true, toPostback: false, description: "The payer's bank rejected a Pix Automático mandate; the subscription stays pending_activation until the merchant cancels it." },
  "mandate.cancelled": { envelope: "standard", toEndpoints: true, toPostback: false, description: "A Pix Automático mandate was cancelled: by the payer in the bank app (the subscription is cancelled too) or by the merchant's cancel of the subscription." },
  // data: {provider, environment, reason}; sent when Melhor Envio refuses the refresh token, so
  // live freight stops until the merchant connects again.
  "shipping.integration_inactive": { envelope: "standard", toEndpoints: true, toPostback: false, description: "The shipping provider refused to renew the merchant's access (revoked or expired); live freight quotes stop until the merchant connects again." },
  // Provider settlement's daily reconciliation: data {submerchantId, processor, currency, day,
  // feiraAmount, processorAmount, difference} in cents, to the master's endpoints.
  "connect.balance_mismatch": { envelope: "standard", toEndpoints: true, toPostback: false, description: "The daily reconciliation found a seller's balance at a processor different from feira's atProvider figure for it (both figures in the data)." },
  "submerchant.status_changed": { envelope: "notification", toEndpoints: false, toPostback: true, description: "A submerchant's accreditation status changed." },
} as const satisfies Record<string, EventSpec>;

export type EventType = keyof typeof EVENT_CATALOG;
export const EVENT_TYPES = Object.keys(EVENT_CATALOG) as EventType[];

/** Event types a webhook endpoint can subscribe to (the others go only to postback URLs). */
export const ENDPOINT_EVENT_TYPES = EVENT_TYPES.filter((t) => EVENT_CATALOG[t].toEndpoints);

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_CATALOG, value);
}
