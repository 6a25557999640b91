import type { Dispatcher } from "undici";
import { createHttpClient, type CallResult, type HttpClientOptions, type MappedError } from "../http-client.js";
import type { MercadoPagoPaymentFacts } from "./statuses.js";

// HTTP to Mercado Pago's Payments API: `Authorization: Bearer <access token>`; every write
// carries `X-Idempotency-Key` derived from feira's own id. The official SDK fills that header
// with a random UUID per call unless told otherwise, so a second create after a timeout would be
// a second payment: this client never makes a key up.

export const MERCADOPAGO_DEFAULT_URL = "https://api.mercadopago.com";
/** Where sellers authorize the marketplace's application (the official SDK's getAuthorizationURL host). */
export const MERCADOPAGO_AUTH_URL = "https://auth.mercadopago.com";

export const mercadopagoKeys = {
  cardToken: (chargeId: string) => `feira-card-token-${chargeId}`,
  payment: (chargeId: string) => `feira-charge-${chargeId}`,
  cancel: (chargeId: string) => `feira-cancel-${chargeId}`,
  capture: (chargeId: string) => `feira-capture-${chargeId}`,
  refund: (refundId: string) => `feira-refund-${refundId}`,
  documentation: (chargebackId: string, filesDigest: string) => `feira-chargeback-docs-${chargebackId}-${filesDigest}`,
};

export interface MercadoPagoPayment extends MercadoPagoPaymentFacts {
  id?: number | string;
  external_reference?: string | null;
  transaction_amount?: number;
  transaction_amount_refunded?: number;
  date_of_expiration?: string | null;
  point_of_interaction?: { transaction_data?: { qr_code?: string | null; ticket_url?: string | null } | null } | null;
  transaction_details?: {
    external_resource_url?: string | null;
    digitable_line?: string | null;
    barcode?: { content?: string | null } | null;
  } | null;
  three_ds_info?: { external_resource_url?: string | null; creq?: string | null } | null;
}

export interface MercadoPagoRefund {
  id?: number | string;
  status?: string;
  amount?: number;
}

/**
 * An error body, `{message, error, status, cause: [{code, description}]}`, as feira's text: the
 * status and Mercado Pago's cause code, never its descriptions.
 */
export function mapMercadoPagoError(status: number, body: unknown): MappedError {
  const b = (body && typeof body === "object" ? body : {}) as { error?: unknown; cause?: unknown };
  const cause = Array.isArray(b.cause) ? (b.cause[0] as { code?: unknown } | undefined)?.code : undefined;
  const code = typeof cause === "number" || (typeof cause === "string" && /^[\w-]{1,40}$/.test(cause))
    ? String(cause)
    : typeof b.error === "string" && /^[\w-]{1,40}$/.test(b.error) ? b.error : `http_${status}`;
  return { providerCode: code, message: `the processor refused the request (${status}, code ${code})` };
}

export interface MercadoPagoClientOptions {
  accessToken: string;
  /** Needed only to create card tokens. */
  publicKey?: string;
  baseUrl?: string;
  timeoutMs: number;
  log?: HttpClientOptions["log"];
  dispatcher?: Dispatcher;
  connections?: number;
}

export function createMercadoPagoClient(opts: MercadoPagoClientOptions) {
  const http = createHttpClient({
    baseUrl: opts.baseUrl ?? MERCADOPAGO_DEFAULT_URL,
    timeoutMs: opts.timeoutMs,
    headers: { authorization: `Bearer ${opts.accessToken}` },
    mapError: mapMercadoPagoError,
    log: opts.log,
    dispatcher: opts.dispatcher,
    connections: opts.connections,
  });
  const key = (k: string) => ({ "x-idempotency-key": k });
  // A call on a seller's account (marketplace model) carries the seller's access token instead.
  const as = (sellerToken?: string): Record<string, string> => (sellerToken ? { authorization: `Bearer ${sellerToken}` } : {});
  const payment = (id: string) => `/v1/payments/${encodeURIComponent(id)}`;
  return {
    /** `publicKey`: the seller's, for a card paid on the seller's account; else the application's. */
    createCardToken: (body: Record<string, unknown>, chargeId: string, publicKey?: string): Promise<CallResult> =>
      http.call({ method: "POST", path: "/v1/card_tokens", query: { public_key: publicKey ?? opts.publicKey }, body, headers: key(mercadopagoKeys.cardToken(chargeId)) }),
    createPayment: (body: Record<string, unknown>, chargeId: string, sellerToken?: string): Promise<CallResult> =>
      http.call({ method: "POST", path: "/v1/payments", body, headers: { ...key(mercadopagoKeys.payment(chargeId)), ...as(sellerToken) } }),
    getPayment: (id: string, sellerToken?: string): Promise<CallResult> => http.call({ method: "GET", path: payment(id), headers: as(sellerToken) }),
    searchPayments: (externalReference: string, sellerToken?: string): Promise<CallResult> =>
      http.call({
        method: "GET", path: "/v1/payments/search", headers: as(sellerToken),
        query: { external_reference: externalReference, sort: "date_created", criteria: "desc", limit: 10 },
      }),
    updatePayment: (id: string, body: Record<string, unknown>, idempotencyKey: string, sellerToken?: string): Promise<CallResult> =>
      http.call({ method: "PUT", path: payment(id), body, headers: { ...key(idempotencyKey), ...as(sellerToken) } }),
    refund: (id: string, refundId: string, amount?: number, sellerToken?: string): Promise<CallResult> =>
      http.call({ method: "POST", path: `${payment(id)}/refunds`, body: amount === undefined ? {} : { amount }, headers: { ...key(mercadopagoKeys.refund(refundId)), ...as(sellerToken) } }),
    listRefunds: (id: string, sellerToken?: string): Promise<CallResult> => http.call({ method: "GET", path: `${payment(id)}/refunds`, headers: as(sellerToken) }),
    /** POST /oauth/token: a seller's authorization code or refresh token for the seller's tokens. */
    oauthToken: (body: Record<string, unknown>): Promise<CallResult> => http.call({ method: "POST", path: "/oauth/token", body }),
    getChargeback: (id: string, sellerToken?: string): Promise<CallResult> => http.call({ method: "GET", path: `/v1/chargebacks/${encodeURIComponent(id)}`, headers: as(sellerToken) }),
    sendChargebackDocumentation: (id: string, encoded: { contentType: string; data: Buffer }, filesDigest: string, sellerToken?: string): Promise<CallResult> =>
      http.call({ method: "POST", path: `/v1/chargebacks/${encodeURIComponent(id)}/documentation`, encoded, headers: { ...key(mercadopagoKeys.documentation(id, filesDigest)), ...as(sellerToken) } }),
    close: () => http.close(),
  };
}

export type MercadoPagoClient = ReturnType<typeof createMercadoPagoClient>;
