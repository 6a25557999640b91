import { endToEndIdProblem } from "../../lib/pix-end-to-end-id.js";
import type { PayoutCapability, TransferState } from "../processor.js";
import type { EfiClient } from "./client.js";
import { efiValor } from "./statuses.js";

// Payouts through Efí's Pix send (PUT /v3/gn/pix/{idEnvio}; read back by
// GET /v2/gn/pix/enviados/id-envio/{idEnvio}), from the operator's key (EFI_PIX_KEY) to the
// submerchant's CNPJ key. idEnvio is the transfer id feira committed before the call (derived
// from the payout): Efí answers 409 to a second send under it, which is then read back. Efí's
// statuses: EM_PROCESSAMENTO (sending), REALIZADO (sent, with the end-to-end id), NAO_REALIZADO
// (failed, with gnExtras.erro's code and reason). A send Efí refuses with another 4xx made
// nothing by this call, but says nothing of an earlier call under the same idEnvio that may still
// land: it is `refused`, and the core judges the transfer by reading it back once every call has
// ended. A 401 or 403 (feira's credentials or the pix.send scope refused, also when the token's
// renewal fails) is about the account, not the transfer: no answer to rely on, retried.
// Money the receiving bank sends back ("devoluções recebidas" on the send) is read from the
// send's `devolucoes`, as on a received Pix: the sum of those DEVOLVIDO (docs/processors.md).

type Send = {
  status?: unknown; endToEndId?: unknown; e2eId?: unknown;
  gnExtras?: { erro?: { codigo?: unknown; motivo?: unknown } };
  devolucoes?: unknown;
};

/** Efí's reason for a failed send, as text feira keeps: its code and reason, printable and bounded. */
function reasonOf(erro: { codigo?: unknown; motivo?: unknown } | undefined): string {
  const text = [erro?.codigo, erro?.motivo].filter((v): v is string => typeof v === "string" && v !== "").join(" ");
  return text.replace(/[^\p{L}\p{N}\p{P}\p{Zs}]/gu, "").slice(0, 200) || "NAO_REALIZADO";
}

/** Cents the receiving bank sent back: the devoluções on the send that are DEVOLVIDO; undefined when unreadable. */
function returnedOf(devolucoes: unknown): number | undefined {
  if (devolucoes === undefined || devolucoes === null) return 0;
  if (!Array.isArray(devolucoes)) return undefined;
  let total = 0;
  for (const d of devolucoes as { status?: unknown; valor?: unknown }[]) {
    if (d?.status !== "DEVOLVIDO") continue;
    if (typeof d.valor !== "string" || !/^\d{1,10}\.\d{2}$/.test(d.valor)) return undefined;
    total += Number(d.valor.replace(".", ""));
  }
  return total;
}

/** A send as Efí answers it (the PUT's `e2eId`, the GET's `endToEndId`), in feira's terms. */
export function transferStateOf(body: unknown): TransferState {
  const s = (body && typeof body === "object" ? body : {}) as Send;
  const e2e = [s.endToEndId, s.e2eId].find((v): v is string => typeof v === "string");
  switch (s.status) {
    case "EM_PROCESSAMENTO":
      return { outcome: "sending" };
    case "REALIZADO": {
      if (!e2e || endToEndIdProblem(e2e)) return { outcome: "unknown", failure: { kind: "bad_response", message: "the processor reported the send done without a valid end-to-end id" } };
      const returnedMinor = returnedOf(s.devolucoes);
      if (returnedMinor === undefined) return { outcome: "unknown", failure: { kind: "bad_response", message: "the processor's send had unreadable devolucoes" } };
      return { outcome: "sent", endToEndId: e2e, returnedMinor };
    }
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
    // "Para melhorar o desempenho do serviço e evitar conflitos de saldo, recomendamos que o envio
    // de Pix por API seja condicionado à conclusão da transação anterior" (Efí, "Envio de Pix").
    oneAtATime: true,
    async send(t) {
      if (t.currency !== "BRL") return { outcome: "refused", reason: `Pix sends BRL only, not ${t.currency}` };
      const r = await client.send(t.transferId, {
        valor: efiValor(t.amountMinor),
        pagador: { chave: pixKey, infoPagador: `Payout ${t.payoutId}` },
        favorecido: { chave: t.pixKey },
      });
      if (r.ok) return transferStateOf(r.body);
      // Efí has a send under this idEnvio already (an earlier attempt whose answer was lost): read it.
      if (r.failure.status === 409) return read(t);
      if (r.failure.status === 401 || r.failure.status === 403) return { outcome: "unknown", failure: r.failure };
      if (r.failure.kind === "http_4xx") return { outcome: "refused", reason: `the processor refused the send (code ${r.failure.providerCode ?? r.failure.status})` };
      return { outcome: "unknown", failure: r.failure };
    },
    read,
  };
}
