import { AppError } from "../../core/errors.js";

// The submerchant accreditation state machine in one table. The admin moves a
// submerchant; every move goes through `assertSubmerchantTransition`, and the UPDATE that applies
// it says WHERE status = <from>, so two racing decisions cannot both win.
//
// pre_approved is a stage of the review: the public status (five values, no pre_approved) shows it as
// pending, and `accreditationStatus` shows it as it is.
import type { SubmerchantStatus } from "../../db/schema/statuses.js";

export type { SubmerchantStatus };
export type PublicSubmerchantStatus = Exclude<SubmerchantStatus, "pre_approved">;

export const PUBLIC_STATUSES: readonly PublicSubmerchantStatus[] = ["active", "pending", "inactive", "rejected", "blocked"];
export const ADMIN_TARGETS: readonly Exclude<SubmerchantStatus, "pending">[] = ["pre_approved", "active", "rejected", "blocked", "inactive"];

const TRANSITIONS: Record<SubmerchantStatus, readonly SubmerchantStatus[]> = {
  pending: ["pre_approved", "active", "rejected"],
  pre_approved: ["active", "rejected"],
  // An active submerchant can be blocked (risk, e.g. suspected fraud) or made inactive (it left).
  active: ["blocked", "inactive"],
  blocked: ["active", "inactive"],
  inactive: ["active"],
  // A rejected registration is final: the company registers again as a new submerchant.
  rejected: [],
};

/** Moves that need the required KYC documents on file. */
export const NEEDS_DOCUMENTS: readonly SubmerchantStatus[] = ["pre_approved", "active"];

/** Statuses announced to the submerchant's postbackUrl: the notification knows only these four (not inactive). */
export const NOTIFIED: readonly SubmerchantStatus[] = ["pre_approved", "active", "blocked", "rejected"];

export function publicStatus(s: SubmerchantStatus): PublicSubmerchantStatus {
  return s === "pre_approved" ? "pending" : s;
}

export function assertSubmerchantTransition(id: string, from: SubmerchantStatus, to: SubmerchantStatus): void {
  if (!TRANSITIONS[from].includes(to)) {
    throw new AppError("invalid_state", `Submerchant ${id} is ${from} and cannot become ${to}`);
  }
}

/** The timestamp column a move into `to` sets (for the list filters). */
export const STAMP_OF: Partial<Record<SubmerchantStatus, "preApprovedAt" | "approvedAt" | "rejectedAt" | "blockedAt" | "inactivatedAt">> = {
  pre_approved: "preApprovedAt",
  active: "approvedAt",
  rejected: "rejectedAt",
  blocked: "blockedAt",
  inactive: "inactivatedAt",
};
