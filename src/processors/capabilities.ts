import type { ProcessorFailure } from "./processor.js";

// The optional capabilities a processor may declare beyond payments: recurring Pix mandates
// (the contract's section 10) and disputes (section 11). Declared here so that a processor that has
// them plugs in through its definition; the core asks `definition.capabilities.x` where it needs
// one and never calls a processor that did not declare it. As everywhere behind the seam, an
// expected refusal is a value and `unknown` means no answer to rely on.

/** A Pix Automático recurrence (the Central Bank's rec) as feira sees it. */
export type MandateState =
  | { outcome: "pending"; mandateRef: string; qrCode: string; expiresAt: Date }
  | { outcome: "active" | "rejected" | "expired" | "cancelled"; mandateRef: string; providerCode?: string }
  | { outcome: "not_found" }
  | { outcome: "unknown"; failure: ProcessorFailure };

export interface MandateInput {
  /** feira's mandate id: also the idempotency key and the reference a lookup finds it by. */
  mandateId: string;
  /** Journey 3 pays the first period with the authorization; journey 2 only authorizes. */
  journey: "qr" | "qr_with_payment";
  maxAmountMinor: number;
  /** The first period's amount, for journey 3. */
  firstAmountMinor?: number;
  payer: { name: string; documentId: string };
  now: Date;
}

/** A recurring charge's debit (the Central Bank's cobr) under an active mandate. */
export type DebitState =
  | { outcome: "scheduled" | "paid"; debitRef: string }
  | { outcome: "failed"; debitRef: string; reason: string }
  | { outcome: "not_found" }
  | { outcome: "unknown"; failure: ProcessorFailure };

export interface MandateCapability {
  create(input: MandateInput): Promise<MandateState>;
  lookup(input: { mandateId: string; mandateRef?: string | null }): Promise<MandateState>;
  cancel(input: { mandateId: string; mandateRef: string }): Promise<MandateState>;
  /** Schedules a period's debit on its due date; idempotent per debitId. */
  scheduleDebit(input: { debitId: string; mandateRef: string; amountMinor: number; dueDate: string }): Promise<DebitState>;
  lookupDebit(input: { debitId: string; debitRef?: string | null }): Promise<DebitState>;
}

/** A dispute at the provider, in feira's terms (a chargeback, or a Pix MED). */
export type DisputeState =
  | {
    outcome: "needs_response" | "under_review" | "won" | "lost";
    disputeRef: string; chargeRef: string; kind: "chargeback" | "pix_med";
    amountMinor: number; reason: string; evidenceDueBy: Date | null;
  }
  | { outcome: "not_found" }
  | { outcome: "unknown"; failure: ProcessorFailure };

export interface DisputeCapability {
  lookup(input: { disputeRef: string }): Promise<DisputeState>;
  /** Absent when evidence is answered in the provider's own dashboard (a 422 saying so). */
  submitEvidence?(input: { disputeRef: string; text: string; files: { name: string; contentType: string; data: Buffer }[] }): Promise<DisputeState>;
}
