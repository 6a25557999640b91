import type { Dispatcher } from "undici";
import { basicAuth, createHttpClient, type CallResult, type HttpClientOptions, type MappedError } from "../http-client.js";
import type { PagarmeChargeFacts } from "./statuses.js";

// HTTP to Pagar.me's core API v5: Basic auth with the secret key as user and an empty password;
// every write carries an `idempotency-key` derived from feira's own id, so a resend of the same
// operation (after a timeout, a crash, a retry) is the same operation at Pagar.me. Pagar.me keeps
// a key for 24 hours; after that, only the lookup by order `code` (feira's charge id) is safe.

export const PAGARME_DEFAULT_URL = "https://api.pagar.me/core/v5";

/** The provider's idempotency key of each operation: stable per feira id, never random. */
export const pagarmeKeys = {
  order: (chargeId: string) => `feira-charge-${chargeId}`,
  cancel: (chargeId: string) => `feira-cancel-${chargeId}`,
  capture: (chargeId: string) => `feira-capture-${chargeId}`,
  refund: (refundId: string) => `feira-refund-${refundId}`,
};

/** A Pagar.me charge as the adapter reads it (wire names; only what feira uses). */
export interface PagarmeCharge extends PagarmeChargeFacts {
  id?: string;
  code?: string;
  payment_method?: string;
  last_transaction?: PagarmeChargeFacts["last_transaction"] & {
    id?: string;
    qr_code?: string | null;
    qr_code_url?: string | null;
    expires_at?: string | null;
    line?: string | null;
    barcode?: string | null;
    pdf?: string | null;
    url?: string | null;
    due_at?: string | null;
    nosso_numero?: string | null;
    acquirer_message?: string | null;
  };
}

export interface PagarmeOrder {
  id?: string;
  code?: string;
  status?: string;
  created_at?: string;
  charges?: PagarmeCharge[];
}

/**
 * A 4xx body, `{message, errors: {"customer.phones": ["..."]}}`, as feira's text: the status
 * and the names of the fields Pagar.me complained about, never its messages (they can echo
 * what was sent).
 */
export function mapPagarmeError(status: number, body: unknown): MappedError {
  const errors = body && typeof body === "object" ? (body as { errors?: unknown }).errors : undefined;
  const fields = errors && typeof errors === "object" ? Object.keys(errors).filter((k) => /^[\w.[\]]{1,80}$/.test(k)).slice(0, 10) : [];
  const message = fields.length > 0
    ? `the processor refused the request (${status}): check ${fields.join(", ")}`
    : `the processor refused the request (${status})`;
  return { providerCode: `http_${status}`, message };
}

export interface PagarmeClientOptions {
  secretKey: string;
  baseUrl?: string;
  timeoutMs: number;
  log?: HttpClientOptions["log"];
  dispatcher?: Dispatcher;
  connections?: number;
}

export function createPagarmeClient(opts: PagarmeClientOptions) {
  const http = createHttpClient({
    baseUrl: opts.baseUrl ?? PAGARME_DEFAULT_URL,
    timeoutMs: opts.timeoutMs,
    headers: { authorization: basicAuth(opts.secretKey) },
    mapError: mapPagarmeError,
    log: opts.log,
    dispatcher: opts.dispatcher,
    connections: opts.connections,
  });
  const key = (k: string) => ({ "idempotency-key": k });
  return {
    createOrder: (body: Record<string, unknown>, chargeId: string): Promise<CallResult> =>
      http.call({ method: "POST", path: "/orders", body, headers: key(pagarmeKeys.order(chargeId)) }),
    findOrders: (code: string): Promise<CallResult> => http.call({ method: "GET", path: "/orders", query: { code, page: 1, size: 10 } }),
    getCharge: (chargeId: string): Promise<CallResult> => http.call({ method: "GET", path: `/charges/${encodeURIComponent(chargeId)}` }),
    /** Cancels a pending charge, or refunds a paid one (all of it without `amount`). */
    cancelCharge: (pspChargeId: string, idempotencyKey: string, amount?: number): Promise<CallResult> =>
      http.call({
        method: "DELETE", path: `/charges/${encodeURIComponent(pspChargeId)}`,
        body: amount === undefined ? {} : { amount }, headers: key(idempotencyKey),
      }),
    captureCharge: (pspChargeId: string, chargeId: string): Promise<CallResult> =>
      http.call({ method: "POST", path: `/charges/${encodeURIComponent(pspChargeId)}/capture`, body: {}, headers: key(pagarmeKeys.capture(chargeId)) }),
    /** Any other call (the recipients' routes, pagarme/recipients.ts). */
    call: http.call,
    close: () => http.close(),
  };
}

export type PagarmeClient = ReturnType<typeof createPagarmeClient>;
