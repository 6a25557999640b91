import { badResponse, cancelResultOf, captureResultOf, createConflictResult, lookupPayment, refundFailureResult, refundResultOf } from "../adapter-results.js";
import { boletoDetails, fromDecimal, parseInstant, pixDetails, toDecimal } from "../instructions.js";
import { sharesAt, type SellerAccounts } from "../provider-split.js";
import type { LookupInput } from "../lookup-input.js";
import { mercadopagoAccounts, type MercadoPagoOAuthOptions } from "./oauth.js";
import type {
  AuthorizeInput, AuthorizeResult, LookupResult, PaymentProcessor, PaymentState, ProcessorFailure, RefundResult, Serves,
} from "../processor.js";
import {
  createMercadoPagoClient, MERCADOPAGO_AUTH_URL, mercadopagoKeys, type MercadoPagoClientOptions, type MercadoPagoPayment, type MercadoPagoRefund,
} from "./client.js";
import { mercadopagoDisputes } from "./chargebacks.js";
import { cardTokenBody, checkMercadoPagoInstrument, paymentBody } from "./payment.js";
import { mapMercadoPagoPayment, MERCADOPAGO_REFUND_STATUSES } from "./statuses.js";

// Mercado Pago (Payments API, /v1/payments) behind PaymentProcessor: card with installments (a
// card token from /v1/card_tokens, then the payment), Pix and boleto (bolbradesco). pspRefId is
// Mercado Pago's payment id; feira's charge id is the external_reference and the idempotency
// key. A rejected card is a payment created with `status: rejected`: a value, not an error.

const SERVED = new Set(["credit_card", "pix", "boleto"]);

/** A Mercado Pago payment as feira's payment state, with the Pix or boleto instructions when pending. */
export function mercadopagoState(p: MercadoPagoPayment): PaymentState | { outcome: "unknown"; failure: ProcessorFailure } {
  if (p.id === undefined || p.id === null) return { outcome: "unknown", failure: badResponse("the processor's answer had no payment id") };
  const pspRefId = String(p.id);
  const mapped = mapMercadoPagoPayment(p);
  const { providerCode } = mapped;
  switch (mapped.outcome) {
    case "pending": {
      const expiresAt = parseInstant(p.date_of_expiration);
      if (p.payment_method_id === "pix") {
        const data = p.point_of_interaction?.transaction_data;
        if (!data?.qr_code || !expiresAt) return { outcome: "unknown", failure: badResponse("the processor's Pix had no BR Code or expiry") };
        return { outcome: "pending", pspRefId, providerCode, expiresAt, details: pixDetails(data.qr_code, expiresAt, data.ticket_url ? { ticketUrl: data.ticket_url } : {}) };
      }
      const t = p.transaction_details ?? {};
      if (!expiresAt || (!t.digitable_line && !t.barcode?.content && !t.external_resource_url)) {
        return { outcome: "unknown", failure: badResponse("the processor's boleto had no line, barcode or page") };
      }
      const page = t.external_resource_url ?? null;
      // Mercado Pago gives the boleto's page, which prints it; no separate PDF link is documented.
      const { details, expiresAt: due } = boletoDetails({ line: t.digitable_line, barcode: t.barcode?.content, pdfUrl: page, url: page, dueAt: expiresAt });
      return { outcome: "pending", pspRefId, providerCode, expiresAt: due, details };
    }
    case "authentication_required":
      return {
        outcome: "authentication_required", pspRefId, providerCode,
        details: { authenticationUrl: p.three_ds_info?.external_resource_url ?? null, creq: p.three_ds_info?.creq ?? null },
      };
    case "refused":
      return { outcome: "refused", reason: mapped.reason!, pspRefId, providerCode };
    case "failed":
      return { outcome: "failed", reason: mapped.reason!, pspRefId, providerCode };
    case "paid":
    case "in_analysis":
    case "refunded":
    case "charged_back":
      return { outcome: mapped.outcome, pspRefId, providerCode };
  }
}

function refundResult(r: MercadoPagoRefund): RefundResult {
  const outcome = MERCADOPAGO_REFUND_STATUSES[r.status ?? ""] ?? "pending";
  const refundRef = r.id === undefined || r.id === null ? null : String(r.id);
  return refundResultOf(outcome, refundRef, r.status ?? "");
}

export type MercadoPagoProcessorOptions = MercadoPagoClientOptions & Partial<Omit<MercadoPagoOAuthOptions, "now">>;

/** The one seller of a provider-settled split, on whose account the payment is made; null without a split. */
function sellerOf(input: AuthorizeInput): { accessToken: string; publicKey?: string; applicationFee: number } | "refused" | null {
  if (!input.split) return null;
  const shares = sharesAt(input.split, "mercadopago");
  const seller = shares?.length === 1 ? shares[0] : undefined;
  if (!seller?.accessToken) return "refused";
  // application_fee: what is not the seller's, in currency units (the operator's part, fees included).
  return { accessToken: seller.accessToken, ...(seller.publicKey ? { publicKey: seller.publicKey } : {}), applicationFee: input.split.operatorMinor };
}

/**
 * The token of a call about a payment made on a seller's account (the marketplace model): the
 * payment is the seller's, and Mercado Pago shows, changes and refunds it to the seller's token
 * only (docs/processors.md, "Mercado Pago split dialect"); undefined: the application's own.
 */
const sellerToken = (input: SellerAccounts): string | undefined => input.sellers?.[0]?.accessToken;

