import type { DebitState, MandateCapability, MandateInput, MandatePeriodicity, MandateState } from "../capabilities.js";
import type { CallResult } from "../http-client.js";
import type { ProcessorFailure } from "../processor.js";
import type { EfiRecebedor } from "./account.js";
import { efiIds, type EfiClient } from "./client.js";
import { efiValor } from "./statuses.js";

// Pix Automático through Efí: the Central Bank's API Pix 2.9.0 (bacen/pix-api openapi.yaml, paths
// /locrec, /rec, /rec/{idRec}, /cobr/{txid}; docs/processors.md cites each field). A mandate is a
// recurrence (rec) on a location (locrec) whose BR Code the payer scans; journey 3 names the first
// period's cob in `ativacao.dadosJornada.txid`, so paying it approves the recurrence. Efí assigns
// the idRec, so a create is not idempotent by itself: feira's mandate id is the rec's
// `vinculo.contrato`, and a create first looks for a rec of the payer under that contract (GET
// /v2/rec by CPF or CNPJ), which finds the rec of an attempt whose answer was lost. Each period is a
// recurring charge (cobr) under a txid derived from feira's debit id: a second PUT under it is
// refused and read back, never a second debit. A retry is a new attempt of that cobr (POST
// /cobr/{txid}/retentativa/{data}): the Central Bank refuses a second cobr in the same cycle.

type Rec = {
  idRec?: unknown; status?: unknown; vinculo?: { contrato?: unknown };
  ativacao?: { dadosJornada?: { txid?: unknown } }; dadosQR?: { pixCopiaECola?: unknown };
  encerramento?: { rejeicao?: { codigo?: unknown }; cancelamento?: { codigo?: unknown; solicitante?: unknown } };
};
type Attempt = { status?: unknown; dataLiquidacao?: unknown; rejeicao?: { codigo?: unknown } };
type CobR = { txid?: unknown; status?: unknown; tentativas?: Attempt[]; calendario?: { dataDeVencimento?: unknown } };

/** The rec's statuses (RecStatus) in feira's mandate terms. */
export const EFI_REC_STATUSES: Readonly<Record<string, MandateState["outcome"]>> = {
  CRIADA: "pending", APROVADA: "active", REJEITADA: "rejected", EXPIRADA: "expired", CANCELADA: "cancelled",
};

/** The Central Bank's periodicidade of each periodicity feira offers. */
const PERIODICIDADE: Readonly<Record<MandatePeriodicity, string>> = {
  weekly: "SEMANAL", monthly: "MENSAL", quarterly: "TRIMESTRAL", half_yearly: "SEMESTRAL", yearly: "ANUAL",
};

const DAY_MS = 86_400_000;
/** How far around `since` a lost create's rec is looked for (the list's inicio..fim is required). */
const SEARCH_DAYS = 1;
const absent = (f: ProcessorFailure) => f.status === 404 || (f.status === 400 && /nao_encontrad|NaoEncontrado/i.test(f.providerCode ?? ""));
const text = (v: unknown) => (typeof v === "string" ? v : "");
const unknownOf = (failure: ProcessorFailure): MandateState & DebitState => ({ outcome: "unknown", failure });
const badRec = (message: string): MandateState => unknownOf({ kind: "bad_response", message });

/** A rec's state, its QR read by the caller when pending. */
function recState(rec: Rec, qrCode: string | null): MandateState {
  const mandateRef = text(rec.idRec);
  const outcome = EFI_REC_STATUSES[text(rec.status)];
  if (!mandateRef || !outcome || outcome === "not_found" || outcome === "unknown" || outcome === "refused") {
    return badRec(`the processor's recurrence has no idRec or a status feira does not know (${text(rec.status).slice(0, 40)})`);
  }
  if (outcome === "pending") return qrCode ? { outcome, mandateRef, qrCode } : badRec("the processor's pending recurrence had no BR Code");
  const e = rec.encerramento;
  const code = text(e?.rejeicao?.codigo) || text(e?.cancelamento?.codigo);
  const coded = { mandateRef, ...(code ? { providerCode: code } : {}) };
  // solicitante: PSP_PAGADOR, USUARIO_PAGADOR (the payer's side), PSP_RECEBEDOR, USUARIO_RECEBEDOR (feira's side).
  if (outcome === "cancelled") return { outcome, ...coded, by: /RECEBEDOR$/.test(text(e?.cancelamento?.solicitante)) ? "receiver" : "payer" };
  return { outcome, ...coded };
}

