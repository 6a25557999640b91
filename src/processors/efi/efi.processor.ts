import { unservedTerms } from "../instructions.js";
import { efiAccounts } from "./seller-accounts.js";
import type { MandateCapability } from "../capabilities.js";
import { badResponse, cancelResultOf, createFailureResult, madeNothing, refundFailureResult, refundResultOf } from "../adapter-results.js";
import { providerDocument, type DocumentRules } from "../documents.js";
import type { CallResult } from "../http-client.js";
import type { AuthorizeInput, AuthorizeResult, LookupResult, ProcessorFailure, RefundInput, RefundResult, Serves } from "../processor.js";
import type { EfiRecebedor } from "./account.js";
import { createEfiClient, efiIds, type EfiClientOptions } from "./client.js";
import { cobvPayerProblem, createEfiCobv, isDueDatePix } from "./cobv.js";
import { authorizeDebit, debitPaymentState, debitPix } from "./debits.js";
import { createEfiInfractions } from "./infractions.js";
import { createEfiMandates } from "./mandates.js";
import { createEfiPayouts } from "./payouts.js";
import { createEfiSplits } from "./split.js";
import { createdResult, EFI_DEVOLUCAO_STATUSES, efiCobState, efiValor, paidPix, type EfiCob, type EfiDevolucao } from "./statuses.js";

// Efí (API Pix) behind PaymentProcessor: live Pix charges as cobs (a Pix with a due date as a
// cobv under the same txid: cobv.ts, read after a cob is not found), their expiry (the cob
// removed), and refunds as devoluções. pspRefId is the cob's txid, derived from feira's charge
// id (client.ts), so a create that timed out, got a 5xx or died with its process is found by a
// lookup, and a second PUT under the same txid is answered 409 and read back: never two cobs.
// A devolução's id is derived from feira's refund id the same way; Efí answers a second one
// under that id with the Central Bank's 400 PixDevolucaoInvalida (or its own 409): read back.

/** The payer (`devedor`) Efí takes on a cob: a CPF or a CNPJ with a name; without one, none. */
export const EFI_DOCUMENTS: DocumentRules<"cpf" | "cnpj"> = { processor: "efi", types: { cpf: "cpf", cnpj: "cnpj" }, needs: {} };

/** The API Pix's `solicitacaoPagador`: at most 140 characters. */
const PAYER_TEXT_MAX = 140;

/** Efí's and the Central Bank's ways of saying "no such object": a 404, or Efí's 400 `*_nao_encontrad*`. */
const absent = (f: ProcessorFailure) => f.status === 404 || (f.status === 400 && /nao_encontrad/.test(f.providerCode ?? ""));

export interface EfiProcessorOptions extends EfiClientOptions {
  /** The account's Pix key: every cob is payable to it. */
  pixKey: string;
  /** The account a recurring charge (cobr) names as its `recebedor` (pix_automatico=efi). */
  account?: EfiRecebedor;
}

export function cobBody(input: AuthorizeInput, pixKey: string): Record<string, unknown> {
  if (input.instrument.kind !== "pix") throw new Error(`efi does not serve ${input.instrument.kind}`);
  const document = providerDocument(EFI_DOCUMENTS, input.customer);
  return {
    calendario: { expiracao: input.instrument.expiresIn },
    ...(document && input.customer ? { devedor: { [document.type]: document.number, nome: input.customer.name } } : {}),
    valor: { original: efiValor(input.amountMinor) },
    chave: pixKey,
    solicitacaoPagador: (input.description || `Charge ${input.chargeId}`).slice(0, PAYER_TEXT_MAX),
  };
}

/** A cob's state read after a create, as a create's answer. */
const created = (state: LookupResult) => createdResult(state, "cob");

function devolucaoResult(d: EfiDevolucao): RefundResult {
  const status = d.status ?? "";
  return refundResultOf(EFI_DEVOLUCAO_STATUSES[status] ?? "pending", d.rtrId ?? d.id ?? null, status);
}

