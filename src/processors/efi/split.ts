import { faultPoint } from "../../lib/faults.js";
import { badResponse, createFailureResult } from "../adapter-results.js";
import type { AuthorizeInput, AuthorizeResult, ProcessorFailure } from "../processor.js";
import { sharesAt, type ProviderSplit } from "../provider-split.js";
import { efiIds, type EfiClient } from "./client.js";
import { efiValor } from "./statuses.js";

// Efí's split de pagamento Pix (docs/processors.md, "Split dialects", Efí): a split
// configuration (PUT /v2/gn/split/config/{id}) names each seller's own Efí account
// (`favorecido.{cnpj, conta}`) and its part, and is linked to the charge's cob (PUT
// /v2/gn/split/cob/{txid}/vinculo/{id}), or cobv for a Pix with a due date (PUT
// /v2/gn/split/cobv/{txid}/vinculo/{id}), before the BR Code is shown; Efí then pays each part
// into its account when the Pix arrives. feira sends FIXED parts (`tipo: "fixo"`) in reais
// from the cents it computed, the operator's part (`minhaParte`) the rest of the amount, so
// that the parts add up to the cob's value and both books agree to the cent. The issuing
// account bears Efí's fee whole (`divisaoTarifa: "assumir_total"`): a seller's part reaches it
// as feira booked it. The configuration's id is derived from the charge's, so a retry or a
// lost answer finds the same configuration: it is read back, never made twice.

/** Where a charge's Pix lives at Efí: a cob, or a cobv for a Pix with a due date (cobv.ts). */
export type EfiPixKind = "cob" | "cobv";

export type EfiSplitStep = { ok: true; id: string } | { ok: false; result: AuthorizeResult; failure: ProcessorFailure };
/** The configuration of a charge's split, in Efí's terms. */
export function splitConfigBody(input: AuthorizeInput, split: ProviderSplit): Record<string, unknown> {
  const shares = sharesAt(split, "efi");
  // The charge path refused the split before any call unless every seller has an account here.
  if (!shares) throw new Error(`charge ${input.chargeId}: a seller of the split has no account at efi`);
  return {
    descricao: `feira ${input.chargeId}`.slice(0, 80),
    lancamento: { imediato: true },
    split: {
      divisaoTarifa: "assumir_total",
      minhaParte: { tipo: "fixo", valor: efiValor(split.operatorMinor) },
      repasses: shares.map((s) => ({
        tipo: "fixo",
        valor: efiValor(s.amountMinor),
        favorecido: { ...(s.taxId && s.taxId.length === 11 ? { cpf: s.taxId } : { cnpj: s.taxId ?? "" }), conta: s.account },
      })),
    },
  };
}

const configId = (body: unknown) => String((body as { id?: unknown } | null)?.id ?? "");
const linkedConfig = (body: unknown) => String((body as { config?: { id?: unknown } } | null)?.config?.id ?? "");

type Made = Exclude<AuthorizeResult, { outcome: "unknown" }>;
const showsBrCode = (r: AuthorizeResult): r is Made => r.outcome === "pending" || r.outcome === "in_analysis";

