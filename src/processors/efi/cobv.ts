import { addDays, daysBetween, isIsoDate } from "../../lib/calendar.js";
import { badResponse, createFailureResult, madeNothing } from "../adapter-results.js";
import { BRAZIL_TIME_ZONE, endOfDay } from "../calendar.js";
import { providerDocument, type DocumentRules } from "../documents.js";
import { pixDetails } from "../instructions.js";
import type { AuthorizeInput, AuthorizeResult, InstrumentCheck, LookupResult, PaidAmount, ProcessorFailure } from "../processor.js";
import { efiIds, type EfiClient } from "./client.js";
import { createdResult, efiCobState, efiValor, efiWhole, type EfiCob, type EfiPix } from "./statuses.js";

// The Central Bank's Pix with a due date (cobv: PUT /v2/cobv/{txid}) at Efí: a Pix charge whose
// paymentMethod has a dueDate. Its txid is the charge's, derived as a cob's (client.ts), so a
// charge has one cobv whatever happens: a create whose answer was lost (a timeout, a 5xx, the
// process killed) is read back with GET /v2/cobv/{txid} before it is ever sent again, and a PUT
// under a txid in use revises the same cobv (the Central Bank) or is refused (Efí), never a second.
// The terms go in the Central Bank's modalidades (docs/processors.md, "Efí: Pix with a due date"):
// the fine a percent (multa 2), the interest a percent a month over calendar days (juros 3), the
// discount a fixed amount or a percent until a date (desconto 1 or 2, descontoDataFixa). What the
// payer paid (more after the due date, less with the discount) is read from the Pix received.

/** A cobv's payer: a CPF or a CNPJ, and a name (the Central Bank's CobVSolicitada requires devedor). */
const COBV_DOCUMENTS: DocumentRules<"cpf" | "cnpj"> = { processor: "efi", types: { cpf: "cpf", cnpj: "cnpj" }, needs: {} };

/** The API Pix's `solicitacaoPagador`: at most 140 characters. */
const PAYER_TEXT_MAX = 140;
/** PessoaFisica / PessoaJuridica `nome`: at most 200 characters. */
const NAME_MAX = 200;

interface Terms {
  dueDate: string;
  payableUntil: string;
  fine?: { percent: number };
  interest?: { monthlyPercent: number };
  discount?: { amount?: number; percent?: number; until: string };
}

export interface EfiCobv extends Omit<EfiCob, "calendario"> {
  calendario?: { criacao?: string; dataDeVencimento?: string; validadeAposVencimento?: number | string };
}

/** Whether a charge is a Pix with a due date (its terms were checked and defaulted by the charge path). */
export const isDueDatePix = (input: Pick<AuthorizeInput, "instrument">): boolean =>
  input.instrument.kind === "pix" && typeof input.instrument.options.dueDate === "string";

/** The 422 of a Pix with a due date whose payer Efí cannot name (a cobv's devedor), or null. */
export function cobvPayerProblem(input: InstrumentCheck): string | null {
  if (input.method !== "pix" || input.options.dueDate === undefined) return null;
  if (providerDocument(COBV_DOCUMENTS, input.customer) && input.customer?.name.trim()) return null;
  return "customer.document: a Pix with a due date at processor efi needs the buyer's valid CPF or CNPJ and name (the cobv's devedor)";
}

const percent = (p: number) => p.toFixed(2);

/** The body of PUT /v2/cobv/{txid} (CobVSolicitada) for a Pix with a due date. */
export function cobvBody(input: AuthorizeInput, pixKey: string): Record<string, unknown> {
  const t = input.instrument.kind === "pix" ? (input.instrument.options as unknown as Terms) : undefined;
  const document = providerDocument(COBV_DOCUMENTS, input.customer);
  if (!t || !document || !input.customer) throw new Error("a cobv needs a Pix with a due date and the payer's CPF or CNPJ (checkInstrument)");
  const a = input.customer.address;
  const d = t.discount;
  return {
    calendario: { dataDeVencimento: t.dueDate, validadeAposVencimento: daysBetween(t.dueDate, t.payableUntil) },
    devedor: {
      [document.type]: document.number, nome: input.customer.name.slice(0, NAME_MAX),
      // DadosComplementaresPessoa: optional at the Central Bank; sent when the buyer gave an address.
      ...(a ? { logradouro: `${a.street}, ${a.number}`.slice(0, 200), cidade: a.city.slice(0, 200), uf: a.state.slice(0, 2), cep: a.postalCode.replace(/\D/g, "") } : {}),
    },
    valor: {
      original: efiValor(input.amountMinor),
      ...(t.fine ? { multa: { modalidade: 2, valorPerc: percent(t.fine.percent) } } : {}),
      ...(t.interest ? { juros: { modalidade: 3, valorPerc: percent(t.interest.monthlyPercent) } } : {}),
      ...(d ? {
        desconto: d.percent !== undefined
          ? { modalidade: 2, descontoDataFixa: [{ data: d.until, valorPerc: percent(d.percent) }] }
          : { modalidade: 1, descontoDataFixa: [{ data: d.until, valorPerc: efiValor(Math.round((d.amount ?? 0) * 100)) }] },
      } : {}),
    },
    chave: pixKey,
    solicitacaoPagador: (input.description || `Charge ${input.chargeId}`).slice(0, PAYER_TEXT_MAX),
  };
}

/**
 * An amount Efí writes as the API Pix's "12.34", or with fewer decimals ("1.0", seen in Efí's
 * notices) or as a number: in minor units; null when it is none of these.
 */
export function efiAmount(v: unknown): number | null {
  const text = typeof v === "number" && Number.isFinite(v) ? v.toFixed(2) : v;
  if (typeof text !== "string" || !/^\d{1,10}(\.\d{1,2})?$/.test(text)) return null;
  const [units, cents = ""] = text.split(".");
  return Number(units) * 100 + Number(cents.padEnd(2, "0"));
}

