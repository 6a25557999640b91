import type { MappedStatus, RefundOutcome } from "./mapping.js";
import type { CallResult } from "./http-client.js";
import type { AuthorizeResult, CancelResult, CaptureResult, LookupResult, PaymentState, ProcessorFailure, RefundResult } from "./processor.js";

// What an HTTP failure means for each operation of a real adapter, the same for every provider.
// A 4xx is the provider refusing the request itself: nothing was made. 409 (idempotency or
// state conflict, e.g. the first request with this key still in flight), 423 (key locked) and
// 424 (a dependency failed) are 4xx that prove nothing, so they count as no answer.

const INCONCLUSIVE_4XX = new Set([409, 423, 424]);

export const madeNothing = (f: ProcessorFailure): boolean => f.kind === "http_4xx" && !INCONCLUSIVE_4XX.has(f.status ?? 0);

const coded = (f: ProcessorFailure) => (f.providerCode ? { providerCode: f.providerCode } : {});

export const badResponse = (message: string): ProcessorFailure => ({ kind: "bad_response", message });

/** A create that failed: refused by the provider (failed), or unknown (look it up later). */
export function createFailureResult(failure: ProcessorFailure): AuthorizeResult {
  return madeNothing(failure) ? { outcome: "failed", reason: "processing_error", failure, ...coded(failure) } : { outcome: "unknown", failure };
}

/**
 * A create refused with 409: the idempotency key was used before with another body (a card
 * token is new on each attempt) or its first request is still in flight. The payment made under
 * the first request, if any, is the answer: found by feira's reference, it is adopted.
 */
export async function createConflictResult(failure: ProcessorFailure, lookup: () => Promise<LookupResult>): Promise<AuthorizeResult> {
  if (failure.kind !== "http_4xx" || failure.status !== 409) return createFailureResult(failure);
  const found = await lookup();
  switch (found.outcome) {
    case "not_found":
    case "unknown":
      return { outcome: "unknown", failure };
    // A create cannot answer refunded or charged back: the charge path reads them from lookup.
    case "refunded":
    case "charged_back":
      return { outcome: "in_analysis", pspRefId: found.pspRefId, providerCode: found.providerCode };
    default: {
      const { refundedMinor: _refunded, ...state } = found;
      return state;
    }
  }
}

/** A refund that failed: refused (failed), or pending until refundStatus says (never resent blindly). */
export function refundFailureResult(failure: ProcessorFailure): RefundResult {
  return madeNothing(failure) ? { outcome: "failed", reason: "processing_error", failure, ...coded(failure) } : { outcome: "pending", refundRef: null, failure };
}

/** A refund's state as a result: succeeded needs the provider's refund reference. */
export function refundResultOf(outcome: RefundOutcome, refundRef: string | null, providerCode: string): RefundResult {
  if (outcome === "failed") return { outcome: "failed", reason: "processing_error", providerCode };
  if (outcome === "succeeded" && refundRef) return { outcome: "succeeded", refundRef, providerCode };
  return { outcome: "pending", refundRef, providerCode };
}

/** A read by the provider's id that failed: a 404 means there is no such payment. */
export const readFailure = (failure: ProcessorFailure): LookupResult =>
  failure.status === 404 ? { outcome: "not_found" } : { outcome: "unknown", failure };

/**
 * The lookup both adapters make: read by the provider's id when it is known, else search by
 * feira's reference; `pick` chooses the payment in the search answer (a string: the answer was
 * unreadable), `state` maps it, `refunded` says how much of it went back.
 */
export async function lookupPayment<T>(input: { chargeId: string; pspRefId?: string | null }, how: {
  read: (pspRefId: string) => Promise<CallResult>;
  search: (chargeId: string) => Promise<CallResult>;
  pick: (searchBody: unknown, chargeId: string) => T | null | string;
  state: (payment: T) => PaymentState | { outcome: "unknown"; failure: ProcessorFailure };
  refunded: (payment: T) => number;
}): Promise<LookupResult> {
  let payment: T;
  if (input.pspRefId) {
    const r = await how.read(input.pspRefId);
    if (!r.ok) return readFailure(r.failure);
    payment = r.body as T;
  } else {
    const r = await how.search(input.chargeId);
    if (!r.ok) return { outcome: "unknown", failure: r.failure };
    const picked = how.pick(r.body, input.chargeId);
    if (picked === null) return { outcome: "not_found" };
    if (typeof picked === "string") return { outcome: "unknown", failure: badResponse(picked) };
    payment = picked;
  }
  const state = how.state(payment);
  if (state.outcome === "unknown") return state;
  const refunded = how.refunded(payment);
  return state.outcome === "paid" && refunded > 0 ? { ...state, refundedMinor: refunded } : state;
}

/**
 * A cancel's answer. A provider refuses (4xx) to cancel what is final (paid, already canceled,
 * charged back); a 2xx answers the payment, canceled or not.
 */
export function cancelResultOf(r: CallResult, canceled: (body: unknown) => boolean, providerCode: (body: unknown) => string): CancelResult {
  if (!r.ok) {
    if (r.failure.kind === "http_4xx") return { outcome: "not_cancelable", providerCode: r.failure.providerCode ?? `http_${r.failure.status}` };
    return { outcome: "unknown", failure: r.failure };
  }
  return { outcome: canceled(r.body) ? "canceled" : "not_cancelable", providerCode: providerCode(r.body) };
}

/** A capture's answer: paid, or why not. */
export function captureResultOf(r: CallResult, map: (body: unknown) => MappedStatus): CaptureResult {
  if (!r.ok) return { outcome: "failed", reason: "processing_error" };
  const mapped = map(r.body);
  if (mapped.outcome === "paid") return { outcome: "paid" };
  return { outcome: mapped.outcome === "refused" ? "refused" : "failed", reason: mapped.reason ?? "processing_error" };
}
