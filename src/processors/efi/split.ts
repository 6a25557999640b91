import { badResponse, createFailureResult } from "../adapter-results.js";
import type { AuthorizeInput, AuthorizeResult, ProcessorFailure } from "../processor.js";
import { sharesAt, type ProviderSplit } from "../provider-split.js";
import { efiIds, type EfiClient } from "./client.js";
import { efiValor } from "./statuses.js";

// Efí's split de pagamento Pix (docs/processors.md, "Split dialects", Efí): a split
// configuration (PUT /v2/gn/split/config/{id}) names each seller's own Efí account
// (`favorecido.{cnpj, conta}`) and its part, and is linked to the charge's cob (PUT
// /v2/gn/split/cob/{txid}/vinculo/{id}) before the BR Code is shown; Efí then pays each part
// into its account when the Pix arrives. feira sends FIXED parts (`tipo: "fixo"`) in reais
// from the cents it computed, the operator's part (`minhaParte`) the rest of the amount, so
// that the parts add up to the cob's value and both books agree to the cent. The issuing
// account bears Efí's fee whole (`divisaoTarifa: "assumir_total"`): a seller's part reaches it
// as feira booked it. The configuration's id is derived from the charge's, so a retry or a
// lost answer finds the same configuration: it is read back, never made twice.

export type EfiSplitStep = { ok: true; id: string } | { ok: false; result: AuthorizeResult };

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
    if (!r.ok) return { ok: false, result: createFailureResult(r.failure) };
    return configId(r.body) === id || r.body === null || r.body === undefined
      ? { ok: true, id }
      : { ok: false, result: { outcome: "unknown", failure: badResponse("the processor's split configuration came back under another id") } };
  }

  /**
   * The vínculo of the configuration to the cob. Whatever the answer, a failure is settled by
   * reading the cob's split back (GET /v2/gn/split/cob/{txid}): linked to this configuration
   * (an earlier attempt's link, or a lost answer) is done; anything else is a failure.
   */
  async function link(txid: string, id: string): Promise<{ ok: true } | { ok: false; failure: ProcessorFailure }> {
    const r = await client.linkSplit(txid, id);
    if (r.ok) return { ok: true };
    const back = await client.getCobSplit(txid);
    if (back.ok && linkedConfig(back.body) === id) return { ok: true };
    return { ok: false, failure: r.failure };
  }

  /**
   * A cob whose split could not be linked is removed, so that nobody pays the whole amount into
   * the operator's account while feira books the sellers' parts at Efí: the charge then failed
   * (nothing payable), or stays unknown when even the removal got no answer.
   */
  async function unlinkable(txid: string, failure: ProcessorFailure): Promise<AuthorizeResult> {
    const removed = await client.reviseCob(txid, { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" });
    return removed.ok ? { outcome: "failed", reason: "processing_error", failure, ...(failure.providerCode ? { providerCode: failure.providerCode } : {}) } : { outcome: "unknown", failure };
  }

  return { configure, link, unlinkable };
}
