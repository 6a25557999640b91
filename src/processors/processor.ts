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

export interface PaymentProcessor {
  readonly name: string;
  authorize(input: AuthorizeInput): Promise<AuthorizeResult>;
  /** Finishes an authorization held for 3DS or review. */
  capture(input: { chargeId: string; pspRefId: string; amountMinor: number }): Promise<CaptureResult>;
  refund(input: { chargeId: string; pspRefId: string | null; amountMinor: number; refundId: string }): Promise<RefundResult>;
}
