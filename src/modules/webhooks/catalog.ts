// Every kind of event the service emits and where it goes (spec part 6):
// - standard: envelope {id, event, livemode, data}, to matching endpoints and the postback URL;
// - legacy: charge.updated, envelope {event, data} in camelCase, only to the charge's postback
//   URL, 3 attempts;
// - payout: envelope {id, event, data} (spec 6.2: payout events carry no livemode), to the
//   submerchant's endpoints and its postback URL when the caller gives one;
// - notification: the bare data (submerchant status change, spec 6.3), to the postback URL.
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
  // The endpoints' view of a charge that failed after creation (today: unpaid Pix or boleto past
  // its expiresAt, failure_reason "expired"); the postback URL gets the legacy charge.updated.
  "charge.failed": { envelope: "standard", toEndpoints: true, toPostback: false, description: "A charge failed after it was created, e.g. an unpaid Pix or boleto expired (failure_reason expired)." },
  "charge.updated": { envelope: "legacy", toEndpoints: false, toPostback: true, description: "Legacy: block flow, 3DS failure or a processor status update; only to the charge's postbackUrl." },
  "payout.approved": { envelope: "payout", toEndpoints: true, toPostback: true, description: "A payout request was approved." },
  "payout.rejected": { envelope: "payout", toEndpoints: true, toPostback: true, description: "A payout request was rejected." },
  "submerchant.status_changed": { envelope: "notification", toEndpoints: false, toPostback: true, description: "A submerchant's accreditation status changed (spec 6.3)." },
} as const satisfies Record<string, EventSpec>;

export type EventType = keyof typeof EVENT_CATALOG;
export const EVENT_TYPES = Object.keys(EVENT_CATALOG) as EventType[];

/** Event types a webhook endpoint can subscribe to (the others go only to postback URLs). */
export const ENDPOINT_EVENT_TYPES = EVENT_TYPES.filter((t) => EVENT_CATALOG[t].toEndpoints);

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_CATALOG, value);
}