export function createEfiProcessor(opts: EfiProcessorOptions): Serves<"cancel" | "refund" | "refundStatus" | "payouts" | "disputes"> & { close(): Promise<void>; mandates: MandateCapability } {
  const client = createEfiClient(opts);
  const txidOf = (input: { chargeId: string; pspRefId?: string | null }) => input.pspRefId || efiIds.txid(input.chargeId);

  const mandates = createEfiMandates(client, opts.account);
  const cobvs = createEfiCobv(client, opts.pixKey);
  const infractions = createEfiInfractions(client);
  const splits = createEfiSplits(client);

  async function lookup(input: { chargeId: string; pspRefId?: string | null }): Promise<LookupResult> {
    const r = await client.getCob(txidOf(input));
    // A Pix that went back unasked is matched to its MED infraction (infractions.ts).
    if (r.ok) return infractions.matchDevolucoes(efiCobState(r.body as EfiCob), r.body as EfiCob, new Date());
    if (!absent(r.failure)) return { outcome: "unknown", failure: r.failure };
    // No cob under the txid: a Pix with a due date is a cobv under it (cobv.ts).
    const v = await cobvs.read(txidOf(input));
    if ("state" in v) return infractions.matchDevolucoes(v.state, v.body as EfiCob, new Date());
    if ("failure" in v) return { outcome: "unknown", failure: v.failure };
    // Nor a cobv: a Pix Automático period's charge is a cobr under the same txid.
    const debit = await mandates.lookupDebit({ debitId: input.chargeId, debitRef: txidOf(input) });
    return debitPaymentState(debit);
  }

  /**
   * The end-to-end id of the Pix that paid the charge: its cob's, or, for a Pix Automático
   * period, its cobr's (CobRCompleta.pix[], under the same txid); a failure, or null when unpaid.
   */
  async function paidWith(input: RefundInput): Promise<{ e2eid: string } | { failure: ProcessorFailure } | null> {
    const txid = txidOf(input);
    const r = await client.getCob(txid);
    if (r.ok) {
      const e2eid = paidPix(r.body as EfiCob)?.endToEndId;
      return e2eid ? { e2eid } : null;
    }
    if (!absent(r.failure)) return { failure: r.failure };
    const v = await cobvs.read(txid);
    if ("state" in v) {
      const e2eid = paidPix(v.body as EfiCob)?.endToEndId;
      return e2eid ? { e2eid } : null;
    }
    if ("failure" in v) return { failure: v.failure };
    const debit = await client.getCobr(txid);
    if (!debit.ok) return absent(debit.failure) ? null : { failure: debit.failure };
    const e2eid = debitPix(debit.body);
    return e2eid ? { e2eid } : null;
  }

  /** A devolução read back by its id: its state, not_found, or pending when unreadable. */
  async function readDevolucao(e2eid: string, input: RefundInput & { refundRef?: string | null }): Promise<RefundResult | { outcome: "not_found" }> {
    const r = await client.getDevolucao(e2eid, efiIds.devolucao(input.refundId));
    if (r.ok) return devolucaoResult(r.body as EfiDevolucao);
    return absent(r.failure) ? { outcome: "not_found" } : { outcome: "pending", refundRef: input.refundRef ?? null, failure: r.failure };
  }

  /** A scheduled recurring charge cancelled (CobRRevisada: status CANCELADA). */
  async function cancelDebit(txid: string) {
    const status = (body: unknown) => String((body as { status?: unknown } | null)?.status ?? "");
    return cancelResultOf(await client.reviseCobr(txid, { status: "CANCELADA" }), (body) => status(body) === "CANCELADA", status);
  }

  async function refund(input: RefundInput): Promise<RefundResult> {
    const paid = await paidWith(input);
    if (!paid) return { outcome: "failed", reason: "processing_error", providerCode: "pix_nao_encontrado" };
    if ("failure" in paid) return { outcome: "pending", refundRef: null, failure: paid.failure };
    const r: CallResult = await client.devolver(paid.e2eid, efiIds.devolucao(input.refundId), { valor: efiValor(input.amountMinor) });
    if (r.ok) return devolucaoResult(r.body as EfiDevolucao);
    // Already asked for under this id (a retry after a lost answer): that devolução is the answer.
    const repeated = (r.failure.status === 400 && r.failure.providerCode === "PixDevolucaoInvalida") || r.failure.status === 409;
    if (repeated) {
      const first = await readDevolucao(paid.e2eid, input);
      if (first.outcome !== "not_found") return first;
    }
    return refundFailureResult(r.failure);
  }

  async function createCob(input: AuthorizeInput): Promise<AuthorizeResult> {
    const r = await client.createCob(efiIds.txid(input.chargeId), cobBody(input, opts.pixKey));
    if (!r.ok) {
      // Refused, or never sent: nothing was made (a second processor may serve it).
      if (madeNothing(r.failure) || r.failure.kind === "connection_refused") return createFailureResult(r.failure);
      // A 409 (txid_duplicado: an earlier attempt's cob), a 5xx or no answer: the cob made under
      // this txid, if any, is read back and adopted, so the payer gets its BR Code now.
      const found = await lookup({ chargeId: input.chargeId });
      return found.outcome === "not_found" || found.outcome === "unknown" ? { outcome: "unknown", failure: r.failure } : created(found);
    }
    return created(efiCobState(r.body as EfiCob));
  }

  return {
    name: "efi",
    supports: (method, currency) => (method === "pix" || method === "pix_automatico") && currency === "BRL",
    // A Pix with a due date is a cobv (cobv.ts), which names its payer.
    checkInstrument: (input) => unservedTerms(input, "efi", { pixDueDate: true, boletoTerms: false }) ?? cobvPayerProblem(input),
    async authorize(input) {
      if (input.instrument.kind === "pix_automatico") return authorizeDebit(mandates, input);
      // Provider settlement: the split's configuration, the cob (a cobv for a Pix with a due
      // date), then the vínculo before the BR Code reaches the payer (split.ts).
      if (isDueDatePix(input)) return splits.authorize("cobv", input, () => cobvs.authorize(input));
      return splits.authorize("cob", input, () => createCob(input));
    },
    // A resumed charge's cob (or cobv), found by the router, is linked to its split before it is adopted.
    adopt: (input, found) => (input.instrument.kind === "pix" ? splits.adopt(isDueDatePix(input) ? "cobv" : "cob", input, found) : Promise.resolve(found)),
    lookup,
    // Only an ATIVA cob can be removed; Efí refuses (400) one paid or removed already. No cob
    // under the txid: a Pix Automático period's cobr, cancelled with PATCH /v2/cobr (the Central
    // Bank refuses it on or after the day of its first attempt: not_cancelable, read back).
    async cancel(input) {
      const txid = txidOf(input);
      let r = await client.reviseCob(txid, { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" });
      if (!r.ok && absent(r.failure)) r = await cobvs.remove(txid);
      if (!r.ok && absent(r.failure)) return cancelDebit(txid);
      return cancelResultOf(r, (body) => (body as EfiCob).status === "REMOVIDA_PELO_USUARIO_RECEBEDOR", (body) => (body as EfiCob).status ?? "");
    },
    refund,
    async refundStatus(input) {
      const paid = await paidWith(input);
      if (!paid) return { outcome: "not_found" };
      if ("failure" in paid) return { outcome: "pending", refundRef: input.refundRef, failure: paid.failure };
      return readDevolucao(paid.e2eid, input);
    },
    // Payouts by Pix send from the account's key (PAYOUT_PROVIDER=efi).
    payouts: createEfiPayouts(client, opts.pixKey),
    // Pix Automático's recurrences and recurring charges (pix_automatico=efi).
    mandates,
    // MED: infractions listed every round (recent) and defended with the merchant's evidence; a
    // devolução read with its cob closes its infraction's dispute (infractions.ts, statuses.ts).
    disputes: { provider: "Efí", recent: infractions.recent, submitEvidence: infractions.submitEvidence },
    accounts: efiAccounts,
    // The split de pagamento Pix exists for cobs and cobvs, not for Pix Automático's recurring charges.
    sendsSplit: ["pix"],
    close: () => client.close(),
  };
}
