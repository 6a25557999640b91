import { randomToken } from "../../lib/ids.js";
import {
  memoryRecords, type AuthorizeInput, type AuthorizeResult, type CaptureResult, type CardInstrument, type PaymentProcessor,
  type PayoutResult, type ProcessorRecords, type RefundResult,
} from "../processor.js";
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

const pspRef = (kind: "" | "re_" | "pix_") => `sbx_${kind}${randomToken(24)}`;

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

async function authorizeOnce(input: AuthorizeInput): Promise<AuthorizeResult> {
  const { instrument } = input;
  if (instrument.kind === "card") return authorizeCard(input, instrument);
  const { details, expiresAt } = await buildInstructions({ ...input, instrument });
  return { outcome: "pending", pspRefId: pspRef(""), details, expiresAt };
}

/**
 * The simulator. Every call is recorded under its idempotency key (the charge id, the refund
 * id) in `records`, and a repeated call gets the recorded answer: one authorization per charge
 * id, like a real acquirer's idempotency keys. The app gives it a table; unit tests memory.
 */
export function createSandboxProcessor(records: ProcessorRecords = memoryRecords()): PaymentProcessor {
  return {
    name: "sandbox",
    async authorize(input) {
      const stored = await records.once("authorize", input.chargeId, async () => authorizeOnce(input) as never);
      // JSON keeps the expiry as text; the interface promises a Date.
      const r = stored as unknown as AuthorizeResult & { expiresAt?: string | Date };
      return (r.outcome === "pending" ? { ...r, expiresAt: new Date(r.expiresAt!) } : r) as AuthorizeResult;
    },
    // 3DS passed or review cleared: the simulator always settles what it held.
    async capture(input) {
      return (await records.once("capture", input.chargeId, async () => ({ outcome: "paid" }))) as CaptureResult;
    },
    async refund(input) {
      return (await records.once("refund", input.refundId, async () => ({ outcome: "succeeded", refundRef: pspRef("re_") }))) as RefundResult;
    },
    // The Pix transfer of a payout always goes through in the sandbox.
    async payout(input) {
      return (await records.once("payout", input.payoutId, async () => ({ outcome: "paid", payoutRef: pspRef("pix_") }))) as PayoutResult;
    },
  };
}
