import type { DisputeStatus } from "../../db/schema/statuses.js";
import { AppError } from "../../core/errors.js";

// The dispute state machine in one table. Every move goes through assertDisputeTransition and
// an UPDATE that says WHERE status = <from>, so a notice, the deadline task and the merchant's
// request racing on one dispute cannot both win.
export type { DisputeStatus };

const TRANSITIONS: Record<DisputeStatus, readonly DisputeStatus[]> = {
  // Evidence moves it to review; conceding, the deadline or the provider's decision end it.
  needs_response: ["under_review", "won", "lost"],
  under_review: ["won", "lost"],
  won: [],
  lost: [],
};

export const isClosed = (s: DisputeStatus) => s === "won" || s === "lost";

export function canMove(from: DisputeStatus, to: DisputeStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function assertDisputeTransition(id: string, from: DisputeStatus, to: DisputeStatus): void {
  if (!canMove(from, to)) throw new AppError("invalid_state", `Dispute ${id} is ${from} and cannot become ${to}`);
}
