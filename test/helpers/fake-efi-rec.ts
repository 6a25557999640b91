import {
  brCode, brDate, cents, daysBetween, devedorProblem, e2eId, iso, isDate, locationUrl, newTxid, notFound, obj, problem, recId, solicRecId, TXID, valor, type Obj,
} from "./fake-efi-model.js";
import type { Cob, CobR, EfiContext, Move, PixReceived, Rec, Route } from "./fake-efi-context.js";
import type { ApiRequest, Reply } from "./fake-provider.js";

// Pix Automático as the Central Bank's OpenAPI (2.9.0) models it: locations for recurrences
// (locrec), recurrences (rec: CRIADA -> APROVADA | REJEITADA | EXPIRADA, APROVADA -> CANCELADA),
// confirmation requests to the payer's bank (solicrec, journey 1), and recurring charges
// (cobr: CRIADA -> ATIVA -> CONCLUIDA | REJEITADA | EXPIRADA | CANCELADA) with their attempts.
// Journey 3: a rec whose ativacao.dadosJornada.txid names a cob is approved when that cob is paid.

const PERIODS = ["SEMANAL", "MENSAL", "TRIMESTRAL", "SEMESTRAL", "ANUAL"];
/** Rejection codes of an attempt that, per the OpenAPI, also reject the recurring charge. */
const FINAL_CODES = ["AC05", "AM09", "DENC", "DS27", "DTED", "MIDI", "MSUC", "NITX", "RC09"];
const recInvalid = (razao: string, propriedade: string) => problem(400, "RecOperacaoInvalida", "Operação inválida.", "A recorrência não respeita o schema ou está semanticamente errada.", [{ razao, propriedade }]);
const cobrInvalid = (razao: string, propriedade: string) => problem(400, "CobROperacaoInvalida", "Operação inválida.", "A cobrança não respeita o schema ou está semanticamente errada.", [{ razao, propriedade }]);

