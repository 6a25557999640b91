import type { Environment } from "../../core/context.js";
import type { Envelope } from "./catalog.js";

// The body of a delivery, by the envelope recorded with the event (the envelopes are listed in catalog.ts).
// The worker builds the string once per attempt and signs exactly those bytes.
export function buildBody(event: {
  id: string;
  type: string;
  envelope: string;
  environment: Environment;
  data: Record<string, unknown>;
}): string {
  switch (event.envelope as Envelope) {
    case "standard":
      return JSON.stringify({ id: event.id, event: event.type, livemode: event.environment === "production", data: event.data });
    case "payout":
      return JSON.stringify({ id: event.id, event: event.type, data: event.data });
    case "legacy":
      // No id and no livemode: the legacy integrators dedupe on the webhook-id header.
      return JSON.stringify({ event: event.type, data: event.data });
    case "notification":
      return JSON.stringify(event.data);
    default:
      throw new Error(`unknown envelope ${event.envelope} on event ${event.id}`);
  }
}
