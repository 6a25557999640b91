import { AppError } from "../../core/errors.js";

// The subscription state machine in one table. Every status change goes through
// `assertTransition`, and the UPDATE that applies it says WHERE status = <from>, so a cancel
// racing a renewal (or two cancels) cannot both win.
import type { SubscriptionStatus } from "../../db/schema/statuses.js";

export type { SubscriptionStatus };

export const SUBSCRIPTION_STATUSES: readonly SubscriptionStatus[] = [
  "pending_activation", "active", "cancelled", "paused", "expired",
];

const TRANSITIONS: Record<SubscriptionStatus, readonly SubscriptionStatus[]> = {
  // The first payment is paid (active), the merchant gives up (cancelled), or it stays unpaid
  // past the activation window (expired).
  pending_activation: ["active", "cancelled", "expired"],
  // Renewals keep it active; dunning ends in expired or cancelled (per the merchant's setting).
  active: ["paused", "cancelled", "expired"],
  paused: ["active", "cancelled"],
  cancelled: [],
  expired: [],
};

/** What the action is called, for messages ("cannot pause a cancelled subscription"). */
const VERB: Partial<Record<SubscriptionStatus, string>> = {
  paused: "pause", active: "resume or activate", cancelled: "cancel", expired: "expire",
};

export function canTransition(from: SubscriptionStatus, to: SubscriptionStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function assertTransition(id: string, from: SubscriptionStatus, to: SubscriptionStatus): void {
  if (!canTransition(from, to)) {
    throw new AppError("invalid_state", `Subscription ${id} is ${from}; cannot ${VERB[to] ?? to} it`);
  }
}
