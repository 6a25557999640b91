import { AppError } from "../../core/errors.js";

// The charge state machine of the API in one table. Every status change in the code goes
// through `assertTransition`, and the UPDATE that applies it says WHERE status = <from>, so two
// racing changes (a sandbox pay and a second pay, two refunds) cannot both win.
import type { ChargeStatus } from "../../db/schema/statuses.js";

export type { ChargeStatus };

export const CHARGE_STATUSES: readonly ChargeStatus[] = [
  "pending", "paid", "refused", "failed", "refunded", "in_analysis", "authentication_required", "charged_back",
];

const TRANSITIONS: Record<ChargeStatus, readonly ChargeStatus[]> = {
  // Created charges start pending; a processor answer moves them on in the same request
  // (cards) or later (Pix, boleto and the other methods paid by the customer).
  pending: ["paid", "refused", "failed", "in_analysis", "authentication_required"],
  authentication_required: ["paid", "refused", "failed"],
  in_analysis: ["paid", "refused"],
  // Partial refunds keep a charge paid; the refund of the rest makes it refunded. A live
  // charge's provider may report a chargeback: what was still paid goes back (final).
  paid: ["refunded", "charged_back"],
  refused: [],
  failed: [],
  refunded: [],
  charged_back: [],
};

/** What expiry does to an unpaid payer-paid charge (Pix, boleto, ...), sandbox and live alike. */
export const EXPIRY = { to: "failed", patch: { reason: "expired" } } as const satisfies { to: ChargeStatus; patch: { reason: string } };

export function canTransition(from: ChargeStatus, to: ChargeStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function assertTransition(chargeId: string, from: ChargeStatus, to: ChargeStatus): void {
  if (!canTransition(from, to)) {
    throw new AppError("invalid_state", `Charge ${chargeId} is ${from} and cannot become ${to}`);
  }
}
