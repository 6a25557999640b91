import type { ProcessorFailure } from "./processor.js";

// The optional capabilities a processor may declare beyond payments: recurring Pix mandates
// (the contract's section 10). Declared here so that a processor that has them plugs in through
// its definition; the core asks `definition.capabilities.x` where it needs one and never calls a
// processor that did not declare it. Disputes (section 11) need the adapter's options and
// connections, as payouts do: they are an adapter's member (processor.ts DisputeCapability). As everywhere behind the seam, an
// expected refusal is a value and `unknown` means no answer to rely on.

/** A Pix Automático recurrence (the Central Bank's rec) as feira sees it. */
export type MandateState =
  /** Awaiting the payer's bank; qrCode is the BR Code the payer scans (journey 2 or 3). */
  | { outcome: "pending"; mandateRef: string; qrCode: string }
  | { outcome: "active" | "rejected" | "expired"; mandateRef: string; providerCode?: string }
  /** `by`: the payer's side (the payer or its bank), or the receiver's (feira's own cancel, or its PSP). */
  | { outcome: "cancelled"; mandateRef: string; providerCode?: string; by: "payer" | "receiver" }
  | { outcome: "not_found" }
  /** The provider refused to make it (a 4xx): nothing was made. */
  | { outcome: "refused"; providerCode?: string; message: string }
  | { outcome: "unknown"; failure: ProcessorFailure };

export interface MandateInput {
  /** feira's mandate id: also the idempotency key and the reference a lookup finds it by. */
  mandateId: string;
  /** Journey 3 pays the first period with the authorization; journey 2 only authorizes. */
  journey: "qr" | "qr_with_payment";
  maxAmountMinor: number;
  /** Journey 3: the provider's reference of the first period's immediate charge (Efí's cob txid). */
  firstPaymentRef?: string;
  payer: { name: string; documentType: "cpf" | "cnpj"; documentNumber: string };
  /** The Central Bank's periodicities; a plan of another cadence cannot be a recurrence. */
  periodicity: MandatePeriodicity;
  /** The first debit's due date (YYYY-MM-DD, Brasília). */
  startDate: string;
  retryPolicy: "none" | "3_in_7_days";
  /** What the payer sees the recurrence is for. */
  description: string;
  now: Date;
}

export type MandatePeriodicity = "weekly" | "monthly" | "quarterly" | "half_yearly" | "yearly";

/** A recurring charge's debit (the Central Bank's cobr) under an active mandate. */
export type DebitState =
  /** scheduled: `dueDate` (YYYY-MM-DD) is the day the payer's bank debits it, when the processor says. */
  | { outcome: "scheduled"; debitRef: string; dueDate?: string }
  | { outcome: "paid"; debitRef: string }
  /** The debit will not be made: rejected by the payer's bank, expired unpaid, or cancelled. */
  | { outcome: "failed"; debitRef: string; reason: string; /** The processor refused to make it (a 4xx): no debit exists. */ refused?: true }
  | { outcome: "not_found" }
  | { outcome: "unknown"; failure: ProcessorFailure };

export interface MandateCapability {
  create(input: MandateInput): Promise<MandateState>;
  /** By the provider's reference; without one (a create whose answer was lost), by feira's id among the payer's recurrences since `since`. */
  lookup(input: { mandateId: string; mandateRef?: string | null; payer?: MandateInput["payer"]; since?: Date }): Promise<MandateState>;
  cancel(input: { mandateId: string; mandateRef: string }): Promise<MandateState>;
  /** Schedules a period's debit on its due date; idempotent per debitId. */
  scheduleDebit(input: { debitId: string; mandateRef: string; amountMinor: number; dueDate: string; description: string }): Promise<DebitState>;
  lookupDebit(input: { debitId: string; debitRef?: string | null }): Promise<DebitState>;
  /**
   * A new attempt of a failed debit on `date` (YYYY-MM-DD, a future day): the Central Bank refuses
   * a second debit of the period, so a retry is an attempt of the same one, within the mandate's
   * retry policy. Answers the debit's state after the request (scheduled, or still failed when refused).
   */
  retryDebit(input: { debitRef: string; date: string }): Promise<DebitState>;
}
