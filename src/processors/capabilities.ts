import type { ProcessorFailure } from "./processor.js";

// The optional capabilities a processor may declare beyond payments: recurring Pix mandates
// (the contract's section 10). Declared here so that a processor that has them plugs in through
// its definition; the core asks `definition.capabilities.x` where it needs one and never calls a
// processor that did not declare it. Disputes (section 11) need the adapter's options and
// connections, as payouts do: they are an adapter's member (processor.ts DisputeCapability). As everywhere behind the seam, an
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
