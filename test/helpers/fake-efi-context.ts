import type { ApiRequest, Reply } from "./fake-provider.js";
import type { Clock, Obj } from "./fake-efi-model.js";

// What the Efí fake's route files share: the account, the clock, the stored objects, and the
// notices. Each route file adds its routes to one table; fake-efi.ts matches a request against it.

export interface Cob extends Obj { txid: string; status: string; valor: { original: string }; chave: string; calendario: { criacao: string; expiracao: number }; revisao: number; pix?: PixReceived[] }
export interface Devolucao extends Obj { id: string; rtrId: string; valor: string; natureza?: string; status: string; horario: { solicitacao: string; liquidacao?: string }; motivo?: string }
export interface PixReceived extends Obj { endToEndId: string; txid?: string; chave?: string; valor: string; horario: string; devolucoes?: Devolucao[] }
export interface Send extends Obj { idEnvio: string; endToEndId: string; valor: string; chave: string; status: string; horario: { solicitacao: string; liquidacao?: string }; devolucoes?: Devolucao[] }
export interface Rec extends Obj { idRec: string; status: string; politicaRetentativa: string; calendario: { dataInicial: string; dataFinal?: string; periodicidade: string }; valor?: { valorRec?: string }; atualizacao: { status: string; data: string }[] }
export interface CobR extends Obj { idRec: string; txid: string; status: string; calendario: { criacao: string; dataDeVencimento: string }; valor: { original: string }; politicaRetentativa: string; atualizacao: { status: string; data: string }[]; tentativas: Obj[] }

/** How a devolução or a send ends: at once after the answer ("auto"), or when a test says ("manual"). */
export type SettleMode = "auto" | "manual";

export interface EfiContext {
  now: Clock;
  pixKey: string;
  merchant: { name: string; city: string; cnpj: string };
  /** The account's bank details (DadosBancariosRecebedor): a cobr's `recebedor` must name this account. */
  account: { conta: string; agencia: string; tipoConta: string };
  cobs: Map<string, Cob>;
  pix: Map<string, PixReceived>;
  sends: Map<string, Send>;
  recs: Map<string, Rec>;
  cobrs: Map<string, CobR>;
  /** MED infractions on received Pix (fake-efi-infractions.ts), by idInfracao. */
  infracoes: Map<string, Obj>;
  modes: {
    devolucao: SettleMode; send: SettleMode; duplicateDevolucao: "bcb-400" | "efi-409"; sendNeedsWebhook: boolean;
    /** The next send lands (is made, and answered) this many ms after it arrives; meanwhile a send under its idEnvio is refused (422). */
    sendLandingMs?: number;
  };
  /** Posts a notice to the URL registered for that kind (+ "/pix", "/rec" or "/cobr"), or records it as not sent. */
  notify(kind: "pix" | "rec" | "cobr", body: Obj, label: string, key?: string): void;
  hasPixWebhook(key: string): boolean;
  /** Called when a cob is paid (journey 3 approves its recurrence). */
  onCobPaid: ((cob: Cob) => void)[];
}

/**
 * A route, and the OAuth scope its call needs where a source names one (the Central Bank's
 * OpenAPI `security`, Efí's "Requires authorization for the scope"): a token without it is
 * answered 403 AcessoNegado.
 */
/** A Pix the account received by its end-to-end id: a cob's (the pix map) or a Pix Automático cobr's (its pix[]). */
export function receivedPix(ctx: EfiContext, e2eid: string): PixReceived | undefined {
  const p = ctx.pix.get(e2eid);
  if (p) return p;
  for (const c of ctx.cobrs.values()) {
    const found = (c.pix as PixReceived[] | undefined)?.find((x) => x.endToEndId === e2eid);
    if (found) return found;
  }
  return undefined;
}

export type Route = [method: string, path: RegExp, handle: (req: ApiRequest, m: RegExpExecArray) => Reply | Promise<Reply>, scope?: string];

/** A test-control move: the object it changed, or why it could not (answered 409 by the control API). */
export type Move = Obj | string;
export const moveReply = (out: Move): Reply => (typeof out === "string" ? { status: 409, body: { message: out } } : { status: 200, body: out });