type Components = { original?: { valor?: unknown }; multa?: { valor?: unknown }; juros?: { valor?: unknown }; desconto?: { valor?: unknown }; abatimento?: { valor?: unknown } };

/**
 * What the Pix that paid a cobv paid: its `valor`, with the parts its componentesValor names
 * (valor = original + multa + juros - abatimento - desconto; an abatimento counted as discount),
 * when they add up; null when its valor is unreadable.
 */
export function paidAmountOf(pix: EfiPix & { componentesValor?: Components }): PaidAmount | null {
  const totalMinor = efiAmount(pix.valor);
  if (totalMinor === null) return null;
  const c = pix.componentesValor;
  const part = (x: { valor?: unknown } | undefined) => (x === undefined ? 0 : efiAmount(x.valor));
  const [original, fine, interest, discount, rebate] = [c?.original ? part(c.original) : null, part(c?.multa), part(c?.juros), part(c?.desconto), part(c?.abatimento)];
  if (original === null || fine === null || interest === null || discount === null || rebate === null) return { totalMinor };
  if (original + fine + interest - discount - rebate !== totalMinor) return { totalMinor };
  return { totalMinor, parts: { fineMinor: fine, interestMinor: interest, discountMinor: discount + rebate } };
}

/** A cobv as feira's payment state: pending with its BR Code until the end of its last day, paid with what the payer paid, or failed. */
export function efiCobvState(cobv: EfiCobv): LookupResult {
  const { calendario, ...rest } = cobv;
  if (cobv.status === "ATIVA") {
    const due = calendario?.dataDeVencimento;
    const days = efiWhole(calendario?.validadeAposVencimento ?? 30);
    if (!cobv.txid || !cobv.pixCopiaECola || typeof due !== "string" || days === null || !isIsoDate(due)) {
      return { outcome: "unknown", failure: badResponse("the processor's cobv had no txid, BR Code or due date") };
    }
    const expiresAt = endOfDay(addDays(due, days), BRAZIL_TIME_ZONE);
    return { outcome: "pending", pspRefId: cobv.txid, providerCode: "ATIVA", expiresAt, details: pixDetails(cobv.pixCopiaECola, expiresAt, { dueDate: due }) };
  }
  // Paid, removed or returned: read as a cob's, against what the Pix paid (a refund of all of it
  // is a full refund, whatever the original amount was).
  const pix = rest.pix?.find((p) => typeof p.endToEndId === "string");
  const paid = pix ? paidAmountOf(pix) : null;
  const state = efiCobState({ ...rest, ...(paid ? { valor: { original: efiValor(paid.totalMinor) } } : {}) });
  return state.outcome === "paid" && paid ? { ...state, paidAmount: paid } : state;
}

const created = (state: LookupResult) => createdResult(state, "cobv");

/** Efí's and the Central Bank's "no such cobv": a 404 (CobVNaoEncontrada, NaoEncontrado), or Efí's 400 `*_nao_encontrad*`. */
export const cobvAbsent = (f: ProcessorFailure) => f.status === 404 || (f.status === 400 && /nao_encontrad/.test(f.providerCode ?? ""));

export function createEfiCobv(client: EfiClient, pixKey: string) {
  /** The cobv under a txid: its state and body, absent, or a failure to read it. */
  async function read(txid: string): Promise<{ state: LookupResult; body: EfiCobv } | { absent: true } | { failure: ProcessorFailure }> {
    const r = await client.getCobv(txid);
    if (r.ok) return { state: efiCobvState(r.body as EfiCobv), body: r.body as EfiCobv };
    return cobvAbsent(r.failure) ? { absent: true } : { failure: r.failure };
  }

  /** The cobv read back after a create without an answer to rely on: adopted, absent (null), or unknown. */
  async function readBack(txid: string, failure: ProcessorFailure): Promise<AuthorizeResult | null> {
    const found = await read(txid);
    if ("state" in found) return found.state.outcome === "unknown" ? { outcome: "unknown", failure } : created(found.state);
    return "absent" in found ? null : { outcome: "unknown", failure };
  }

  async function authorize(input: AuthorizeInput): Promise<AuthorizeResult> {
    const txid = efiIds.txid(input.chargeId);
    const body = cobvBody(input, pixKey);
    for (let attempt = 0; ; attempt++) {
      const r = await client.createCobv(txid, body);
      if (r.ok) {
        const state = efiCobvState(r.body as EfiCobv);
        // An answer without its BR Code or dates: the cobv exists; read it back for them.
        if (state.outcome !== "unknown") return created(state);
        return (await readBack(txid, badResponse("the processor's cobv answer had no BR Code or due date"))) ?? { outcome: "unknown", failure: badResponse("the processor's cobv was not found after it was made") };
      }
      // Refused, or never sent: nothing was made (a second processor may serve it).
      if (madeNothing(r.failure) || r.failure.kind === "connection_refused") return createFailureResult(r.failure);
      // A 409, a 5xx or no answer: the cobv made under this txid, if any, is read back first; sent
      // again (the same txid, so still one cobv) only when Efí says there is none, and only once.
      const found = await readBack(txid, r.failure);
      if (found) return found;
      if (attempt >= 1) return { outcome: "unknown", failure: r.failure };
    }
  }

  /** Removes an unpaid cobv (PATCH status REMOVIDA_PELO_USUARIO_RECEBEDOR); the raw call, for cancelResultOf. */
  const remove = (txid: string) => client.reviseCobv(txid, { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" });

  return { authorize, read, remove };
}

export type EfiCobvs = ReturnType<typeof createEfiCobv>;
