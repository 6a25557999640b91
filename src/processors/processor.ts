// The narrow interface every payment processor implements. The sandbox simulator is the first
// adapter; real acquirers plug in behind the same shape. Expected declines are values, never
// exceptions; an exception means the processor could not be reached or misbehaved.

export type PaymentMethodType =
  | "credit_card" | "pix" | "open_finance" | "qr_code" | "boleto" | "bank_transfer" | "oxxo" | "spei" | "pse";

/** What a processor sees of a card: the PAN only in memory, for the call. */
export interface CardInstrument {
  kind: "card";
  number: string;
  brand: string;
  holderName: string;
  expirationMonth: string;
  expirationYear: string;
  cvv?: string;
  installments: number;
  threeDSMode: "managed" | "none";
  /** Present when the card came from a wallet (Apple Pay / Google Pay) token. */
  wallet?: { type: "apple_pay" | "google_pay"; token: string };
}

export interface AsyncInstrument {
  kind: Exclude<PaymentMethodType, "credit_card">;
  /** Seconds until the payment instructions expire. */
  expiresIn: number;
  /** Method-specific inputs, already validated (e.g. boleto dueDate, pse bank and document). */
  options: Record<string, unknown>;
}

export interface AuthorizeInput {
  /**
   * Also the idempotency key of the call: a processor answers a repeated authorization of the
   * same charge id with its first result, never with a second authorization (the id stays the
   * same when a request is retried after a crash, see http/idempotency.ts).
   */
  chargeId: string;
  amountMinor: number;
  currency: string;
  instrument: CardInstrument | AsyncInstrument;
  merchant: { id: string; name: string; city: string; pixKey: string };
  customer: { name: string; email: string | null; documentId: string | null; documentType: string | null } | null;
  now: Date;
  publicBaseUrl: string;
}

export type AuthorizeResult =
  | { outcome: "paid"; pspRefId: string; details?: Record<string, unknown> }
  /** Awaiting the payer (Pix, boleto, ...): details carry the payment instructions. */
  | { outcome: "pending"; pspRefId: string; details: Record<string, unknown>; expiresAt: Date }
  | { outcome: "in_analysis"; pspRefId: string; details?: Record<string, unknown> }
  | { outcome: "authentication_required"; pspRefId: string; details: Record<string, unknown> }
  | { outcome: "refused"; reason: string; pspRefId?: string; blocked?: boolean }
  | { outcome: "failed"; reason: string; pspRefId?: string };

export type CaptureResult = { outcome: "paid" } | { outcome: "refused" | "failed"; reason: string };
export type RefundResult = { outcome: "succeeded"; refundRef: string } | { outcome: "failed"; reason: string };
export type PayoutResult = { outcome: "paid"; payoutRef: string } | { outcome: "failed"; reason: string };

/** A transfer to an account holder by Pix (a submerchant's payout to its CNPJ key). */
export interface PayoutInput {
  /** Also the idempotency key of the call: a repeated payout answers with its first result. */
  payoutId: string;
  amountMinor: number;
  currency: string;
  pixKey: string;
  pixKeyType: "cnpj";
}

export interface PaymentProcessor {
  readonly name: string;
  authorize(input: AuthorizeInput): Promise<AuthorizeResult>;
  /** Finishes an authorization held for 3DS or review; idempotent per chargeId. */
  capture(input: { chargeId: string; pspRefId: string; amountMinor: number }): Promise<CaptureResult>;
  /** Idempotent per refundId: a repeated call answers with the first result. */
  refund(input: { chargeId: string; pspRefId: string | null; amountMinor: number; refundId: string }): Promise<RefundResult>;
  /** Idempotent per payoutId: a repeated call answers with the first result. */
  payout(input: PayoutInput): Promise<PayoutResult>;
}

/**
 * Where a processor keeps what it answered, by operation and idempotency key. A real acquirer
 * keeps these on its side; the sandbox simulator is given a store (a table, in the app) so
 * that it behaves the same way across processes and restarts.
 */
export interface ProcessorRecords {
  /** The first result recorded for (operation, key); otherwise computes, records and returns it. */
  once(operation: string, key: string, compute: () => Promise<Record<string, unknown>>): Promise<Record<string, unknown>>;
}

/** Records in this process's memory only (unit tests of processors). */
export function memoryRecords(): ProcessorRecords {
  const seen = new Map<string, Promise<Record<string, unknown>>>();
  return {
    once(operation, key, compute) {
      const k = `${operation}:${key}`;
      if (!seen.has(k)) seen.set(k, compute().then((r) => JSON.parse(JSON.stringify(r)) as Record<string, unknown>));
      return seen.get(k)!;
    },
  };
}
