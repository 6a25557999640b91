import type { DebitState, MandateCapability } from "../capabilities.js";
import type { AuthorizeInput, AuthorizeResult } from "../processor.js";

// A Pix Automático period's charge at Efí: the charge path's authorize and lookup of a
// `pix_automatico` charge, made by the mandates capability as the period's recurring charge
// (cobr) under a txid derived from the charge id, so the charge id stays the idempotency key: a
// repeated authorize reads the first cobr back, and a lost answer is found by lookup. A retry of
// the period (the charge names the period's cobr in `debitRef`) is a new attempt of that cobr,
// never a second one: the Central Bank refuses a second cobr in the same cycle.

/** The reason of a charge whose debit the payer's bank refused or let expire, as in the sandbox. */
const DEBIT_FAILED = "insufficient_funds";

const text = (v: unknown) => (typeof v === "string" ? v : "");

/** Days after its due date a debit may still be retried (the Central Bank's 3 retries in 7 days). */
const RETRY_WINDOW_DAYS = 7;

/** A debit read back (a lost answer adopted): payable until its retries' window ends. */
function readBack(dueDate: string | undefined): { details: Record<string, unknown>; expiresAt: Date } {
  const due = dueDate ? Date.parse(`${dueDate}T00:00:00-03:00`) : Number.NaN;
  const expiresAt = new Date((Number.isNaN(due) ? Date.now() : due) + (RETRY_WINDOW_DAYS + 1) * 86_400_000);
  return { details: { ...(dueDate ? { dueDate } : {}), expiresAt: expiresAt.toISOString() }, expiresAt };
}

/** A debit's state as the charge's: scheduled is pending until the due date, a failed attempt refused. */
export function debitPaymentState(d: DebitState, made?: { details: Record<string, unknown>; expiresAt: Date }): AuthorizeResult | { outcome: "not_found" } {
  switch (d.outcome) {
    case "scheduled": {
      const pending = made ?? readBack(d.dueDate);
      return { outcome: "pending", pspRefId: d.debitRef, details: { ...pending.details, txid: d.debitRef }, expiresAt: pending.expiresAt };
    }
    case "paid":
      return { outcome: "paid", pspRefId: d.debitRef };
    case "failed":
      // Refused by Efí (a rec not approved, outside the window): nothing was made, the attempt failed.
      return d.refused
        ? { outcome: "failed", reason: "processing_error", providerCode: d.reason }
        : { outcome: "refused", reason: DEBIT_FAILED, pspRefId: d.debitRef, providerCode: d.reason };
    default:
      return d;
  }
}

/** The end-to-end id of the Pix a cobr received (CobRCompleta.pix[]: one per paid attempt). */
export function debitPix(cobr: unknown): string | undefined {
  const pix = (cobr as { pix?: unknown } | null)?.pix;
  const paid = Array.isArray(pix) ? pix.find((p) => typeof (p as { endToEndId?: unknown })?.endToEndId === "string") : undefined;
  return paid ? (paid as { endToEndId: string }).endToEndId : undefined;
}

/** The payer's instructions of a debit: its due date and mandate (the bank debits it, no code to read). */
function pendingOf(input: AuthorizeInput): { details: Record<string, unknown>; expiresAt: Date } {
  const expiresAt = new Date(input.now.getTime() + (input.instrument.kind === "card" ? 0 : input.instrument.expiresIn) * 1000);
  const o = input.instrument.kind === "card" ? {} : input.instrument.options;
  const mandateId = text(o.mandateId);
  return { details: { dueDate: text(o.dueDate), ...(mandateId ? { mandateId } : {}), expiresAt: expiresAt.toISOString() }, expiresAt };
}

export async function authorizeDebit(mandates: MandateCapability, input: AuthorizeInput): Promise<AuthorizeResult> {
  const o = input.instrument.kind === "card" ? {} : input.instrument.options;
  const dueDate = text(o.dueDate);
  const mandateRef = text(o.mandateRef);
  const debitRef = text(o.debitRef);
  if (!dueDate || !mandateRef) return { outcome: "failed", reason: "processing_error", providerCode: "mandate_ref_missing" };
  const state = debitRef
    ? await mandates.retryDebit({ debitRef, date: dueDate })
    : await mandates.scheduleDebit({ debitId: input.chargeId, mandateRef, amountMinor: input.amountMinor, dueDate, description: input.description || `Charge ${input.chargeId}` });
  const r = debitPaymentState(state, pendingOf(input));
  // A create's answer is never not_found (the capability reads its own write back).
  return r.outcome === "not_found" ? { outcome: "unknown", failure: { kind: "bad_response", message: "the processor's recurring charge was not found after it was made" } } : r;
}
