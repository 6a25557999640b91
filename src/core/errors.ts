// The kernel's one error class and its code -> status table, apart from HTTP: services, repos and
// jobs throw AppError with a code; the HTTP error handler (src/http/errors.ts) answers it.
// TypeScript makes every code have a status.
const STATUS_OF = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  invalid_state: 409,
  idempotency_in_progress: 409,
  payload_too_large: 413,
  // Request line and headers over Node's 16 KiB, refused by the HTTP parser (handleClientError).
  headers_too_large: 431,
  request_timeout: 408,
  unsupported_media_type: 415,
  validation_failed: 422,
  idempotency_mismatch: 422,
  // A card number in a field that is not meant for card data (src/http/card-fields.ts).
  card_number_in_text: 422,
  // An amount above the ceiling of its currency (MAX_AMOUNT_MINOR, src/lib/money.ts).
  amount_too_large: 422,
  // Codes a client acts on differently from a malformed request (all 422: the request is
  // well-formed, but cannot be served as asked).
  currency_not_supported: 422, // an unknown currency, or one the payment method does not take
  method_not_supported: 422, // no processor serves this method in this environment
  submerchant_not_active: 422, // a submerchant that is not active cannot charge live, be paid out or receive a share of a split
  insufficient_balance: 422, // a payout above the available balance
  paid_by_provider: 422, // a payout that would take a seller's money a processor holds and pays (provider settlement)
  submerchant_not_at_provider: 422, // provider settlement: a split names a submerchant with no active account at the processor chosen
  split_not_supported: 422, // provider settlement: a split the processor chosen cannot carry (Mercado Pago: one seller per payment)
  refund_exceeds_refundable: 422, // a refund above what is left of the charge to refund
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
  // Every slot for charges waiting on a processor is taken in this process; nothing was written
  // (PROCESSOR_MAX_WAITING, docs/guarantees.md). Answered with Retry-After.
  processor_busy: 503,
} as const;

export type ErrorCode = keyof typeof STATUS_OF;

/** The HTTP status of a code. */
export const statusOf = (code: ErrorCode): number => STATUS_OF[code];

/** An amount in a refusal's figures: integer minor units and their currency. */
export interface MoneyParam { minor: number; currency: string }
/**
 * The figures of a refusal (the refundable rest, the maximum amount), beside its English message,
 * so that a client in another language (the panel) says the same in its own words and formats
 * them its way. They are not part of the answer's body.
 */
export type ErrorParams = Readonly<Record<string, string | number | MoneyParam>>;

/** Every code with its status, for the OpenAPI document. */
export const ERROR_CODES: readonly (readonly [ErrorCode, number])[] = Object.entries(STATUS_OF) as [ErrorCode, number][];

export class AppError extends Error {
  readonly statusCode: number;
  /** Sent as the Retry-After header (whole seconds) when the answer says "later", not "never". */
  retryAfterSeconds?: number;
  constructor(readonly code: ErrorCode, message: string, readonly params?: ErrorParams) {
    super(message);
    this.statusCode = STATUS_OF[code];
  }
}

export const notFound = (what: string, id: string) => new AppError("not_found", `${what} ${id} not found`);
export const invalid = (message: string) => new AppError("validation_failed", message);
