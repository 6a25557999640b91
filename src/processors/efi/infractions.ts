import { parseInstant } from "../instructions.js";
import type { DisputeCapability, EvidenceResult, FoundDispute, ListedDispute, LookupResult, ProcessorFailure } from "../processor.js";
import type { EfiClient } from "./client.js";
import { efiCents, paidPix, type EfiCob } from "./statuses.js";

// Efí's MED infractions as feira's pix_med disputes (docs/processors.md, "Efí: MED"). The
// payer's bank reports a Pix the account received (an infraction, ABERTA) before any money goes
// back; the receiver may defend it until Efí's deadline (dadosAnalise.prazoFinalizacao); Efí
// then accepts it (ACEITA: the money goes back to the payer by a devolução) or rejects it. Read
// from Efí's SDK (efipay/sdk-node-apis-efi 1.2.28: medList, medDefense and their types in
// pix.d.ts). Efí sends no notice of an infraction, so feira lists them: the last LIST_WINDOW_DAYS
// every round, its one cursor being the window, and applies each once per idInfracao.
//
// Choices where the sources leave room:
// - ABERTA is needs_response with prazoFinalizacao as evidenceDueBy; EM_DEFESA is under_review;
//   ACEITA is lost (the money goes back); REJEITADA and CANCELADA_EFI are won (it stays).
// - The infraction names its Pix by endToEndId: GET /v2/pix/{e2eid} gives the txid of the cob
//   (or of the Pix Automático cobr) it paid, which is the charge's reference.
// - The merchant's evidence is the defence `{analise: "rejeitado", justificativa}`: the text and
//   the names of the files (Efí's defence takes no files; they stay with feira's dispute).

/** How far back each round lists infractions: the MED lets the payer's bank report a Pix for 80 days. */
const LIST_WINDOW_DAYS = 90;
const DAY_MS = 86_400_000;
const PAGE_SIZE = 1000;
/** Pages read in one listing at most (a round that stops early reads the rest next time). */
const MAX_PAGES = 10;

export interface EfiInfracao {
  idInfracao?: string;
  endToEndId?: string;
  valor?: string;
  status?: string;
  razao?: string;
  dadosAnalise?: { abertura?: string; prazoFinalizacao?: string };
  criadoEm?: string;
}

const OUTCOME: Readonly<Record<string, FoundDispute["outcome"]>> = {
  ABERTA: "needs_response", EM_DEFESA: "under_review", ACEITA: "lost", REJEITADA: "won", CANCELADA_EFI: "won",
};

/** An infraction as feira's dispute (its payment still to be named); null when it is not one feira can read. */
function disputeOf(i: EfiInfracao): Omit<FoundDispute, "chargeRef"> | null {
  const outcome = OUTCOME[i.status ?? ""];
  const amountMinor = efiCents(i.valor);
  if (!i.idInfracao || !outcome || amountMinor === null) return null;
  return {
    outcome, disputeRef: i.idInfracao, kind: "pix_med", amountMinor, reason: "fraud",
    evidenceDueBy: parseInstant(i.dadosAnalise?.prazoFinalizacao) ?? null,
  };
}

export function createEfiInfractions(client: EfiClient) {
  /** Every infraction Efí lists in [inicio, fim], page after page; a failure when a page has no answer. */
  async function list(inicio: Date, fim: Date): Promise<EfiInfracao[] | ProcessorFailure> {
    const all: EfiInfracao[] = [];
    for (let pagina = 0; pagina < MAX_PAGES; pagina++) {
      const r = await client.listInfractions({ inicio: inicio.toISOString(), fim: fim.toISOString(), pagina, porPagina: PAGE_SIZE });
      if (!r.ok) return r.failure;
      const body = (r.body ?? {}) as { infracoes?: unknown; parametros?: { paginacao?: { quantidadeDePaginas?: unknown } } };
      if (Array.isArray(body.infracoes)) all.push(...(body.infracoes as EfiInfracao[]));
      const pages = body.parametros?.paginacao?.quantidadeDePaginas;
      if (typeof pages !== "number" || pagina + 1 >= pages) break;
    }
    return all;
  }

  /** The txid the Pix `e2eid` paid (a cob's or a cobr's), or null. */
  async function txidOf(e2eid: string): Promise<string | null> {
    const r = await client.getPix(e2eid);
    const txid = r.ok ? (r.body as { txid?: unknown } | null)?.txid : undefined;
    return typeof txid === "string" && txid !== "" ? txid : null;
  }

  const recent: NonNullable<DisputeCapability["recent"]> = async ({ now }) => {
    const found = await list(new Date(now.getTime() - LIST_WINDOW_DAYS * DAY_MS), now);
    if (!Array.isArray(found)) return { outcome: "unknown", failure: found };
    const disputes: ListedDispute[] = [];
    for (const i of found) {
      const d = disputeOf(i);
      const e2eid = i.endToEndId;
      if (d && e2eid) disputes.push({ ...d, chargeRef: () => txidOf(e2eid) });
    }
    return { outcome: "read", disputes };
  };

  /** The merchant's evidence as the receiver's defence: the infraction is contested. */
  async function submitEvidence(input: { disputeRef: string; text: string; files: { name: string }[] }): Promise<EvidenceResult> {
    const names = input.files.map((f) => f.name).join(", ");
    const justificativa = names ? `${input.text}\n\n(${input.files.length} file(s) kept with the dispute: ${names})` : input.text;
    const r = await client.defendInfraction(input.disputeRef, { analise: "rejeitado", justificativa });
    if (r.ok) return { outcome: "submitted" };
    const f = r.failure;
    if (f.status === 404) return { outcome: "not_found" };
    return f.kind === "http_4xx" ? { outcome: "refused", message: f.message } : { outcome: "unknown", failure: f };
  }

  /**
   * A cob read whose Pix went back unasked (statuses.ts: charged_back with a dispute per
   * devolução) matched to the infraction of that Pix: the infraction's dispute is what the
   * money closed (lost), not a second one. A devolução with no infraction (none listed, or only
   * rejected or cancelled ones) stays a lost pix_med of its own. No answer from Efí: unknown, so
   * nothing is decided on a guess.
   */
  async function matchDevolucoes(state: LookupResult, cob: EfiCob, now: Date): Promise<LookupResult> {
    const pix = paidPix(cob);
    if (state.outcome !== "charged_back" || !state.disputes || !pix?.endToEndId) return state;
    const since = parseInstant(pix.horario) ?? parseInstant(cob.calendario?.criacao) ?? new Date(now.getTime() - LIST_WINDOW_DAYS * DAY_MS);
    const found = await list(new Date(since.getTime() - 60_000), now);
    if (!Array.isArray(found)) return { outcome: "unknown", failure: found };
    const infractions = found.filter((i) => i.endToEndId === pix.endToEndId && i.status !== "REJEITADA" && i.status !== "CANCELADA_EFI");
    const matched = infractions.map(disputeOf).filter((d): d is Omit<FoundDispute, "chargeRef"> => d !== null);
    if (matched.length === 0) return state;
    return { ...state, disputes: matched.map((d) => ({ ...d, outcome: "lost" as const, chargeRef: state.pspRefId })) };
  }

  return { recent, submitEvidence, matchDevolucoes };
}
