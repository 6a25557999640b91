import { randomToken } from "../../lib/ids.js";
import type { AuthorizeInput, AuthorizeResult, CardInstrument, PaymentProcessor } from "../processor.js";
import { buildInstructions } from "./instruments.js";

// The built-in simulator (CONTRACT section 4). Pure: no database, no network, no clock of
// its own (it reads input.now); the only randomness is in the ids it makes up. The card
// number decides the outcome, as with Stripe's test cards (payments-conventions 1.7).

type CardRule =
  | { outcome: "paid" }
  | { outcome: "refused"; reason: string; blocked?: true }
  | { outcome: "failed"; reason: string }
  | { outcome: "in_analysis" }
  | { outcome: "three_ds" };

/** Test card numbers and what they do; any other (Luhn-valid) number is paid. */
export const SANDBOX_CARDS: Readonly<Record<string, CardRule>> = {
  "4111111111111111": { outcome: "paid" },
  "5555555555554444": { outcome: "paid" },
  "4000000000000002": { outcome: "refused", reason: "card_declined" },
  "4000000000009995": { outcome: "refused", reason: "insufficient_funds" },
  "4000000000000119": { outcome: "failed", reason: "processing_error" },
  "4000000000000259": { outcome: "in_analysis" },
  // Asks for 3DS only when the merchant lets feira run the challenge (threeDSMode managed).
  "4000000000003220": { outcome: "three_ds" },
  // The block flow: refused by risk rules, and the charge is marked isBlocked.
  "4000000000000101": { outcome: "refused", reason: "blocked_by_risk_rules", blocked: true },
};

const THREE_DS_VERSION = "2.2.0";

const pspRef = (kind: "" | "re_") => `sbx_${kind}${randomToken(24)}`;

function authorizeCard(input: AuthorizeInput, card: CardInstrument): AuthorizeResult {
  const rule = SANDBOX_CARDS[card.number.replace(/[\s-]/g, "")] ?? { outcome: "paid" };
  const pspRefId = pspRef("");
  switch (rule.outcome) {
    case "paid":
      return { outcome: "paid", pspRefId };
    case "refused":
      return rule.blocked
        ? { outcome: "refused", reason: rule.reason, pspRefId, blocked: true }
        : { outcome: "refused", reason: rule.reason, pspRefId };
    case "failed":
      return { outcome: "failed", reason: rule.reason, pspRefId };
    case "in_analysis":
      return { outcome: "in_analysis", pspRefId };
    case "three_ds":
      if (card.threeDSMode !== "managed") return { outcome: "paid", pspRefId };
      return {
        outcome: "authentication_required",
        pspRefId,
        details: {
          authenticationUrl: `${input.publicBaseUrl}/v1/sandbox/charges/${encodeURIComponent(input.chargeId)}/authenticate`,
          threeDSVersion: THREE_DS_VERSION,
        },
      };
  }
}

export function createSandboxProcessor(): PaymentProcessor {
  return {
    name: "sandbox",
    async authorize(input) {
      const { instrument } = input;
      if (instrument.kind === "card") return authorizeCard(input, instrument);
      const { details, expiresAt } = await buildInstructions({ ...input, instrument });
      return { outcome: "pending", pspRefId: pspRef(""), details, expiresAt };
    },
    // 3DS passed or review cleared: the simulator always settles what it held.
    async capture() {
      return { outcome: "paid" };
    },
    async refund() {
      return { outcome: "succeeded", refundRef: pspRef("re_") };
    },
  };
}
