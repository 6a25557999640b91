import { AppError } from "../../http/errors.js";

// The charge state machine (spec 3.1) in one table. Every status change in the code goes
// through `assertTransition`, and the UPDATE that applies it says WHERE status = <from>, so two
// racing changes (a sandbox pay and a second pay, two refunds) cannot both win.
export type ChargeStatus =
  | "pending" | "paid" | "refused" | "failed" | "refunded" | "in_analysis" | "authentication_required";

export const CHARGE_STATUSES: readonly ChargeStatus[] = [
  "pending", "paid", "refused", "failed", "refunded", "in_analysis", "authentication_required",
];

const TRANSITIONS: Record<ChargeStatus, readonly ChargeStatus[]> = {
  // Created charges start pending; a processor answer moves them on in the same request
  // (cards) or later (Pix, boleto and the other methods paid by the customer).
  pending: ["paid", "refused", "failed", "in_analysis", "authentication_required"],
  authentication_required: ["paid", "refused", "failed"],
  in_analysis: ["paid", "refused"],
  // Partial refunds keep a charge paid; the refund of the rest makes it refunded.
  paid: ["refunded"],
  refused: [],
  failed: [],
  refunded: [],
};

export function canTransition(from: ChargeStatus, to: ChargeStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function assertTransition(chargeId: string, from: ChargeStatus, to: ChargeStatus): void {
  if (!canTransition(from, to)) {
    throw new AppError("invalid_state", `Charge ${chargeId} is ${from} and cannot become ${to}`);
  }
}
