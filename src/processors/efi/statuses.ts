import { badResponse } from "../adapter-results.js";
import { parseInstant, pixDetails } from "../instructions.js";
import type { RefundOutcome } from "../mapping.js";
import type { AuthorizeResult, FoundDispute, LookupResult } from "../processor.js";
import { efiIds } from "./client.js";

// Efí's (the Central Bank's) cob and devolução -> feira's states. Pure.
//
// Choices where the documentation leaves room (docs/processors.md lists them):
// - An ATIVA cob past `calendario.criacao + expiracao` is still pending: the status is the
//   record's (the Central Bank's), and feira's expiry removes it (REMOVIDA_PELO_USUARIO_RECEBEDOR).
// - REMOVIDA_PELO_USUARIO_RECEBEDOR is failed "canceled" (only feira removes its cobs);
//   REMOVIDA_PELO_PSP is failed "expired" (Efí removed it unpaid).
// - A DEVOLVIDO devolução feira did not ask for (its id is not one feira derives from a refund,
//   or its nature is a MED's: MED_OPERACIONAL, MED_FRAUDE, MED_PIX_AUTOMATICO; the Central Bank
//   makes `natureza` optional, absent meaning ORIGINAL, and Efí never documents it) is money the
//   MED took back: a lost `pix_med` dispute of its amount (one per devolução, by its rtrId),
//   carried by a `charged_back` state. The adapter then matches it to its infraction
//   (infractions.ts), whose dispute it closes instead. A devolução feira asked for (a refund, a
//   late payment's) is counted in refundedMinor.
// - A status this table does not know is no decision: the charge stays as it is.

export interface EfiDevolucao {
  id?: string;
  rtrId?: string;
  valor?: string;
  natureza?: string;
  status?: string;
  motivo?: string;
}

export interface EfiPix {
  endToEndId?: string;
  txid?: string;
  valor?: string;
  horario?: string;
  devolucoes?: EfiDevolucao[];
}

export interface EfiCob {
  txid?: string;
  status?: string;
  /** `expiracao`: a number in the Central Bank's OpenAPI and in Efí's answer to a create, a string ("3600") in Efí's GET /v2/cob. */
  calendario?: { criacao?: string; expiracao?: number | string };
  valor?: { original?: string };
  pixCopiaECola?: string;
  pix?: EfiPix[];
}

export const EFI_DEVOLUCAO_STATUSES: Readonly<Record<string, RefundOutcome>> = {
  EM_PROCESSAMENTO: "pending",
  DEVOLVIDO: "succeeded",
  NAO_REALIZADO: "failed",
};

export const MED_NATURES: ReadonlySet<string> = new Set(["MED_OPERACIONAL", "MED_FRAUDE", "MED_PIX_AUTOMATICO"]);

/** A devolução feira did not ask for: a MED's by its nature, or any whose id feira never derived. */
export const unasked = (d: EfiDevolucao) => MED_NATURES.has(d.natureza ?? "") || !efiIds.isOwnDevolucao(d.id);

/** The API Pix's amount (`"12.34"`) in minor units; null when it is not one. */
export function efiCents(v: unknown): number | null {
  return typeof v === "string" && /^\d{1,10}\.\d{2}$/.test(v) ? Number(v.replace(".", "")) : null;
}

/**
 * A whole number Efí may write as a string where the Central Bank's OpenAPI types it as a number
 * (`calendario.expiracao`: `"3600"` in Efí's documentation and its SDK's type of GET /v2/cob);
 * null when it is neither.
 */
export function efiWhole(v: unknown): number | null {
  if (typeof v === "number") return Number.isSafeInteger(v) && v >= 0 ? v : null;
  return typeof v === "string" && /^\d{1,10}$/.test(v) ? Number(v) : null;
}