export function createMercadoPagoProcessor(opts: MercadoPagoProcessorOptions): Serves<"cancel" | "capture" | "refund" | "refundStatus" | "disputes"> & { close(): Promise<void> } {
  const client = createMercadoPagoClient(opts);

  /** `token`: the seller's, for a payment made on its account (a search with another finds nothing). */
  const lookupAs = (input: LookupInput, token: string | undefined): Promise<LookupResult> => lookupPayment<MercadoPagoPayment>(input, {
    read: (id) => client.getPayment(id, token),
    search: (reference) => client.searchPayments(reference, token),
    pick(body, chargeId) {
      const results = (body as { results?: unknown } | null)?.results;
      if (!Array.isArray(results)) return "the processor's search had no results";
      // external_reference is not documented as unique: only exact matches count, newest first.
      return (results as MercadoPagoPayment[]).find((p) => p.external_reference === chargeId) ?? null;
    },
    state: mercadopagoState,
    refunded: (p) => fromDecimal(p.transaction_amount_refunded) ?? 0,
  });
  const lookup = (input: LookupInput) => lookupAs(input, sellerToken(input));

  async function authorize(input: AuthorizeInput): Promise<AuthorizeResult> {
    const seller = sellerOf(input);
    // The charge's check refuses these before the call; an adapter never charges a split whole to the operator.
    if (seller === "refused") return { outcome: "failed", reason: "processing_error", providerCode: "split_not_supported" };
    let token: string | undefined;
    if (input.instrument.kind === "card") {
      const t = await client.createCardToken(cardTokenBody(input.instrument, input.customer), input.chargeId, seller?.publicKey);
      // No payment exists before the token: whatever went wrong here, nothing was charged.
      if (!t.ok) return { outcome: "failed", reason: "processing_error", failure: t.failure, ...(t.failure.providerCode ? { providerCode: t.failure.providerCode } : {}) };
      const id = (t.body as { id?: unknown } | null)?.id;
      if (typeof id !== "string" || id === "") return { outcome: "failed", reason: "processing_error", failure: badResponse("the processor's card token had no id") };
      token = id;
    }
    const body = paymentBody(input, token);
    const r = await client.createPayment(seller ? { ...body, application_fee: toDecimal(seller.applicationFee) } : body, input.chargeId, seller?.accessToken);
    if (!r.ok) return createConflictResult(r.failure, () => lookupAs({ chargeId: input.chargeId }, seller?.accessToken));
    const state = mercadopagoState(r.body as MercadoPagoPayment);
    if (state.outcome === "refunded" || state.outcome === "charged_back") return { outcome: "in_analysis", pspRefId: state.pspRefId, providerCode: state.providerCode };
    return state;
  }

  return {
    name: "mercadopago",
    // The payment made on the one seller's account with application_fee (docs/processors.md, "Split dialects").
    sendsSplit: true,
    splitSellers: 1,
    // ...so the payment is the seller's: read, cancelled and refunded with the seller's token.
    sellerOwned: true,
    supports: (method, currency) => SERVED.has(method) && currency === "BRL",
    checkInstrument: checkMercadoPagoInstrument,
    authorize,
    lookup,
    // Only pending or in_process payments can be cancelled.
    cancel: async (input) => cancelResultOf(
      await client.updatePayment(input.pspRefId, { status: "cancelled" }, mercadopagoKeys.cancel(input.chargeId), sellerToken(input)),
      (body) => (body as MercadoPagoPayment).status === "cancelled",
      (body) => mapMercadoPagoPayment(body as MercadoPagoPayment).providerCode,
    ),
    capture: async (input) => captureResultOf(
      await client.updatePayment(input.pspRefId, { capture: true }, mercadopagoKeys.capture(input.chargeId)),
      (body) => mapMercadoPagoPayment(body as MercadoPagoPayment),
    ),
    async refund(input) {
      if (!input.pspRefId) return { outcome: "failed", reason: "processing_error", providerCode: "no_psp_reference" };
      // Without an amount Mercado Pago refunds what is left: asked for only when it is the whole charge.
      const full = input.chargeAmountMinor !== undefined && input.amountMinor === input.chargeAmountMinor;
      const r = await client.refund(input.pspRefId, input.refundId, full ? undefined : toDecimal(input.amountMinor), sellerToken(input));
      return r.ok ? refundResult(r.body as MercadoPagoRefund) : refundFailureResult(r.failure);
    },
    async refundStatus(input) {
      if (!input.pspRefId) return { outcome: "not_found" };
      // The payment's refunds (GET /v1/payments/{id}/refunds), found by id; when the id never came
      // back (a timeout), by amount: two refunds of one amount cannot be told apart, and the
      // first listed is taken.
      const r = await client.listRefunds(input.pspRefId, sellerToken(input));
      if (!r.ok) return { outcome: "pending", refundRef: input.refundRef, failure: r.failure };
      const list = Array.isArray(r.body) ? (r.body as MercadoPagoRefund[]) : [];
      const match = input.refundRef
        ? list.find((x) => String(x.id) === input.refundRef)
        : list.find((x) => fromDecimal(x.amount) === input.amountMinor);
      return match ? refundResult(match) : { outcome: "not_found" };
    },
    // Chargebacks: objects of their own, named by the `chargebacks` notice (chargebacks.ts).
    disputes: mercadopagoDisputes(client, sellerToken),
    accounts: mercadopagoAccounts(client.oauthToken, { clientId: opts.clientId, clientSecret: opts.clientSecret, authUrl: opts.authUrl ?? MERCADOPAGO_AUTH_URL }),
    close: () => client.close(),
  };
}