/** A cobr as a debit: scheduled while an attempt is pending, failed once its last attempt was refused. */
export function cobrState(c: CobR): DebitState {
  const debitRef = text(c.txid);
  const last = c.tentativas?.at(-1);
  const reason = text(last?.rejeicao?.codigo) || text(c.status);
  // The day of the attempt the payer's bank will make (a retry's own day), else the due date.
  const dueDate = text(last?.dataLiquidacao) || text(c.calendario?.dataDeVencimento);
  const scheduled: DebitState = { outcome: "scheduled", debitRef, ...(dueDate ? { dueDate } : {}) };
  switch (text(c.status)) {
    case "CRIADA":
      return scheduled;
    case "ATIVA":
      return last?.status === "REJEITADA" ? { outcome: "failed", debitRef, reason } : scheduled;
    case "CONCLUIDA":
      return { outcome: "paid", debitRef };
    case "REJEITADA": case "EXPIRADA": case "CANCELADA":
      return { outcome: "failed", debitRef, reason };
    default:
      return unknownOf({ kind: "bad_response", message: `the processor's recurring charge has a status feira does not know (${text(c.status).slice(0, 40)})` });
  }
}

export function createEfiMandates(client: EfiClient, recebedor?: EfiRecebedor): MandateCapability {
  /** The rec with its BR Code when pending (journey 3's reads the cob's txid with it). */
  async function read(idRec: string): Promise<MandateState> {
    const r = await client.getRec(idRec);
    if (!r.ok) return absent(r.failure) ? { outcome: "not_found" } : unknownOf(r.failure);
    const rec = r.body as Rec;
    if (text(rec.status) !== "CRIADA") return recState(rec, null);
    const txid = text(rec.ativacao?.dadosJornada?.txid);
    const q = txid ? await client.getRec(idRec, txid) : r;
    if (!q.ok) return unknownOf(q.failure);
    return recState(rec, text((q.body as Rec).dadosQR?.pixCopiaECola) || null);
  }

  /** The payer's rec under feira's contract (mandate id) created around `since`, if any. */
  async function findByContract(mandateId: string, payer: MandateInput["payer"], since: Date): Promise<MandateState> {
    const day = (d: Date) => d.toISOString();
    const r = await client.listRecs({
      inicio: day(new Date(since.getTime() - SEARCH_DAYS * DAY_MS)), fim: day(new Date(Date.now() + SEARCH_DAYS * DAY_MS)),
      [payer.documentType]: payer.documentNumber,
    });
    if (!r.ok) return unknownOf(r.failure);
    const recs = (r.body as { recs?: Rec[] } | null)?.recs;
    if (!Array.isArray(recs)) return badRec("the processor's list of recurrences had no recs");
    const mine = recs.find((x) => text(x.vinculo?.contrato) === mandateId);
    return mine ? read(text(mine.idRec)) : { outcome: "not_found" };
  }

  function recBody(input: MandateInput, loc: number): Record<string, unknown> {
    return {
      vinculo: { contrato: input.mandateId, devedor: { [input.payer.documentType]: input.payer.documentNumber, nome: input.payer.name.slice(0, 140) }, objeto: input.description.slice(0, 35) },
      calendario: { dataInicial: input.startDate, periodicidade: PERIODICIDADE[input.periodicity] },
      // The plan's price as the floor of the maximum the payer may set: any debit up to it is authorized.
      valor: { valorMinimoRecebedor: efiValor(input.maxAmountMinor) },
      politicaRetentativa: input.retryPolicy === "3_in_7_days" ? "PERMITE_3R_7D" : "NAO_PERMITE",
      loc,
      ...(input.firstPaymentRef ? { ativacao: { dadosJornada: { txid: input.firstPaymentRef } } } : {}),
    };
  }

  /** A write's failure: a refusal (4xx) made nothing; anything else is no answer to rely on. */
  const failed = (r: Extract<CallResult, { ok: false }>): MandateState =>
    (r.failure.kind === "http_4xx" ? { outcome: "refused", providerCode: r.failure.providerCode, message: r.failure.message } : unknownOf(r.failure));

  async function readDebit(txid: string): Promise<DebitState> {
    const r = await client.getCobr(txid);
    if (r.ok) return cobrState(r.body as CobR);
    return absent(r.failure) ? { outcome: "not_found" } : unknownOf(r.failure);
  }

  return {
    async create(input) {
      const earlier = await findByContract(input.mandateId, input.payer, input.now);
      if (earlier.outcome !== "not_found") return earlier;
      const loc = await client.createLocRec();
      if (!loc.ok) return failed(loc);
      const id = (loc.body as { id?: unknown } | null)?.id;
      if (typeof id !== "number") return badRec("the processor's location had no id");
      const rec = await client.createRec(recBody(input, id));
      if (!rec.ok) return failed(rec);
      const idRec = text((rec.body as Rec | null)?.idRec);
      return idRec ? read(idRec) : badRec("the processor's recurrence had no idRec");
    },
    async lookup(input) {
      if (input.mandateRef) return read(input.mandateRef);
      return input.payer ? findByContract(input.mandateId, input.payer, input.since ?? new Date()) : { outcome: "not_found" };
    },
    async cancel(input) {
      const r = await client.reviseRec(input.mandateRef, { status: "CANCELADA" });
      // Refused when it ended already (rejected, expired, cancelled by the payer): what it is now is the answer.
      if (r.ok || r.failure.kind === "http_4xx") return read(input.mandateRef);
      return unknownOf(r.failure);
    },
    async scheduleDebit(input) {
      const txid = efiIds.cobr(input.debitId);
      const r = await client.createCobr(txid, {
        idRec: input.mandateRef, infoAdicional: input.description.slice(0, 140),
        calendario: { dataDeVencimento: input.dueDate }, valor: { original: efiValor(input.amountMinor) },
        // No move to the next business day: the due date is the period's start, as feira bills it.
        ajusteDiaUtil: false,
        // Required by the Central Bank's CobRSolicitada (the account the debit is paid into).
        ...(recebedor ? { recebedor } : {}),
      });
      if (r.ok) return cobrState(r.body as CobR);
      // An earlier attempt's cobr (txid in use), or no answer: the cobr under this txid, if any, is the answer.
      const found = await readDebit(txid);
      if (found.outcome !== "not_found") return found;
      return r.failure.kind === "http_4xx" ? { outcome: "failed", debitRef: txid, reason: r.failure.providerCode ?? `http_${r.failure.status}`, refused: true } : unknownOf(r.failure);
    },
    lookupDebit: (input) => readDebit(input.debitRef || efiIds.cobr(input.debitId)),
    async retryDebit(input) {
      const r = await client.retryCobr(input.debitRef, input.date);
      if (r.ok) return cobrState(r.body as CobR);
      // Refused (past the policy's 3 in 7 days, an attempt still open, a cobr that ended) or no
      // answer: the cobr as it is now is the answer. A lost retry that was made reads back
      // scheduled; a refused one, failed with its last attempt's code.
      const found = await readDebit(input.debitRef);
      return found.outcome === "not_found" ? { outcome: "failed", debitRef: input.debitRef, reason: r.failure.providerCode ?? `http_${r.failure.status ?? 0}` } : found;
    },
  };
}
