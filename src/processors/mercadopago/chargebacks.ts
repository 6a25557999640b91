import { createHash, randomBytes } from "node:crypto";
import { badResponse } from "../adapter-results.js";
import type { DisputeCapability, DisputeState, EvidenceResult } from "../processor.js";
import { fromDecimal, parseInstant } from "../instructions.js";
import type { SellerAccounts } from "../provider-split.js";
import type { MercadoPagoClient } from "./client.js";

// Mercado Pago's chargebacks as feira disputes. A chargeback is an object of its own
// (GET /v1/chargebacks/{id}: id, payments, amount, reason, coverage_applied, coverage_elegible,
// documentation_required, documentation_status, date_documentation_deadline), named by the
// `chargebacks` notice; the payment only says `charged_back`. Evidence is files, uploaded with
// POST /v1/chargebacks/{id}/documentation (multipart `files[]`, JPG, PNG or PDF, 10 MB in all),
// after which documentation_status is `review_pending`. docs/processors.md cites the pages.
//
// Choices where the documentation is unclear (docs/processors.md lists them):
// - coverage_applied true is won (the decision was for the seller); coverage_elegible false (the
//   field's documented spelling; coverage_eligible is read too) or documentation_status
//   `invalid` is lost; `review_pending` or `valid` is under_review; anything else needs_response.
// - The text of feira's evidence is not sent: the endpoint takes files only.

/** Mercado Pago's overall limit on a chargeback's documentation. */
export const MERCADOPAGO_EVIDENCE_BYTES = 10 * 1024 * 1024;

export interface MercadoPagoChargeback {
  id?: string | number;
  payments?: (string | number)[];
  amount?: number;
  reason?: string | null;
  coverage_applied?: boolean | null;
  coverage_elegible?: boolean | null;
  coverage_eligible?: boolean | null;
  documentation_status?: string | null;
  date_documentation_deadline?: string | null;
}

/** A chargeback as feira's dispute state. */
export function mercadopagoDispute(cb: MercadoPagoChargeback): DisputeState {
  const payment = cb.payments?.[0];
  const amountMinor = fromDecimal(cb.amount);
  if (cb.id === undefined || cb.id === null || payment === undefined || amountMinor === null) {
    return { outcome: "unknown", failure: badResponse("the processor's chargeback had no id, payment or amount") };
  }
  const eligible = cb.coverage_elegible ?? cb.coverage_eligible;
  const docs = cb.documentation_status ?? "";
  const outcome = cb.coverage_applied === true ? "won"
    : eligible === false || docs === "invalid" ? "lost"
      : docs === "review_pending" || docs === "valid" ? "under_review" : "needs_response";
  return {
    outcome, disputeRef: String(cb.id), chargeRef: String(payment), kind: "chargeback", amountMinor,
    reason: cb.reason || "chargeback", evidenceDueBy: parseInstant(cb.date_documentation_deadline),
  };
}

type EvidenceFiles = Parameters<NonNullable<DisputeCapability["submitEvidence"]>>[0]["files"];

/** The files as multipart/form-data under `files[]`, as Mercado Pago's example sends them. */
function multipart(files: EvidenceFiles): { contentType: string; data: Buffer } {
  const boundary = `feira-${randomBytes(12).toString("hex")}`;
  const parts = files.flatMap((f) => [
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files[]"; filename="${f.name.replace(/["\r\n]/g, "_")}"\r\nContent-Type: ${f.contentType}\r\n\r\n`),
    f.data, Buffer.from("\r\n"),
  ]);
  return { contentType: `multipart/form-data; boundary=${boundary}`, data: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]) };
}

/**
 * `sellerToken`: the token of the account a chargeback is of. A chargeback of a payment made on a
 * seller's account (the marketplace model) is the seller's, read and answered with its token.
 */
export function mercadopagoDisputes(client: MercadoPagoClient, sellerToken: (input: SellerAccounts) => string | undefined): DisputeCapability {
  async function lookup(input: { disputeRef: string } & SellerAccounts): Promise<DisputeState> {
    const r = await client.getChargeback(input.disputeRef, sellerToken(input));
    if (!r.ok) return r.failure.status === 404 ? { outcome: "not_found" } : { outcome: "unknown", failure: r.failure };
    return mercadopagoDispute(r.body as MercadoPagoChargeback);
  }

  async function submitEvidence(input: Parameters<NonNullable<DisputeCapability["submitEvidence"]>>[0]): Promise<EvidenceResult> {
    // Refused before any call: Mercado Pago takes files only, and at most 10 MB of them.
    if (input.files.length === 0) return { outcome: "refused", message: "Mercado Pago takes a chargeback's evidence as files: send at least one PDF, PNG or JPEG in files" };
    const total = input.files.reduce((sum, f) => sum + f.data.length, 0);
    if (total > MERCADOPAGO_EVIDENCE_BYTES) return { outcome: "refused", message: "Mercado Pago takes at most 10 MB of files per chargeback in all" };
    // The same files sent again (after no answer) carry the same key: Mercado Pago answers the first upload.
    const digest = createHash("sha256");
    for (const f of input.files) digest.update(f.data);
    const r = await client.sendChargebackDocumentation(input.disputeRef, multipart(input.files), digest.digest("hex").slice(0, 32), sellerToken(input));
    if (!r.ok) {
      if (r.failure.kind === "http_4xx") return r.failure.status === 404 ? { outcome: "not_found" } : { outcome: "refused", message: r.failure.message };
      return { outcome: "unknown", failure: r.failure };
    }
    // The upload answers no chargeback: read it back for its status now.
    return lookup(input);
  }

  return { provider: "Mercado Pago", lookup, submitEvidence };
}
