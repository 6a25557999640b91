// Types shared by the adapters' pure status and decline tables.

/** feira's reasons for a declined card (the charge's `reason`). */
export type DeclineReason = "card_declined" | "insufficient_funds" | "incorrect_cvc" | "expired_card" | "incorrect_number" | "processing_error";

/** A provider status in feira's terms: the charge statuses plus the two a lookup can also report. */
export type FeiraOutcome =
  | "pending" | "paid" | "in_analysis" | "authentication_required" | "refused" | "failed" | "refunded" | "charged_back";

export interface MappedStatus {
  outcome: FeiraOutcome;
  reason?: string;
  blocked?: boolean;
  /** The provider's own status (or decline code), kept on the charge for support. */
  providerCode: string;
}

/** Where a refund stands at the provider. */
export type RefundOutcome = "succeeded" | "pending" | "failed";
