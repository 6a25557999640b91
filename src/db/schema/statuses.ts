// The status values of each resource, as the columns hold them: the column types carry them, so
// a row's status is already the union and needs no cast. Each resource's transition table (its
// module's *-status.ts) says which moves are allowed.

export type ChargeStatus =
  | "pending" | "paid" | "refused" | "failed" | "refunded" | "in_analysis" | "authentication_required" | "charged_back";

/**
 * A payment the provider took for a live charge that feira had already failed (an expired Pix or
 * boleto paid late): refund_pending until the provider confirms the refund, then refunded.
 */
export type LatePaymentStatus = "refund_pending" | "refunded";

export type SubmerchantStatus = "pending" | "pre_approved" | "active" | "rejected" | "blocked" | "inactive";

export type SubscriptionStatus = "pending_activation" | "active" | "cancelled" | "paused" | "expired";

export type DisputeKind = "chargeback" | "pix_med";

/** needs_response -> under_review (evidence) -> won | lost; unanswered past its deadline: lost. */
export type DisputeStatus = "needs_response" | "under_review" | "won" | "lost";

/** A Pix Automático mandate; the Central Bank's rec: CRIADA, APROVADA, REJEITADA, EXPIRADA, CANCELADA. */
export type MandateStatus = "pending" | "active" | "rejected" | "expired" | "cancelled";

/**
 * A split rule as stored in jsonb (a charge's, a subscription's, the default split): the API's
 * shape. The arithmetic is src/modules/ledger/split.ts's.
 */
export interface StoredSplitRule {
  merchantId: string;
  /** Percent with at most two decimals (12.5 means 12.5 %); or `amount`. */
  percentage?: number;
  /** A fixed share in currency units of the charge's currency (10.5 = 10.50 BRL); or `percentage`. */
  amount?: number;
  /** Gives back refunds and disputes in place of the parties that are not liable. */
  liable?: boolean;
  /** Its share pays the charge's processing fee. */
  feeBearer?: boolean;
  /** Its share stays held until the charge is released or refunded. */
  hold?: boolean;
  /**
   * The recipient's holdDays when the charge was made (set by feira, never taken from a request):
   * its share stays held that many days after payment.
   */
  holdDays?: number;
}