/** Minor units as the API Pix writes an amount. */
export const efiValor = (minor: number) => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, "0")}`;

/** The Pix that paid a cob (a cob is paid once); undefined while unpaid. */
export const paidPix = (cob: EfiCob): EfiPix | undefined => cob.pix?.find((p) => typeof p.endToEndId === "string");

/** A cob as feira's payment state: pending with its BR Code, paid (with what went back), or failed. */
export function efiCobState(cob: EfiCob): LookupResult {
  const pspRefId = cob.txid;
  const status = cob.status ?? "";
  if (!pspRefId) return { outcome: "unknown", failure: badResponse("the processor's cob had no txid") };
  switch (status) {
    case "ATIVA": {
      const created = parseInstant(cob.calendario?.criacao);
      const seconds = efiWhole(cob.calendario?.expiracao);
      if (!cob.pixCopiaECola || !created || seconds === null) {
        return { outcome: "unknown", failure: badResponse("the processor's cob had no BR Code or expiry") };
      }
      const expiresAt = new Date(created.getTime() + seconds * 1000);
      return { outcome: "pending", pspRefId, providerCode: status, expiresAt, details: pixDetails(cob.pixCopiaECola, expiresAt) };
    }
    case "CONCLUIDA":
      return paidState(cob, pspRefId);
    case "REMOVIDA_PELO_USUARIO_RECEBEDOR":
      return { outcome: "failed", reason: "canceled", pspRefId, providerCode: status };
    case "REMOVIDA_PELO_PSP":
      return { outcome: "failed", reason: "expired", pspRefId, providerCode: status };
    default:
      return { outcome: "unknown", failure: badResponse(`the processor's cob has a status feira does not know (${status.slice(0, 40)})`) };
  }
}

/** The MED's reason as feira's: fraud, or the payer's PSP's operational failure. */
const MED_REASON: Readonly<Record<string, string>> = { MED_FRAUDE: "fraud", MED_OPERACIONAL: "operational_failure", MED_PIX_AUTOMATICO: "pix_automatico_refund" };

/** A MED devolução as the lost pix_med dispute it is, named by its return's id (rtrId, else the devolução's id on its Pix). */
function medDispute(txid: string, e2eid: string, d: EfiDevolucao): FoundDispute {
  return {
    outcome: "lost", disputeRef: d.rtrId || `${e2eid}:${d.id ?? ""}`, chargeRef: txid, kind: "pix_med",
    amountMinor: efiCents(d.valor) ?? 0, reason: MED_REASON[d.natureza ?? ""] ?? "fraud", evidenceDueBy: null,
  };
}

function paidState(cob: EfiCob, pspRefId: string): LookupResult {
  const returned = (paidPix(cob)?.devolucoes ?? []).filter((d) => d.status === "DEVOLVIDO");
  const meds = returned.filter(unasked);
  if (meds.length > 0) {
    return { outcome: "charged_back", pspRefId, providerCode: meds[0]!.natureza ?? "MED", disputes: meds.map((d) => medDispute(pspRefId, paidPix(cob)?.endToEndId ?? "", d)) };
  }
  const refunded = returned.reduce((sum, d) => sum + (efiCents(d.valor) ?? 0), 0);
  const amount = efiCents(cob.valor?.original) ?? efiCents(paidPix(cob)?.valor);
  if (amount !== null && refunded >= amount) return { outcome: "refunded", pspRefId, providerCode: "DEVOLVIDO" };
  return refunded > 0 ? { outcome: "paid", pspRefId, providerCode: "CONCLUIDA", refundedMinor: refunded } : { outcome: "paid", pspRefId, providerCode: "CONCLUIDA" };
}

/** A cob's or cobv's state read after a create, as a create's answer (a create never answers refunded or charged back). */
export function createdResult(state: LookupResult, kind: "cob" | "cobv"): AuthorizeResult {
  switch (state.outcome) {
    case "not_found":
      return { outcome: "unknown", failure: badResponse(`the processor's ${kind} was not found after it was made`) };
    case "refunded":
    case "charged_back":
      return { outcome: "in_analysis", pspRefId: state.pspRefId, providerCode: state.providerCode };
    default: {
      if (state.outcome === "unknown") return state;
      const { refundedMinor: _refunded, ...rest } = state;
      return rest;
    }
  }
}
