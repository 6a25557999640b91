import { sandboxAccounts } from "./accounts.js";
import { randomToken } from "../../lib/ids.js";
import { makeEndToEndId } from "../../lib/pix-end-to-end-id.js";
import { methodAcceptsCurrency } from "../methods.js";
import {
  memoryRecords, type AuthorizeInput, type AuthorizeResult, type CancelResult, type CaptureResult, type CardInstrument,
  type LookupResult, type ProcessorRecords, type RefundResult, type Serves,
} from "../processor.js";
import { buildInstructions, checkBoletoDueDate } from "./instruments.js";
import { decodeSandboxWalletToken } from "./wallet.js";

// The built-in simulator (test cards: README.md), what sandbox keys are served by, never a
// production key. Pure: no database, no network, no clock of
// its own (it reads input.now); the only randomness is in the ids it makes up. The card
// number decides the outcome, as with Stripe's test cards.

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

// The simulated bank's ISPB in the end-to-end ids of sandbox payouts: all nines, so that a
// sandbox id is never taken for a real institution's (ISPB 00000000 is Banco do Brasil's).
export const SANDBOX_ISPB = "99999999";

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

// Records are JSON: what was stored is read back as the result type it was stored from.
const asRecord = (r: object): Record<string, unknown> => ({ ...r });
const asAuthorizeResult = (stored: Record<string, unknown>): AuthorizeResult => {
  // JSON keeps the expiry as text; the interface promises a Date.
  const r = stored as unknown as AuthorizeResult;
  return r.outcome === "pending" ? { ...r, expiresAt: new Date(r.expiresAt) } : r;
};

/**
 * The simulator. Every call is recorded under its idempotency key (the charge id, the refund
 * id) in `records`, and a repeated call gets the recorded answer: one authorization per charge
 * id, like a real acquirer's idempotency keys. The app gives it a table; unit tests memory. A
 * charge's first authorization hands its record to the caller (`recordWith`), which commits it
 * with the charge.
 */
export function createSandboxProcessor(records: ProcessorRecords = memoryRecords()): Serves<"cancel" | "capture" | "refund" | "refundStatus" | "payouts" | "decodeWalletToken"> {
  return {
    name: "sandbox",
    // The simulator takes a provider-settled split as the processors that send one do.
    sendsSplit: true,
    // Every method feira knows, in the currencies the method itself allows.
    supports: methodAcceptsCurrency,
    checkInstrument(input) {
      const dueDate = input.options.dueDate;
      if (input.method !== "boleto" || typeof dueDate !== "string") return null;
      const problem = checkBoletoDueDate(dueDate, input.now);
      return problem ? `paymentMethod.${problem}` : null;
    },
    decodeWalletToken: decodeSandboxWalletToken,
    async authorize(input) {
      // A first call whose caller commits the record with the charge: one write fewer per
      // charge, and no record of an authorization whose charge never committed. A resumed call
      // may find an earlier attempt's record, so it goes through `records`.
      if (input.recordWith && !input.resumed) {
        const result = JSON.parse(JSON.stringify(await authorizeOnce(input))) as Record<string, unknown>;
        input.recordWith({ operation: "authorize", key: input.chargeId, result });
        return asAuthorizeResult(result);
      }
      return asAuthorizeResult(await records.once("authorize", input.chargeId, async () => asRecord(await authorizeOnce(input))));
    },
    // The simulator answers at once, so a lookup finds its first answer or nothing; what the
    // sandbox routes did to the charge afterwards (pay, expire) lives on the charge itself.
    async lookup(input): Promise<LookupResult> {
      const stored = await records.find("authorize", input.chargeId);
      return stored ? asAuthorizeResult(stored) : { outcome: "not_found" };
    },
    async cancel(input) {
      return (await records.once("cancel", input.chargeId, async () => ({ outcome: "canceled" }))) as CancelResult;
    },
    // 3DS passed or review cleared: the simulator always settles what it held.
    async capture(input) {
      return (await records.once("capture", input.chargeId, async () => ({ outcome: "paid" }))) as CaptureResult;
    },
    async refund(input) {
      return (await records.once("refund", input.refundId, async () => ({ outcome: "succeeded", refundRef: pspRef("re_") }))) as RefundResult;
    },
    async refundStatus(input) {
      const stored = await records.find("refund", input.refundId);
      return stored ? (stored as RefundResult) : { outcome: "not_found" };
    },
    // The Pix transfer of a payout always goes through in the sandbox, as a live one does: the
    // send answers "sending" (Efí's EM_PROCESSAMENTO) and any later read "sent" with an
    // end-to-end id of the real shape, dated when it was sent, so that integrations rehearse both
    // states. Recorded per transfer id: a repeated send is the same transfer.
    accounts: sandboxAccounts(records),
    payouts: {
      async send(input) {
        await records.once("payout", input.transferId, async () => ({ endToEndId: makeEndToEndId(SANDBOX_ISPB, input.now, randomToken(11)) }));
        return { outcome: "sending" };
      },
      async read(input) {
        const sent = await records.find("payout", input.transferId);
        return typeof sent?.endToEndId === "string" ? { outcome: "sent", endToEndId: sent.endToEndId } : { outcome: "not_found" };
      },
    },
  };
}
