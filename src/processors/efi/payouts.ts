import { endToEndIdProblem } from "../../lib/pix-end-to-end-id.js";
import type { PayoutCapability, TransferState } from "../processor.js";
import type { EfiClient } from "./client.js";
import { efiValor } from "./statuses.js";

// Payouts through Efí's Pix send (PUT /v3/gn/pix/{idEnvio}; read back by
// GET /v2/gn/pix/enviados/id-envio/{idEnvio}), from the operator's key (EFI_PIX_KEY) to the
// submerchant's CNPJ key. idEnvio is the transfer id feira committed before the call (derived
// from the payout): Efí answers 409 to a second send under it, which is then read back, so a
// retry after a timeout, a 5xx or a crash never makes a second transfer. Efí's statuses:
// EM_PROCESSAMENTO (sending), REALIZADO (sent, with the end-to-end id), NAO_REALIZADO (failed,
// with gnExtras.erro's code and reason). A send Efí refuses (a 4xx other than 409) made nothing.

type Send = {
  status?: unknown; endToEndId?: unknown; e2eId?: unknown;
  gnExtras?: { erro?: { codigo?: unknown; motivo?: unknown } };
};

/** Efí's reason for a failed send, as text feira keeps: its code and reason, printable and bounded. */
function reasonOf(erro: { codigo?: unknown; motivo?: unknown } | undefined): string {
  const text = [erro?.codigo, erro?.motivo].filter((v): v is string => typeof v === "string" && v !== "").join(" ");
  return text.replace(/[^\p{L}\p{N}\p{P}\p{Zs}]/gu, "").slice(0, 200) || "NAO_REALIZADO";
}

/** A send as Efí answers it (the PUT's `e2eId`, the GET's `endToEndId`), in feira's terms. */
export function transferStateOf(body: unknown): TransferState {
  const s = (body && typeof body === "object" ? body : {}) as Send;
  const e2e = [s.endToEndId, s.e2eId].find((v): v is string => typeof v === "string");
  switch (s.status) {
    case "EM_PROCESSAMENTO":
      return { outcome: "sending" };
    case "REALIZADO":
      if (e2e && !endToEndIdProblem(e2e)) return { outcome: "sent", endToEndId: e2e };
      return { outcome: "unknown", failure: { kind: "bad_response", message: "the processor reported the send done without a valid end-to-end id" } };
    case "NAO_REALIZADO":
      return { outcome: "failed", reason: reasonOf(s.gnExtras?.erro) };
    default:
      return { outcome: "unknown", failure: { kind: "bad_response", message: "the processor's send had no known status" } };
  }
}

export function createEfiPayouts(client: Pick<EfiClient, "send" | "getSend">, pixKey: string): PayoutCapability {
  async function read(t: { transferId: string }): Promise<TransferState> {
    const r = await client.getSend(t.transferId);
    if (r.ok) return transferStateOf(r.body);
    return r.failure.status === 404 ? { outcome: "not_found" } : { outcome: "unknown", failure: r.failure };
  }

  return {
    async send(t) {
      if (t.currency !== "BRL") return { outcome: "failed", reason: `Pix sends BRL only, not ${t.currency}` };
      const r = await client.send(t.transferId, {
        valor: efiValor(t.amountMinor),
        pagador: { chave: pixKey, infoPagador: `Payout ${t.payoutId}` },
        favorecido: { chave: t.pixKey },
      });
      if (r.ok) return transferStateOf(r.body);
      // Efí has a send under this idEnvio already (an earlier attempt whose answer was lost): read it.
      if (r.failure.status === 409) return read(t);
      if (r.failure.kind === "http_4xx") return { outcome: "failed", reason: `the processor refused the send (code ${r.failure.providerCode ?? r.failure.status})` };
      return { outcome: "unknown", failure: r.failure };
    },
    read,
  };
}
