import {
  brCode, cents, devedorProblem, e2eId, efiError, EFI_ISPB, ID_1_35, iso, locationUrl, obj, problem, rtrId, TXID, valor, type Obj,
} from "./fake-efi-model.js";
import { receivedPix, type Cob, type Devolucao, type EfiContext, type Move, type PixReceived, type Route, type Send } from "./fake-efi-context.js";
import type { ApiRequest, Reply } from "./fake-provider.js";

// Immediate charges (cob), received Pix with their devoluções (refunds and MED returns), and
// Pix send (Efí's own /gn/pix), per Efí's API Pix documentation and the Central Bank's OpenAPI.

const invalid = (mensagem: string) => efiError(400, "valor_invalido", mensagem);
const cobNotFound = () => efiError(400, "cobranca_nao_encontrada", "Nenhuma cobrança encontrada para o txid informado");
const pixNotFound = () => efiError(400, "pix_nao_encontrado", "Nenhum pix encontrado para o identificador informado");

export function pixRoutes(ctx: EfiContext) {
  const expired = (c: Cob) => ctx.now().getTime() > Date.parse(c.calendario.criacao) + c.calendario.expiracao * 1000;

  function createCob(req: ApiRequest, txid: string): Reply {
    if (!TXID.test(txid)) return problem(400, "CobOperacaoInvalida", "Cobrança inválida.", "O campo txid não respeita o schema.", [{ razao: "txid deve ter de 26 a 35 letras e dígitos", propriedade: "cob.txid" }]);
    const b = obj(req.json) ?? {};
    const amount = cents(obj(b.valor)?.original);
    if (amount === undefined) return invalid("Campo valor.original deve ser maior que zero");
    const expiracao = obj(b.calendario)?.expiracao ?? 86_400;
    if (!Number.isSafeInteger(expiracao) || (expiracao as number) <= 0) return invalid("Campo calendario.expiracao deve ser maior que zero");
    if (b.chave !== ctx.pixKey) return efiError(400, "chave_invalida", "A chave informada não faz referência à conta Efí autenticada");
    const dev = devedorProblem(b.devedor, false);
    if (dev) return invalid(dev);
    if (ctx.cobs.has(txid)) return efiError(409, "txid_duplicado", "Campo txid informado já foi utilizado em outra cobrança");
    const at = ctx.now();
    const location = locationUrl("cob");
    const cob: Cob = {
      calendario: { criacao: iso(at), expiracao: expiracao as number }, txid, revisao: 0,
      loc: { id: ctx.cobs.size + 1, location, tipoCob: "cob", criacao: iso(at) }, location, status: "ATIVA",
      ...(b.devedor ? { devedor: b.devedor } : {}), valor: { original: valor(amount) }, chave: ctx.pixKey,
      ...(typeof b.solicitacaoPagador === "string" ? { solicitacaoPagador: b.solicitacaoPagador } : {}),
      ...(Array.isArray(b.infoAdicionais) ? { infoAdicionais: b.infoAdicionais } : {}),
      pixCopiaECola: brCode({ cobLocation: location, merchantName: ctx.merchant.name, merchantCity: ctx.merchant.city }),
    };
    ctx.cobs.set(txid, cob);
    return { status: 201, body: cob };
  }

  function reviseCob(req: ApiRequest, cob: Cob): Reply {
    const b = obj(req.json) ?? {};
    if (cob.status !== "ATIVA") return efiError(400, "status_cobranca_invalido", "A cobrança não está mais com o status ATIVA");
    if (b.status !== undefined) {
      if (b.status !== "REMOVIDA_PELO_USUARIO_RECEBEDOR") return problem(400, "CobOperacaoInvalida", "Operação inválida.", "O campo cob.status não respeita o schema.", [{ razao: "só REMOVIDA_PELO_USUARIO_RECEBEDOR", propriedade: "cob.status" }]);
      if (Object.keys(b).length > 1) return problem(400, "CobOperacaoInvalida", "Operação inválida.", "Não é possível remover uma cobrança e alterá-la na mesma requisição.");
      Object.assign(cob, { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR", revisao: cob.revisao + 1 });
      return { status: 200, body: cob };
    }
    const amount = obj(b.valor) ? cents(obj(b.valor)!.original) : cents(cob.valor.original);
    if (amount === undefined) return invalid("Campo valor.original deve ser maior que zero");
    const expiracao = obj(b.calendario)?.expiracao ?? cob.calendario.expiracao;
    if (!Number.isSafeInteger(expiracao) || (expiracao as number) < 1) return invalid("Campo calendario.expiracao deve ser maior ou igual a 1");
    Object.assign(cob, { valor: { original: valor(amount) }, calendario: { ...cob.calendario, expiracao }, revisao: cob.revisao + 1 });
    if (typeof b.solicitacaoPagador === "string") cob.solicitacaoPagador = b.solicitacaoPagador;
    return { status: 200, body: cob };
  }

  /**
   * A cob as GET /v2/cob/{txid} answers it: Efí's documentation and its SDK's type (1.2.28,
   * pixDetailCharge) write `calendario.expiracao` as a string ("3600"), where the Central Bank's
   * OpenAPI and Efí's answers to PUT and PATCH have a number.
   */
  const asRead = (c: Cob): Obj => ({ ...c, calendario: { ...c.calendario, expiracao: String(c.calendario.expiracao) } });

  const sum = (ds: Devolucao[]) => ds.filter((d) => d.status !== "NAO_REALIZADO").reduce((s, d) => s + cents(d.valor)!, 0);

  /** Moves a devolução to its final status and sends the notice the OpenAPI asks for then. */
  function settleDevolucao(p: PixReceived, d: Devolucao, ok: boolean, motivo = "Devolução não realizada pelo PSP do pagador"): void {
    Object.assign(d, ok ? { status: "DEVOLVIDO", horario: { ...d.horario, liquidacao: iso(ctx.now()) } } : { status: "NAO_REALIZADO", motivo });
    ctx.notify("pix", { pix: [{ ...p, devolucoes: [d] }] }, `devolucao.${d.status}`, p.chave);
  }

  function devolver(req: ApiRequest, e2eid: string, id: string): Reply {
    const p = ctx.pix.get(e2eid);
    if (!p) return pixNotFound();
    const invalidDevolucao = (razao: string, propriedade: string) =>
      problem(400, "PixDevolucaoInvalida", "Devolução inválida.", "A presente requisição de devolução não respeita o schema ou não faz sentido semanticamente.", [{ razao, propriedade }]);
    if (!ID_1_35.test(id)) return invalidDevolucao("O id deve ter de 1 a 35 letras e dígitos", "id");
    p.devolucoes ??= [];
    if (p.devolucoes.some((d) => d.id === id)) {
      return ctx.modes.duplicateDevolucao === "efi-409"
        ? efiError(409, "devolucao_id_duplicado", "O id informado já foi utilizado em outra devolução")
        : invalidDevolucao("A presente requisição de devolução apresenta um id já utilizado por outra requisição de devolução para o e2eid em questão.", "id");
    }
    const b = obj(req.json) ?? {};
    const amount = cents(b.valor);
    if (amount === undefined) return invalidDevolucao("O campo devolucao.valor não respeita o schema.", "devolucao.valor");
    const natureza = b.natureza ?? "ORIGINAL";
    if (natureza !== "ORIGINAL" && natureza !== "RETIRADA") return invalidDevolucao("natureza deve ser ORIGINAL ou RETIRADA", "devolucao.natureza");
    if (amount + sum(p.devolucoes) > cents(p.valor)!) return invalidDevolucao("A devolução, com as anteriores, excederia o valor do pix originário.", "devolucao.valor");
    const d: Devolucao = { id, rtrId: rtrId(ctx.now()), valor: valor(amount), natureza, horario: { solicitacao: iso(ctx.now()) }, status: "EM_PROCESSAMENTO" };
    if (typeof b.descricao === "string") d.descricao = b.descricao;
    p.devolucoes.push(d);
    if (ctx.modes.devolucao === "auto") req.afterReply(() => settleDevolucao(p, d, true));
    return { status: 201, body: structuredClone(d) };
  }

  /** Sends whose request arrived and that are not made yet (sendLandingMs), each with what lands it now. */
  const landing = new Map<string, () => void>();

  function send(req: ApiRequest, idEnvio: string): Reply | Promise<Reply> {
    if (!ID_1_35.test(idEnvio)) return invalid("Campo idEnvio deve ter de 1 a 35 letras e dígitos");
    const b = obj(req.json) ?? {};
    const amount = cents(b.valor);
    if (amount === undefined) return invalid("Campo valor deve ser maior que zero");
    if (obj(b.pagador)?.chave !== ctx.pixKey) return efiError(400, "chave_invalida", "A chave informada não faz referência à conta Efí autenticada");
    const fav = obj(b.favorecido);
    if (typeof fav?.chave !== "string" || fav.chave === "" || fav.chave.length > 77) return invalid("Campo favorecido.chave é obrigatório");
    if (ctx.modes.sendNeedsWebhook && !ctx.hasPixWebhook(ctx.pixKey)) return efiError(400, "webhook_nao_cadastrado", "A chave do pagador precisa ter um webhook associado para envio de Pix");
    // Efí asks for one send at a time and warns that sends made together may fail ("Envio de Pix");
    // its documented refusal of a send by analysis is 422 pagamento_negado.
    if (landing.has(idEnvio)) return efiError(422, "pagamento_negado", "Pagamento negado por análises");
    if (ctx.sends.has(idEnvio)) return efiError(409, "id_envio_duplicado", "O id de envio informado já foi utilizado em outro pagamento");
    const delay = ctx.modes.sendLandingMs ?? 0;
    if (delay > 0) {
      ctx.modes.sendLandingMs = 0;
      // A send that lands late (after `delay`, or when landSend says): made, and in auto mode
      // finished, when it lands, whether or not its client still waits.
      return new Promise<Reply>((resolve) => {
        const land = () => {
          clearTimeout(timer);
          landing.delete(idEnvio);
          const reply = makeSend(req, idEnvio, b, amount, fav.chave as string, false);
          if (ctx.modes.send === "auto") finishSend(ctx.sends.get(idEnvio)!, true);
          resolve(reply);
        };
        const timer = setTimeout(land, delay);
        landing.set(idEnvio, land);
      });
    }
    return makeSend(req, idEnvio, b, amount, fav.chave, ctx.modes.send === "auto");
  }

  function makeSend(req: ApiRequest, idEnvio: string, b: Obj, amount: number, chave: string, finishAfterReply: boolean): Reply {
    const fav = obj(b.favorecido)!;
    const at = ctx.now();
    const s: Send = {
      endToEndId: e2eId(at, EFI_ISPB), idEnvio, valor: valor(amount), chave: ctx.pixKey, status: "EM_PROCESSAMENTO",
      ...(typeof obj(b.pagador)!.infoPagador === "string" ? { infoPagador: obj(b.pagador)!.infoPagador } : {}),
      horario: { solicitacao: iso(at) }, favorecido: { chave, identificacao: { nome: "Favorecido do fake", ...(typeof fav.cnpj === "string" ? { cnpj: fav.cnpj } : {}) } },
    };
    ctx.sends.set(idEnvio, s);
    if (finishAfterReply) req.afterReply(() => finishSend(s, true));
    return { status: 201, body: { idEnvio, e2eId: s.endToEndId, valor: s.valor, horario: { solicitacao: s.horario.solicitacao }, status: s.status } };
  }

  function finishSend(s: Send, ok: boolean, motivo = "Número da agência e/ou conta transacional do usuário recebedor inexistente ou inválido"): void {
    const erro = { codigo: "AC03", origem: "PSP do usuário recebedor", motivo };
    Object.assign(s, ok ? { status: "REALIZADO", horario: { ...s.horario, liquidacao: iso(ctx.now()) } } : { status: "NAO_REALIZADO", gnExtras: { erro } });
    const item: Obj = { endToEndId: s.endToEndId, chave: s.chave, tipo: "SOLICITACAO", status: s.status, valor: s.valor, horario: s.horario.liquidacao ?? null, gnExtras: { idEnvio: s.idEnvio, ...(ok ? {} : { erro }) } };
    ctx.notify("pix", { pix: [item] }, `envio.${s.status}`, s.chave);
  }
  const sentNotFound = (by: string) => problem(404, "PixEnviadoNaoEncontrado", "Não Encontrado", `Pix enviado não encontrado para o ${by} informado.`);

  const routes: Route[] = [
    ["PUT", /^\/v2\/cob\/([^/]+)$/, (req, m) => createCob(req, m[1]!)],
    ["GET", /^\/v2\/cob\/([^/]+)$/, (_req, m) => (ctx.cobs.has(m[1]!) ? { status: 200, body: asRead(ctx.cobs.get(m[1]!)!) } : cobNotFound())],
    ["PATCH", /^\/v2\/cob\/([^/]+)$/, (req, m) => (ctx.cobs.has(m[1]!) ? reviseCob(req, ctx.cobs.get(m[1]!)!) : cobNotFound())],
    ["GET", /^\/v2\/pix\/([^/]+)$/, (_req, m) => { const p = receivedPix(ctx, m[1]!); return p ? { status: 200, body: p } : pixNotFound(); }],
    ["PUT", /^\/v2\/pix\/([^/]+)\/devolucao\/([^/]+)$/, (req, m) => devolver(req, m[1]!, m[2]!)],
    ["GET", /^\/v2\/pix\/([^/]+)\/devolucao\/([^/]+)$/, (_req, m) => {
      const p = ctx.pix.get(m[1]!);
      const d = p?.devolucoes?.find((x) => x.id === m[2]);
      return !p ? pixNotFound() : d ? { status: 200, body: d } : efiError(400, "devolucao_nao_encontrada", "Nenhuma devolução encontrada para o identificador informado");
    }],
    // The SDK's pixSend is /v3; Efí's earlier documentation has /v2: the same operation.
    ["PUT", /^\/v[23]\/gn\/pix\/([^/]+)$/, (req, m) => send(req, m[1]!)],
    ["GET", /^\/v2\/gn\/pix\/enviados\/id-envio\/([^/]+)$/, (_req, m) => (ctx.sends.has(m[1]!) ? { status: 200, body: ctx.sends.get(m[1]!) } : sentNotFound("idEnvio"))],
    ["GET", /^\/v2\/gn\/pix\/enviados\/([^/]+)$/, (_req, m) => {
      const s = [...ctx.sends.values()].find((x) => x.endToEndId === m[1]);
      return s ? { status: 200, body: s } : sentNotFound("e2eId");
    }],
  ];

  // ---- moves made by the payer, the payer's bank or the network (the control API) ----
  const moves = {
    pay(txid: string, opts: { infoPagador?: string } = {}): Move {
      const cob = ctx.cobs.get(txid);
      if (!cob) return "cob not found";
      if (cob.status !== "ATIVA") return `cob is ${cob.status}, not ATIVA`;
      if (expired(cob)) return "cob expired (calendario.criacao + expiracao is past): no payer's bank pays it";
      const p: PixReceived = { endToEndId: e2eId(ctx.now()), txid, chave: cob.chave, valor: cob.valor.original, horario: iso(ctx.now()), ...(opts.infoPagador ? { infoPagador: opts.infoPagador } : {}) };
      ctx.pix.set(p.endToEndId, p);
      Object.assign(cob, { status: "CONCLUIDA", pix: [p] });
      ctx.notify("pix", { pix: [{ ...p }] }, "pix.received", cob.chave);
      for (const hook of ctx.onCobPaid) hook(cob);
      return cob;
    },
    /** The PSP removes an unpaid cob (REMOVIDA_PELO_PSP). */
    removeCob(txid: string): Move {
      const cob = ctx.cobs.get(txid);
      if (!cob || cob.status !== "ATIVA") return cob ? `cob is ${cob.status}, not ATIVA` : "cob not found";
      return Object.assign(cob, { status: "REMOVIDA_PELO_PSP" });
    },
    /**
     * The payer's bank opens a MED return on a received Pix: the receiver's PSP returns the money.
     * `natureza: null` leaves the nature out, as Efí's documentation of devoluções does (the
     * Central Bank's OpenAPI makes it optional).
     */
    med(e2eid: string, opts: { natureza?: "MED_FRAUDE" | "MED_OPERACIONAL" | "MED_PIX_AUTOMATICO" | null; valor?: string } = {}): Move {
      const p = receivedPix(ctx, e2eid);
      if (!p) return "pix not found";
      const natureza = opts.natureza === undefined ? "MED_FRAUDE" : opts.natureza;
      if (natureza !== null && !["MED_FRAUDE", "MED_OPERACIONAL", "MED_PIX_AUTOMATICO"].includes(natureza)) return "natureza must be MED_FRAUDE, MED_OPERACIONAL, MED_PIX_AUTOMATICO or null";
      p.devolucoes ??= [];
      const amount = opts.valor === undefined ? cents(p.valor)! - sum(p.devolucoes) : cents(opts.valor);
      if (amount === undefined || amount <= 0 || amount + sum(p.devolucoes) > cents(p.valor)!) return "nothing left to return on this pix";
      const d: Devolucao = { id: `MED${e2eid.slice(-20)}${p.devolucoes.length}`, rtrId: rtrId(ctx.now()), valor: valor(amount), ...(natureza ? { natureza } : {}), horario: { solicitacao: iso(ctx.now()) }, status: "EM_PROCESSAMENTO" };
      p.devolucoes.push(d);
      settleDevolucao(p, d, true);
      return d;
    },
    finishDevolucao(e2eid: string, id: string, ok: boolean, motivo?: string): Move {
      const p = ctx.pix.get(e2eid);
      const d = p?.devolucoes?.find((x) => x.id === id);
      if (!p || !d) return "devolução not found";
      if (d.status !== "EM_PROCESSAMENTO") return `devolução is ${d.status}, not EM_PROCESSAMENTO`;
      settleDevolucao(p, d, ok, motivo);
      return d;
    },
    /**
     * The receiving bank sends back `valor` (default: what is left) of a sent Pix: a devolução
     * recebida on the send, DEVOLVIDO, in its `devolucoes` (as on a received Pix) and in a notice
     * naming the send (its endToEndId and gnExtras.idEnvio). Efí's sandbox does this to sends of
     * R$ 4,00 (two of R$ 2,00) and R$ 5,00 ("Envio de Pix"); the notice's shape is the fake's choice.
     */
    returnSend(idEnvio: string, opts: { valor?: string } = {}): Move {
      const s = ctx.sends.get(idEnvio);
      if (!s || s.status !== "REALIZADO") return s ? `send is ${s.status}, not REALIZADO` : "send not found";
      s.devolucoes ??= [];
      const left = cents(s.valor)! - sum(s.devolucoes);
      const amount = opts.valor === undefined ? left : cents(opts.valor);
      if (amount === undefined || amount <= 0 || amount > left) return "nothing left to return on this send";
      const at = iso(ctx.now());
      const d: Devolucao = { id: `DEV${s.devolucoes.length}${idEnvio}`.slice(0, 35), rtrId: rtrId(ctx.now()), valor: valor(amount), natureza: "ORIGINAL", horario: { solicitacao: at, liquidacao: at }, status: "DEVOLVIDO" };
      s.devolucoes.push(d);
      ctx.notify("pix", { pix: [{ endToEndId: s.endToEndId, chave: s.chave, valor: s.valor, horario: s.horario.liquidacao ?? at, gnExtras: { idEnvio }, devolucoes: [d] }] }, "envio.devolucao", s.chave);
      return d;
    },
    /** Lands now a send held by sendLandingMs. */
    landSend(idEnvio: string): Move {
      const land = landing.get(idEnvio);
      if (!land) return "no send is landing under this idEnvio";
      land();
      return ctx.sends.get(idEnvio)!;
    },
    finishSend(idEnvio: string, ok: boolean, motivo?: string): Move {
      const s = ctx.sends.get(idEnvio);
      if (!s) return "send not found";
      if (s.status !== "EM_PROCESSAMENTO") return `send is ${s.status}, not EM_PROCESSAMENTO`;
      finishSend(s, ok, motivo);
      return s;
    },
  };
  return { routes, moves };
}
export type PixMoves = ReturnType<typeof pixRoutes>["moves"];
