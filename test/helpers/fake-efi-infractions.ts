import { randomBytes } from "node:crypto";
import { cents, efiError, iso, obj, problem, type Obj } from "./fake-efi-model.js";
import { receivedPix, type EfiContext, type Move, type Route } from "./fake-efi-context.js";
import type { ApiRequest, Reply } from "./fake-provider.js";

// Efí's MED infractions (its own endpoints, from its official Node SDK 1.2.28: medList is GET
// /v2/gn/infracoes with `inicio` and `fim`, medDefense is POST /v2/gn/infracoes/{idInfracao}/defesa
// with `{analise: "aceito" | "rejeitado", justificativa}`; the infraction's fields and statuses
// are its type in pix.d.ts). The payer's bank reports a received Pix (ABERTA); the receiver
// defends it (EM_DEFESA) or accepts it; Efí decides: ACEITA returns the money by a devolução
// whose nature is left out (Efí documents none), REJEITADA or CANCELADA_EFI keep it. The list
// filters by the infraction's creation time and pages as the API Pix's lists do
// (`paginacao.paginaAtual`, `paginacao.itensPorPagina`). No scope is named for these endpoints in
// the sources read, so none is asked for here.

type Decision = "ACEITA" | "REJEITADA" | "CANCELADA_EFI";
const DAY_MS = 86_400_000;

export function infractionRoutes(ctx: EfiContext, returnPix: (e2eid: string, valor: string) => Move) {
  const invalid = (detail: string, propriedade: string) => problem(400, "RequisicaoInvalida", "Requisição inválida.", detail, [{ razao: detail, propriedade }]);

  function list(req: ApiRequest): Reply {
    const inicio = Date.parse(req.query.get("inicio") ?? "");
    const fim = Date.parse(req.query.get("fim") ?? "");
    if (Number.isNaN(inicio)) return invalid("O parâmetro inicio é obrigatório e deve ser uma data RFC 3339", "inicio");
    if (Number.isNaN(fim) || fim < inicio) return invalid("O parâmetro fim é obrigatório e não pode ser anterior a inicio", "fim");
    const page = Number(req.query.get("paginacao.paginaAtual") ?? 0);
    const size = Number(req.query.get("paginacao.itensPorPagina") ?? 100);
    if (!Number.isSafeInteger(page) || page < 0 || !Number.isSafeInteger(size) || size < 1 || size > 1000) return invalid("paginação inválida", "paginacao");
    const within = [...ctx.infracoes.values()].filter((i) => {
      const at = Date.parse(String(i.criadoEm));
      return at >= inicio && at <= fim;
    });
    return {
      status: 200,
      body: {
        parametros: {
          inicio: iso(new Date(inicio)), fim: iso(new Date(fim)),
          paginacao: { paginaAtual: page, itensPorPagina: size, quantidadeDePaginas: Math.max(1, Math.ceil(within.length / size)), quantidadeTotalDeItens: within.length },
        },
        infracoes: within.slice(page * size, (page + 1) * size),
      },
    };
  }

  function defend(req: ApiRequest, id: string): Reply {
    const i = ctx.infracoes.get(id);
    if (!i) return problem(404, "NaoEncontrado", "Não Encontrado", "Infração não encontrada.");
    const b = obj(req.json) ?? {};
    if (b.analise !== "aceito" && b.analise !== "rejeitado") return invalid("analise deve ser aceito ou rejeitado", "analise");
    if (typeof b.justificativa !== "string" || b.justificativa.trim() === "") return invalid("justificativa é obrigatória", "justificativa");
    if (i.status !== "ABERTA") return efiError(400, "infracao_status_invalido", "A infração não está aberta para defesa");
    if (ctx.now().getTime() > Date.parse(String(obj(i.dadosAnalise)!.prazoFinalizacao))) return efiError(400, "prazo_expirado", "O prazo para defesa da infração expirou");
    const at = iso(ctx.now());
    Object.assign(i, { status: "EM_DEFESA", defesa: b.justificativa, atualizadoEm: at, dadosAnalise: { ...obj(i.dadosAnalise), recebimentoDefesa: at } });
    // A receiver that accepts the report returns the money at once.
    if (b.analise === "aceito") decide(id, "ACEITA");
    return { status: 204 };
  }

  /** Efí's decision: ACEITA returns what the infraction names to the payer (a devolução without natureza). */
  function decide(id: string, status: Decision): Move {
    const i = ctx.infracoes.get(id);
    if (!i) return "infraction not found";
    if (i.status !== "ABERTA" && i.status !== "EM_DEFESA") return `infraction is ${String(i.status)}, already decided`;
    if (status === "ACEITA") {
      const returned = returnPix(String(i.endToEndId), String(i.valor));
      if (typeof returned === "string") return returned;
    }
    const at = iso(ctx.now());
    Object.assign(i, { status, atualizadoEm: at, dadosAnalise: { ...obj(i.dadosAnalise), finalizacao: at } });
    return i;
  }

  const routes: Route[] = [
    ["GET", /^\/v2\/gn\/infracoes$/, (req) => list(req)],
    ["POST", /^\/v2\/gn\/infracoes\/([^/]+)\/defesa$/, (req, m) => defend(req, decodeURIComponent(m[1]!))],
  ];

  const moves = {
    /** The payer's bank reports a received Pix (a cob's or a cobr's): an ABERTA infraction with Efí's deadline. */
    openInfraction(e2eid: string, opts: { valor?: string; prazoDias?: number } = {}): Move {
      const p = receivedPix(ctx, e2eid);
      if (!p) return "pix not found";
      const valor = opts.valor ?? p.valor;
      if (cents(valor) === undefined || cents(valor)! > cents(p.valor)!) return "valor must be at most the Pix's";
      const at = ctx.now();
      const i: Obj = {
        idInfracao: randomBytes(8).toString("hex"), endToEndId: e2eid, protocolo: randomBytes(6).toString("hex").toUpperCase(),
        dataTransacao: p.horario, valor, chave: ctx.pixKey, status: "ABERTA", razao: "Suspeita de fraude relatada pelo PSP do pagador",
        tipoSituacao: "golpe", identificadorTicket: [ctx.infracoes.size + 1],
        dadosAnalise: { abertura: iso(at), prazoFinalizacao: iso(new Date(at.getTime() + (opts.prazoDias ?? 7) * DAY_MS)) },
        origem: { nomeParticipante: "Banco do Pagador", conta: "0001-1", nome: "Pagador", documento: "***.456.789-**" },
        destino: { nomeParticipante: "Efí S.A.", conta: "0002-2", nome: ctx.merchant.name, documento: ctx.merchant.cnpj },
        criadoEm: iso(at), atualizadoEm: iso(at),
      };
      ctx.infracoes.set(String(i.idInfracao), i);
      return i;
    },
    decideInfraction: decide,
  };
  return { routes, moves };
}
export type InfractionMoves = ReturnType<typeof infractionRoutes>["moves"];