export function recRoutes(ctx: EfiContext) {
  const locs = new Map<number, Obj>();
  const solicrecs = new Map<string, Obj>();
  const stamp = (o: { status: string; atualizacao: { status: string; data: string }[] }, status: string) => {
    o.status = status;
    o.atualizacao.push({ status, data: iso(ctx.now()) });
  };
  const recNotice = (r: Rec) => ctx.notify("rec", { recs: [{ idRec: r.idRec, status: r.status, atualizacao: r.atualizacao, ...(r.encerramento ? { encerramento: r.encerramento } : {}), ativacao: r.ativacao }] }, `rec.${r.status}`);
  const cobrNotice = (c: CobR) => ctx.notify("cobr", { cobsr: [{ idRec: c.idRec, txid: c.txid, status: c.status, atualizacao: c.atualizacao, tentativas: c.tentativas, ...(c.pix ? { pix: c.pix } : {}) }] }, `cobr.${c.status}`);

  function createRec(req: ApiRequest): Reply {
    const b = obj(req.json) ?? {};
    const vinculo = obj(b.vinculo);
    if (!vinculo || typeof vinculo.contrato !== "string" || vinculo.contrato === "" || vinculo.contrato.length > 35) return recInvalid("O objeto rec.vinculo não respeita o schema.", "rec.vinculo.contrato");
    const dev = devedorProblem(vinculo.devedor, true);
    if (dev) return recInvalid(dev, "rec.vinculo.devedor");
    const cal = obj(b.calendario) ?? {};
    const today = brDate(ctx.now());
    if (!isDate(cal.dataInicial) || cal.dataInicial < today) return recInvalid("O campo rec.calendario.dataInicial é anterior à data de criação da recorrência.", "rec.calendario.dataInicial");
    if (cal.dataFinal !== undefined && (!isDate(cal.dataFinal) || cal.dataFinal < cal.dataInicial)) return recInvalid("O campo rec.calendario.dataFinal é anterior ao campo rec.calendario.dataInicial.", "rec.calendario.dataFinal");
    if (!PERIODS.includes(String(cal.periodicidade))) return recInvalid("O campo rec.calendario.periodicidade não respeita o schema.", "rec.calendario.periodicidade");
    const v = obj(b.valor) ?? {};
    if (v.valorRec !== undefined && v.valorMinimoRecebedor !== undefined) return recInvalid("Ambos os campos rec.valor.valorRec e rec.valor.valorMinimoRecebedor estão preenchidos.", "rec.valor");
    for (const k of ["valorRec", "valorMinimoRecebedor"]) if (v[k] !== undefined && cents(v[k]) === undefined) return recInvalid(`O campo rec.valor.${k} não respeita o schema.`, `rec.valor.${k}`);
    if (b.politicaRetentativa !== "NAO_PERMITE" && b.politicaRetentativa !== "PERMITE_3R_7D") return recInvalid("O campo rec.politicaRetentativa não respeita o schema.", "rec.politicaRetentativa");
    let loc: Obj | undefined;
    if (b.loc !== undefined) {
      loc = locs.get(Number(b.loc));
      if (!loc) return recInvalid("O location referenciado por rec.loc inexiste.", "rec.loc");
      if (loc.idRec) return recInvalid("O location referenciado por rec.loc já está sendo utilizado por outra recorrência.", "rec.loc");
    }
    const txid = obj(obj(b.ativacao)?.dadosJornada)?.txid;
    if (txid !== undefined && (typeof txid !== "string" || !ctx.cobs.has(txid))) return recInvalid("ativacao.dadosJornada.txid não corresponde a uma cobrança imediata.", "rec.ativacao.dadosJornada.txid");
    const idRec = recId(ctx.now(), b.politicaRetentativa === "PERMITE_3R_7D");
    if (loc) loc.idRec = idRec;
    const rec: Rec = {
      idRec, vinculo, calendario: { dataInicial: cal.dataInicial, ...(cal.dataFinal ? { dataFinal: cal.dataFinal as string } : {}), periodicidade: cal.periodicidade as string },
      valor: v, politicaRetentativa: b.politicaRetentativa, recebedor: { cnpj: ctx.merchant.cnpj, nome: ctx.merchant.name }, status: "CRIADA",
      ...(loc ? { loc } : {}), ativacao: { tipoJornada: "AGUARDANDO_DEFINICAO", ...(txid ? { dadosJornada: { txid } } : {}) }, atualizacao: [],
    };
    stamp(rec, "CRIADA");
    ctx.recs.set(idRec, rec);
    return { status: 201, body: rec };
  }

  /** GET /v2/rec/{idRec}[?txid=]: with a location, dadosQR is the composite code of the journey. */
  function showRec(rec: Rec, txid: string | null): Reply {
    const loc = obj(rec.loc);
    const cob = txid ? ctx.cobs.get(txid) : undefined;
    if (txid && (!cob || obj(obj(rec.ativacao)?.dadosJornada)?.txid !== txid)) return recInvalid("o parâmetro txid corresponde a uma cobrança imediata diferente da informada no campo ativacao.dadosJornada.txid", "txid");
    if (!loc) return { status: 200, body: rec };
    const pixCopiaECola = brCode({ recLocation: String(loc.location), cobLocation: cob ? String(cob.location) : undefined, merchantName: ctx.merchant.name, merchantCity: ctx.merchant.city });
    return { status: 200, body: { ...rec, dadosQR: { jornada: cob ? "JORNADA_3" : "JORNADA_2", pixCopiaECola } } };
  }

  function reviseRec(req: ApiRequest, rec: Rec): Reply {
    const b = obj(req.json) ?? {};
    if (["EXPIRADA", "CANCELADA", "REJEITADA"].includes(rec.status)) return recInvalid("A recorrência encontra-se expirada, cancelada ou rejeitada.", "rec.status");
    if (b.status !== undefined && b.status !== "CANCELADA") return recInvalid("O campo rec.status não respeita o schema.", "rec.status");
    if (b.status === "CANCELADA") {
      rec.encerramento = { cancelamento: { solicitante: "USUARIO_RECEBEDOR", codigo: "SLCR", descricao: "Cancelamento solicitado pelo usuário recebedor" } };
      stamp(rec, "CANCELADA");
      recNotice(rec);
    }
    return { status: 200, body: rec };
  }

  /** The cycle of a date under a recurrence, for the rule "one live cobr per cycle". */
  function cycle(rec: Rec, date: string): number {
    const months = (d: string) => Number(d.slice(0, 4)) * 12 + Number(d.slice(5, 7));
    const span = { SEMANAL: 0, MENSAL: 1, TRIMESTRAL: 3, SEMESTRAL: 6, ANUAL: 12 }[rec.calendario.periodicidade] ?? 1;
    return span === 0 ? Math.floor(daysBetween(rec.calendario.dataInicial, date) / 7) : Math.floor((months(date) - months(rec.calendario.dataInicial)) / span);
  }

  /**
   * Why `recebedor` is not this account's DadosBancariosRecebedor (CobRSolicitada requires it:
   * conta up to 20, tipoConta CORRENTE | POUPANCA | PAGAMENTO, agencia up to 4), in the
   * OpenAPI's violation words; undefined when it is.
   */
  function recebedorProblem(r: unknown): string | undefined {
    const o = obj(r);
    const text = (v: unknown, max: number) => typeof v === "string" && v !== "" && v.length <= max;
    if (!o || !text(o.conta, 20) || !["CORRENTE", "POUPANCA", "PAGAMENTO"].includes(String(o.tipoConta)) || (o.agencia !== undefined && !text(o.agencia, 4))) {
      return "O objeto cobr.recebedor não respeita o schema.";
    }
    if (o.conta !== ctx.account.conta || (o.agencia !== undefined && o.agencia !== ctx.account.agencia)) {
      return "Os campos cobr.recebedor.conta e cobr.recebedor.agencia correspondem a uma conta que não pertence a este usuário recebedor.";
    }
    return undefined;
  }

  function createCobr(req: ApiRequest, txid: string): Reply {
    if (!TXID.test(txid)) return cobrInvalid("O campo cobr.txid não respeita o schema.", "cobr.txid");
    const b = obj(req.json) ?? {};
    const rec = ctx.recs.get(String(b.idRec));
    if (!rec) return cobrInvalid("O campo cobr.idRec não corresponde a uma recorrência deste usuário recebedor.", "cobr.idRec");
    if (rec.status !== "APROVADA") return cobrInvalid(`A recorrência está ${rec.status}: só uma recorrência APROVADA recebe cobranças.`, "cobr.idRec");
    const due = obj(b.calendario)?.dataDeVencimento;
    if (!isDate(due)) return cobrInvalid("O objeto cobr.calendario não respeita o schema.", "cobr.calendario.dataDeVencimento");
    const ahead = daysBetween(brDate(ctx.now()), due);
    if (ahead < 2 || ahead > 10) return cobrInvalid(`A cobrança deve ser enviada de 2 a 10 dias antes do vencimento; faltam ${ahead} dias.`, "cobr.calendario.dataDeVencimento");
    const amount = cents(obj(b.valor)?.original);
    if (amount === undefined) return cobrInvalid("O campo cobr.valor não respeita o schema.", "cobr.valor.original");
    if (rec.valor?.valorRec && cents(rec.valor.valorRec) !== amount) return cobrInvalid("O valor difere do valor fixo da recorrência.", "cobr.valor.original");
    const receiver = recebedorProblem(b.recebedor);
    if (receiver) return cobrInvalid(receiver, "cobr.recebedor");
    if (ctx.cobrs.has(txid)) return cobrInvalid("O campo cobr.txid encontra-se em uso.", "cobr.txid");
    const live = [...ctx.cobrs.values()].find((c) => c.idRec === rec.idRec && !["REJEITADA", "CANCELADA"].includes(c.status) && cycle(rec, c.calendario.dataDeVencimento) === cycle(rec, due));
    if (live) return cobrInvalid("Existe uma CobR com status diferente de REJEITADA e CANCELADA referente ao mesmo cobr.idRec no mesmo ciclo.", "cobr.calendario.dataDeVencimento");
    const cobr: CobR = {
      idRec: rec.idRec, txid, ...(typeof b.infoAdicional === "string" ? { infoAdicional: b.infoAdicional } : {}), calendario: { criacao: brDate(ctx.now()), dataDeVencimento: due },
      valor: { original: valor(amount) }, politicaRetentativa: rec.politicaRetentativa, ajusteDiaUtil: b.ajusteDiaUtil ?? true,
      ...(b.devedor ? { devedor: b.devedor } : {}), recebedor: { cnpj: ctx.merchant.cnpj, nome: ctx.merchant.name, ...obj(b.recebedor) }, status: "CRIADA", atualizacao: [], tentativas: [],
    };
    stamp(cobr, "CRIADA");
    ctx.cobrs.set(txid, cobr);
    // Once answered, the instruction goes to the payer's bank, which schedules the debit.
    req.afterReply(() => { if (cobr.status === "CRIADA") { schedule(cobr, "AGND", due); stamp(cobr, "ATIVA"); cobrNotice(cobr); } });
    return { status: 201, body: structuredClone(cobr) };
  }

  function schedule(c: CobR, tipo: "AGND" | "NTAG", date: string): void {
    const data = iso(ctx.now());
    c.tentativas.push({ dataLiquidacao: date, tipo, endToEndId: e2eId(ctx.now()), status: "AGENDADA", atualizacao: [{ status: "SOLICITADA", data }, { status: "AGENDADA", data }] });
  }
  const pending = (c: CobR) => c.tentativas.find((t) => t.status === "AGENDADA" || t.status === "SOLICITADA");

  function retry(c: CobR, date: string): Reply {
    if (c.politicaRetentativa !== "PERMITE_3R_7D") return problem(400, "CobROperacaoInvalida", "Cobrança não encontrada.", "A política configurada na recorrência não permite retentativa de cobrança.");
    if (c.status !== "ATIVA") return cobrInvalid(`A cobrança está ${c.status}.`, "cobr.status");
    if (pending(c)) return cobrInvalid("Existe uma tentativa com status SOLICITADA ou AGENDADA.", "data");
    if (!isDate(date) || date <= brDate(ctx.now())) return cobrInvalid("O parâmetro data não corresponde a uma data futura.", "data");
    if (daysBetween(c.calendario.dataDeVencimento, date) > 7 || c.tentativas.length >= 4) return cobrInvalid("Fora da janela de retentativas (até 3 novas tentativas em 7 dias do vencimento).", "data");
    schedule(c, "NTAG", date);
    cobrNotice(c);
    return { status: 201, body: c };
  }

  /** GET /v2/rec (RecsConsultadas): inicio and fim required, on the creation time; cpf or cnpj of the devedor. */
  function listRecs(req: ApiRequest): Reply {
    const [inicio, fim, cpf, cnpj] = ["inicio", "fim", "cpf", "cnpj"].map((k) => req.query.get(k));
    if (!inicio || !fim || Number.isNaN(Date.parse(inicio)) || Number.isNaN(Date.parse(fim))) return recInvalid("Os parâmetros inicio e fim são obrigatórios.", "inicio");
    if (cpf && cnpj) return recInvalid("Os filtros cpf e cnpj não podem ser usados juntos.", "cpf");
    const recs = [...ctx.recs.values()].filter((r) => {
      const created = Date.parse(r.atualizacao[0]!.data);
      const devedor = obj(obj(r.vinculo)?.devedor) ?? {};
      return created >= Date.parse(inicio) && created <= Date.parse(fim) && (!cpf || devedor.cpf === cpf) && (!cnpj || devedor.cnpj === cnpj);
    });
    return { status: 200, body: { parametros: { inicio, fim, paginacao: { paginaAtual: 0, itensPorPagina: 100, quantidadeDePaginas: 1, quantidadeTotalDeItens: recs.length } }, recs } };
  }

  const byTxid = (m: RegExpExecArray) => ctx.cobrs.get(m[1]!);
  const routes: Route[] = [
    ["POST", /^\/v2\/locrec$/, () => {
      const loc = { id: locs.size + 1, location: locationUrl("rec"), criacao: iso(ctx.now()) };
      locs.set(loc.id, loc);
      return { status: 201, body: loc, headers: { location: loc.location } };
    }],
    ["GET", /^\/v2\/locrec\/(\d+)$/, (_req, m) => (locs.has(Number(m[1])) ? { status: 200, body: locs.get(Number(m[1])) } : notFound())],
    ["POST", /^\/v2\/rec$/, (req) => createRec(req)],
    ["GET", /^\/v2\/rec$/, (req) => listRecs(req)],
    ["GET", /^\/v2\/rec\/([^/]+)$/, (req, m) => (ctx.recs.has(m[1]!) ? showRec(ctx.recs.get(m[1]!)!, req.query.get("txid")) : notFound())],
    ["PATCH", /^\/v2\/rec\/([^/]+)$/, (req, m) => (ctx.recs.has(m[1]!) ? reviseRec(req, ctx.recs.get(m[1]!)!) : notFound())],
    ["POST", /^\/v2\/solicrec$/, (req) => {
      const b = obj(req.json) ?? {};
      const rec = ctx.recs.get(String(b.idRec));
      if (!rec) return notFound();
      if (!obj(b.destinatario)) return problem(400, "SolicRecOperacaoInvalida", "Operação inválida.", "A solicitação de confirmação de recorrência não respeita o schema.", [{ razao: "O objeto solicrec.destinatario não respeita o schema.", propriedade: "solicrec.destinatario" }]);
      const s = { idSolicRec: solicRecId(ctx.now()), idRec: rec.idRec, calendario: b.calendario ?? {}, status: "CRIADA", destinatario: b.destinatario, atualizacao: [{ status: "CRIADA", data: iso(ctx.now()) }], recPayload: rec };
      solicrecs.set(s.idSolicRec, s);
      return { status: 201, body: s };
    }],
    ["GET", /^\/v2\/solicrec\/([^/]+)$/, (_req, m) => (solicrecs.has(m[1]!) ? { status: 200, body: solicrecs.get(m[1]!) } : notFound())],
    ["PUT", /^\/v2\/cobr\/([^/]+)$/, (req, m) => createCobr(req, m[1]!)],
    ["POST", /^\/v2\/cobr$/, (req) => createCobr(req, newTxid())],
    ["GET", /^\/v2\/cobr\/([^/]+)$/, (_req, m) => (byTxid(m) ? { status: 200, body: byTxid(m) } : notFound())],
    ["PATCH", /^\/v2\/cobr\/([^/]+)$/, (req, m) => {
      const c = byTxid(m);
      if (!c) return notFound();
      if (obj(req.json)?.status !== "CANCELADA") return cobrInvalid("O campo cobr.status não respeita o schema.", "cobr.status");
      const first = c.tentativas[0]?.dataLiquidacao as string | undefined;
      if (!["CRIADA", "ATIVA"].includes(c.status) || (first && brDate(ctx.now()) >= first)) return problem(400, "CobROperacaoInvalida", "Operação inválida.", "Não é possível cancelar uma cobrança em uma data igual ou maior que a data prevista da primeira tentativa de liquidação.");
      for (const t of c.tentativas) if (t.status === "AGENDADA") t.status = "CANCELADA";
      c.encerramento = { cancelamento: { solicitante: "USUARIO_RECEBEDOR", codigo: "SLCR", descricao: "Cancelamento de agendamento solicitado pelo usuário recebedor" } };
      stamp(c, "CANCELADA");
      cobrNotice(c);
      return { status: 200, body: c };
    }],
    ["POST", /^\/v2\/cobr\/([^/]+)\/retentativa\/([^/]+)$/, (_req, m) => (byTxid(m) ? retry(byTxid(m)!, m[2]!) : notFound())],
  ];

  // Journey 3: paying the cob named by a CRIADA recurrence is the payer's approval of it.
  ctx.onCobPaid.push((cob: Cob) => {
    for (const r of ctx.recs.values()) if (r.status === "CRIADA" && obj(obj(r.ativacao)?.dadosJornada)?.txid === cob.txid) decide(r, "APROVADA", "JORNADA_3");
  });

  function decide(r: Rec, status: "APROVADA" | "REJEITADA" | "EXPIRADA", jornada = "JORNADA_2"): void {
    if (status === "APROVADA") Object.assign(r, { ativacao: { ...obj(r.ativacao), tipoJornada: jornada }, pagador: { cpf: "12345678909", ispbParticipante: "18236120", codMun: "3550308" } });
    if (status === "REJEITADA") r.encerramento = { rejeicao: { codigo: "AP13", descricao: "Recorrência rejeitada pelo usuário pagador" } };
    stamp(r, status);
    recNotice(r);
  }

  const moves = {
    /** The payer approves in the bank app; a journey-3 rec is approved by paying its cob. */
    approveRec(idRec: string, pay: (txid: string) => Move): Move {
      const r = ctx.recs.get(idRec);
      if (!r || r.status !== "CRIADA") return r ? `rec is ${r.status}, not CRIADA` : "rec not found";
      const txid = obj(obj(r.ativacao)?.dadosJornada)?.txid;
      if (typeof txid === "string") { const paid = pay(txid); if (typeof paid === "string") return paid; return r; }
      decide(r, "APROVADA");
      return r;
    },
    rejectRec(idRec: string): Move {
      const r = ctx.recs.get(idRec);
      if (!r || r.status !== "CRIADA") return r ? `rec is ${r.status}, not CRIADA` : "rec not found";
      decide(r, "REJEITADA");
      return r;
    },
    expireRec(idRec: string): Move {
      const r = ctx.recs.get(idRec);
      if (!r || r.status !== "CRIADA") return r ? `rec is ${r.status}, not CRIADA` : "rec not found";
      decide(r, "EXPIRADA");
      return r;
    },
    /** The payer cancels the mandate in the bank app. */
    cancelRec(idRec: string): Move {
      const r = ctx.recs.get(idRec);
      if (!r || r.status !== "APROVADA") return r ? `rec is ${r.status}, not APROVADA` : "rec not found";
      r.encerramento = { cancelamento: { solicitante: "USUARIO_PAGADOR", codigo: "SLDB", descricao: "Cancelamento solicitado pelo usuário pagador" } };
      stamp(r, "CANCELADA");
      recNotice(r);
      return r;
    },
    /** The payer's bank runs the scheduled attempt: paid, or refused with a rejection code. */
    debit(txid: string, outcome: { ok: boolean; codigo?: string }): Move {
      const c = ctx.cobrs.get(txid);
      const t = c && pending(c);
      if (!c || !t) return c ? `cobr ${c.status} has no scheduled attempt` : "cobr not found";
      if (outcome.ok) {
        Object.assign(t, { status: "PAGA" });
        // CobRCompleta.pix[] (PixAutomatico): the Pix received, with its devoluções, which are
        // asked for on its e2eid as for any received Pix (PUT /pix/{e2eid}/devolucao/{id}).
        const p: PixReceived = { endToEndId: String(t.endToEndId), txid, valor: c.valor.original, horario: iso(ctx.now()) };
        ctx.pix.set(p.endToEndId, p);
        c.pix = [p];
        stamp(c, "CONCLUIDA");
      } else {
        const codigo = outcome.codigo ?? "AM02";
        Object.assign(t, { status: "REJEITADA", rejeicao: { codigo, descricao: "Tentativa rejeitada pelo PSP do pagador" } });
        // A final code rejects the charge; otherwise, without retries allowed, it expires unpaid.
        if (FINAL_CODES.includes(codigo)) stamp(c, "REJEITADA");
        else if (c.politicaRetentativa !== "PERMITE_3R_7D" || c.tentativas.length >= 4) stamp(c, "EXPIRADA");
      }
      (t.atualizacao as Obj[]).push({ status: t.status, data: iso(ctx.now()) });
      cobrNotice(c);
      return c;
    },
  };
  return { routes, moves };
}
export type RecMoves = ReturnType<typeof recRoutes>["moves"];