export function createEfiSplits(client: EfiClient) {
  /**
   * The charge's split configuration, made or found. A refusal (Efí's 4xx: an account that does
   * not exist or does not match the CNPJ, parts above the value) made nothing and fails the
   * charge before its cob exists; no answer is read back under the same id before one retry.
   */
  async function configure(input: AuthorizeInput & { split: ProviderSplit }): Promise<EfiSplitStep> {
    const id = efiIds.splitConfig(input.chargeId);
    const body = splitConfigBody(input, input.split);
    let r = await client.putSplitConfig(id, body);
    if (!r.ok && createFailureResult(r.failure).outcome === "unknown") {
      const found = await client.getSplitConfig(id);
      if (found.ok && configId(found.body) === id) return { ok: true, id };
      r = await client.putSplitConfig(id, body);
    }
    if (!r.ok) return { ok: false, result: createFailureResult(r.failure), failure: r.failure };
    if (configId(r.body) === id || r.body === null || r.body === undefined) return { ok: true, id };
    const failure = badResponse("the processor's split configuration came back under another id");
    return { ok: false, result: { outcome: "unknown", failure }, failure };
  }

  /**
   * The vínculo of the configuration to the cob (or cobv). Whatever the answer, a failure is
   * settled by reading its split back (GET /v2/gn/split/{cob|cobv}/{txid}): linked to this
   * configuration (an earlier attempt's link, or a lost answer) is done; anything else is a failure.
   */
  async function link(kind: EfiPixKind, txid: string, id: string): Promise<{ ok: true } | { ok: false; failure: ProcessorFailure }> {
    const r = await client.linkSplit(kind, txid, id);
    if (r.ok) return { ok: true };
    const back = await client.getSplitOf(kind, txid);
    if (back.ok && linkedConfig(back.body) === id) return { ok: true };
    return { ok: false, failure: r.failure };
  }

  /**
   * A cob whose split could not be linked is removed, so that nobody pays the whole amount into
   * the operator's account while feira books the sellers' parts at Efí: the charge then failed
   * (nothing payable), or stays unknown when even the removal got no answer.
   */
  async function unlinkable(kind: EfiPixKind, txid: string, failure: ProcessorFailure): Promise<AuthorizeResult> {
    const removal = { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" };
    const removed = kind === "cob" ? await client.reviseCob(txid, removal) : await client.reviseCobv(txid, removal);
    return removed.ok ? { outcome: "failed", reason: "processing_error", failure, ...(failure.providerCode ? { providerCode: failure.providerCode } : {}) } : { outcome: "unknown", failure };
  }

  /** A cob (or cobv) made or found, linked to the configuration `id` before its BR Code is answered; unlinkable, removed. */
  async function attach(kind: EfiPixKind, chargeId: string, id: string, made: Made): Promise<AuthorizeResult> {
    const txid = efiIds.txid(chargeId);
    const linked = await link(kind, txid, id);
    return linked.ok ? made : unlinkable(kind, txid, linked.failure);
  }

  /**
   * A new authorization: without a provider split, `create` alone. With one, the configuration
   * first (refused: no cob is made), then the cob or cobv (`create`), then the vínculo before the
   * BR Code reaches the payer. A process that dies between the cob and the vínculo leaves a cob
   * unlinked: the retry finds it and adopts it through adopt() below, which links it.
   */
  async function authorize(kind: EfiPixKind, input: AuthorizeInput, create: () => Promise<AuthorizeResult>): Promise<AuthorizeResult> {
    if (!input.split) return create();
    const config = await configure({ ...input, split: input.split });
    if (!config.ok) return config.result;
    const made = await create();
    if (!showsBrCode(made)) return made;
    faultPoint("charge.before-split-link");
    return attach(kind, input.chargeId, config.id, made);
  }

  /**
   * A cob or cobv an earlier attempt of this charge made (a retry after a crash or a lost answer,
   * found by lookup), adopted only once its split is linked as a new one's would be: read back
   * first (linked to the charge's configuration: as it is), else the configuration read back or
   * made, then the vínculo; a configuration or a vínculo that cannot be had removes the cob and
   * fails the charge, as the first attempt would have. A Pix already paid cannot have been paid
   * through an unlinked cob: its BR Code reaches a payer only in this charge's answer.
   */
  async function adopt(kind: EfiPixKind, input: AuthorizeInput, found: Made): Promise<AuthorizeResult> {
    // Only a cob still payable (ATIVA) can be linked; one paid, refunded or removed is what it is.
    if (!input.split || found.outcome !== "pending") return found;
    const txid = efiIds.txid(input.chargeId);
    const id = efiIds.splitConfig(input.chargeId);
    const back = await client.getSplitOf(kind, txid);
    if (back.ok && linkedConfig(back.body) === id) return found;
    const existing = await client.getSplitConfig(id);
    if (!(existing.ok && configId(existing.body) === id)) {
      const config = await configure({ ...input, split: input.split });
      if (!config.ok) return unlinkable(kind, txid, config.failure);
    }
    return attach(kind, input.chargeId, id, found);
  }

  return { authorize, adopt };
}
