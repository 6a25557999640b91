import { brCode, brDate, cents, daysBetween, devedorProblem, e2eId, efiError, isDate, iso, locationUrl, obj, problem, TXID, valor, type Obj } from "./fake-efi-model.js";
import type { EfiContext, Move, PixReceived, Route } from "./fake-efi-context.js";
import type { ApiRequest, Reply } from "./fake-provider.js";

// The Central Bank's Pix with a due date (cobv) at the Efí fake, from the Central Bank's OpenAPI
// (bacen/pix-api 2.9.0: CobVSolicitada, CobVGerada, CobVValor, CobDataDeVencimento, the Pix's
// componentesValor, "Tratamento de Erros" CobV) and Efí's page "Cobranças com vencimento"
// (docs/processors.md, "The Efí fake"). The payer's bank's side is the fake's own: paying a cobv
// pays what the Central Bank's rules make due on the fake's clock's day in Brasília, a due date
// or a last day on a weekend moved to the Monday after (the fake knows no holidays).

export interface CobV extends Obj {
  txid: string; status: string; revisao: number; chave: string;
  calendario: { criacao: string; dataDeVencimento: string; validadeAposVencimento: number };
  valor: Obj & { original: string };
  pix?: PixReceived[];
}

const invalid = (razao: string, propriedade: string) =>
  problem(400, "CobVOperacaoInvalida", "Cobrança inválida.", "A requisição que busca alterar ou criar uma cobrança com vencimento não respeita o _schema_ ou está semanticamente errada.", [{ razao, propriedade }]);
const notFound = () => problem(404, "CobVNaoEncontrada", "Não Encontrado", "Cobrança com vencimento não encontrada para o txid informado.");
const PERC = /^\d{1,10}\.\d{2}$/;
/** "2.00" -> 200 (basis points of a percent, or cents of a value). */
const hundredths = (v: unknown) => (typeof v === "string" && PERC.test(v) ? Number(v.replace(".", "")) : undefined);
const roundHalfUp = (num: bigint, den: bigint) => Number((2n * num + den) / (2n * den));

// ---- days: a weekend is not a business day (the fake has no holiday calendar) ----
const weekday = (d: string) => new Date(`${d}T00:00:00Z`).getUTCDay();
const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
const isBusiness = (d: string) => weekday(d) !== 0 && weekday(d) !== 6;
const nextBusiness = (d: string): string => (isBusiness(d) ? d : nextBusiness(addDays(d, 1)));
/** Business days after `from` up to `to` (inclusive). */
function businessDaysBetween(from: string, to: string): number {
  let n = 0;
  for (let d = addDays(from, 1); d <= to; d = addDays(d, 1)) if (isBusiness(d)) n++;
  return n;
}

/** The due date as the payer's bank reads it, and the last day it may be paid (CobDataDeVencimento's examples A to G). */
export function cobvDays(c: Pick<CobV, "calendario">): { due: string; last: string } {
  const due = nextBusiness(c.calendario.dataDeVencimento);
  return { due, last: nextBusiness(addDays(due, c.calendario.validadeAposVencimento)) };
}

/** Why a CobVSolicitada's `valor` breaks the schema or the rules the OpenAPI lists; undefined when it does not. */
function valorProblem(v: Obj | undefined, dueDate: string): Reply | undefined {
  const original = cents(v?.original);
  if (!v || original === undefined) return invalid("O campo cobv.valor.original não respeita o schema ou é zero.", "cobv.valor.original");
  const m = (name: string, max: number) => {
    const x = obj(v[name]);
    if (v[name] === undefined) return undefined;
    if (!x || !Number.isInteger(x.modalidade) || (x.modalidade as number) < 1 || (x.modalidade as number) > max) return `cobv.valor.${name}`;
    return undefined;
  };
  for (const [name, max] of [["multa", 2], ["juros", 8], ["abatimento", 2], ["desconto", 6]] as const) {
    const bad = m(name, max);
    if (bad) return invalid(`O objeto ${bad} não respeita o schema.`, bad);
  }
  for (const name of ["multa", "juros", "abatimento"]) {
    const x = obj(v[name]);
    if (x && hundredths(x.valorPerc) === undefined) return invalid(`O objeto cobv.valor.${name} não respeita o schema.`, `cobv.valor.${name}`);
  }
  const d = obj(v.desconto);
  if (d) {
    const fixed = (d.modalidade as number) <= 2;
    const list = Array.isArray(d.descontoDataFixa) ? (d.descontoDataFixa as unknown[]).map(obj) : undefined;
    if (fixed && (!list || list.length < 1 || list.length > 3 || d.valorPerc !== undefined)) return invalid("modalidade 1 ou 2 pede descontoDataFixa de 1 a 3 elementos e nenhum valorPerc", "cobv.valor.desconto");
    if (!fixed && (list !== undefined || hundredths(d.valorPerc) === undefined)) return invalid("modalidade 3 a 6 pede valorPerc e nenhum descontoDataFixa", "cobv.valor.desconto");
    for (const e of list ?? []) {
      const amount = hundredths(e?.valorPerc);
      if (!e || !isDate(e.data) || amount === undefined) return invalid("Elemento de descontoDataFixa não respeita o schema.", "cobv.valor.desconto");
      if (e.data > dueDate) return invalid("Elemento de desconto com data posterior a calendario.dataDeVencimento.", "cobv.valor.desconto");
      if (amount >= (d.modalidade === 1 ? original : 10_000)) return invalid("Desconto maior ou igual ao valor original ou a 100%.", "cobv.valor.desconto");
    }
  }
  const a = obj(v.abatimento);
  if (a && hundredths(a.valorPerc)! >= (a.modalidade === 1 ? original : 10_000)) return invalid("Abatimento maior ou igual ao valor original ou a 100%.", "cobv.valor.abatimento");
  return undefined;
}

/**
 * What a cobv asks on `day` (YYYY-MM-DD, Brasília), in cents, with its parts, as the
 * componentesValor of the Pix that pays it: on or before the (business) due date, the original
 * less the discount in force; after it, plus the fine (once) and the interest for each day late
 * (calendar days for juros 1-4, business days for 5-8; a month is 30 days, a year 365); an
 * abatimento always. Each part rounded half up to the cent. Undefined past the last day.
 */
export function cobvAmountDue(c: CobV, day: string): { total: number; parts: Record<string, number> } | undefined {
  const { due, last } = cobvDays(c);
  if (day > last) return undefined;
  const original = cents(c.valor.original)!;
  const pct = (bp: number) => roundHalfUp(BigInt(original) * BigInt(bp), 10_000n);
  const parts: Record<string, number> = { original };
  const a = obj(c.valor.abatimento);
  if (a) parts.abatimento = a.modalidade === 1 ? hundredths(a.valorPerc)! : pct(hundredths(a.valorPerc)!);
  if (day <= due) {
    const d = obj(c.valor.desconto);
    const m = d?.modalidade as number | undefined;
    if (d && m !== undefined && m <= 2) {
      const entry = (d.descontoDataFixa as Obj[]).filter((e) => day <= (e.data as string)).sort((x, y) => String(x.data).localeCompare(String(y.data)))[0];
      if (entry) parts.desconto = m === 1 ? hundredths(entry.valorPerc)! : pct(hundredths(entry.valorPerc)!);
    } else if (d && m !== undefined) {
      const early = m === 4 || m === 6 ? businessDaysBetween(day, due) : daysBetween(day, due);
      const per = hundredths(d.valorPerc)!;
      parts.desconto = m <= 4 ? per * early : roundHalfUp(BigInt(original) * BigInt(per) * BigInt(early), 10_000n);
    }
  } else {
    const f = obj(c.valor.multa);
    if (f) parts.multa = f.modalidade === 1 ? hundredths(f.valorPerc)! : pct(hundredths(f.valorPerc)!);
    const j = obj(c.valor.juros);
    if (j) {
      const m = j.modalidade as number;
      const late = m >= 5 ? businessDaysBetween(due, day) : daysBetween(due, day);
      const rate = BigInt(hundredths(j.valorPerc)!);
      const kind = (m - 1) % 4; // 0 value a day, 1 percent a day, 2 percent a month, 3 percent a year
      parts.juros = kind === 0 ? Number(rate) * late : roundHalfUp(BigInt(original) * rate * BigInt(late), 10_000n * [1n, 1n, 30n, 365n][kind]!);
    }
  }
  const total = original + (parts.multa ?? 0) + (parts.juros ?? 0) - (parts.desconto ?? 0) - (parts.abatimento ?? 0);
  return { total: Math.max(total, 1), parts };
}

/** `onPaid`: told of each cobv paid (the split de pagamento pays out its parts: fake-efi-split.ts). */
export function cobvRoutes(ctx: EfiContext, cobvs: Map<string, CobV>, onPaid: (c: CobV) => void = () => {}) {
  /** PUT /v2/cobv/{txid}: creates it, or revises it while ATIVA (the Central Bank's "Criar ou alterar"). */
  function put(req: ApiRequest, txid: string): Reply {
    if (!TXID.test(txid)) return invalid("txid deve ter de 26 a 35 letras e dígitos", "cobv.txid");
    const b = obj(req.json) ?? {};
    const cal = obj(b.calendario);
    const today = brDate(ctx.now());
    if (!cal || !isDate(cal.dataDeVencimento)) return invalid("O campo cobv.calendario.dataDeVencimento não respeita o schema.", "cobv.calendario.dataDeVencimento");
    if (cal.dataDeVencimento < today) return invalid("O campo cobv.calendario.dataDeVencimento é anterior à data de criação da cobrança.", "cobv.calendario.dataDeVencimento");
    const validade = cal.validadeAposVencimento ?? 30;
    if (!Number.isSafeInteger(validade) || (validade as number) < 0) return invalid("O campo cobv.calendario.validadeAposVencimento é menor do que zero.", "cobv.calendario.validadeAposVencimento");
    const dev = devedorProblem(b.devedor, true);
    if (dev) return invalid(`O objeto cobv.devedor não respeita o schema: ${dev}`, "cobv.devedor");
    if (b.chave !== ctx.pixKey) return invalid("O campo cobv.chave corresponde a uma conta que não pertence a este usuário recebedor.", "cobv.chave");
    if (b.solicitacaoPagador !== undefined && (typeof b.solicitacaoPagador !== "string" || b.solicitacaoPagador.length > 140)) return invalid("O campo solicitacaoPagador não respeita o schema.", "cobv.solicitacaoPagador");
    const bad = valorProblem(obj(b.valor), cal.dataDeVencimento);
    if (bad) return bad;
    // Efí keeps one txid per charge of either kind (its 409 for a cob's txid in use).
    if (ctx.cobs.has(txid)) return efiError(409, "txid_duplicado", "Campo txid informado já foi utilizado em outra cobrança");
    const existing = cobvs.get(txid);
    if (existing && existing.status !== "ATIVA") return invalid("A cobrança já existe, não está ATIVA, e a presente requisição busca alterá-la.", "cobv.status");
    const at = iso(ctx.now());
    const location = (existing?.loc as Obj | undefined)?.location as string | undefined ?? locationUrl("cob").replace("/qr/v2/", "/qr/v2/cobv/");
    const cobv: CobV = {
      calendario: { criacao: existing?.calendario.criacao ?? at, dataDeVencimento: cal.dataDeVencimento, validadeAposVencimento: validade as number },
      txid, revisao: existing ? existing.revisao + 1 : 0, loc: { id: cobvs.size + 1, location, tipoCob: "cobv", criacao: at }, status: "ATIVA",
      devedor: b.devedor as Obj, recebedor: { nome: ctx.merchant.name, cnpj: ctx.merchant.cnpj, cidade: ctx.merchant.city, uf: "SP", cep: "01310100", logradouro: "Av. Paulista, 1000" },
      valor: { ...(b.valor as Obj), original: valor(cents(obj(b.valor)!.original)!) }, chave: ctx.pixKey,
      ...(typeof b.solicitacaoPagador === "string" ? { solicitacaoPagador: b.solicitacaoPagador } : {}),
      pixCopiaECola: brCode({ cobLocation: location, merchantName: ctx.merchant.name, merchantCity: ctx.merchant.city }),
    };
    cobvs.set(txid, cobv);
    return { status: existing ? 200 : 201, body: structuredClone(cobv) };
  }

  /** PATCH /v2/cobv/{txid}: only the removal is served (the adapter's expiry). */
  function patch(req: ApiRequest, c: CobV): Reply {
    const b = obj(req.json) ?? {};
    if (c.status !== "ATIVA") return problem(400, "CobVOperacaoInvalida", "Operação inválida.", "Cobrança não encontra-se mais com o status ATIVA, somente cobranças ativas podem ser revisadas.");
    if (b.status !== "REMOVIDA_PELO_USUARIO_RECEBEDOR" || Object.keys(b).length > 1) {
      return invalid("o fake só remove uma cobrança (status REMOVIDA_PELO_USUARIO_RECEBEDOR, sozinho)", "cobv.status");
    }
    Object.assign(c, { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR", revisao: c.revisao + 1 });
    return { status: 200, body: structuredClone(c) };
  }

  const routes: Route[] = [
    ["PUT", /^\/v2\/cobv\/([^/]+)$/, (req, m) => put(req, m[1]!)],
    ["GET", /^\/v2\/cobv\/([^/]+)$/, (_req, m) => (cobvs.has(m[1]!) ? { status: 200, body: structuredClone(cobvs.get(m[1]!)!) } : notFound())],
    ["PATCH", /^\/v2\/cobv\/([^/]+)$/, (req, m) => (cobvs.has(m[1]!) ? patch(req, cobvs.get(m[1]!)!) : notFound())],
  ];

  const moves = {
    /** The payer's bank pays a cobv what is due on the fake's clock's day: CONCLUIDA, the Pix with its componentesValor, the notice. */
    payCobv(txid: string): Move {
      const c = cobvs.get(txid);
      if (!c) return "cobv not found";
      if (c.status !== "ATIVA") return `cobv is ${c.status}, not ATIVA`;
      const due = cobvAmountDue(c, brDate(ctx.now()));
      if (!due) return "cobv is past its last day (dataDeVencimento + validadeAposVencimento): no payer's bank pays it";
      const componentesValor = Object.fromEntries(Object.entries(due.parts).map(([k, v]) => [k, { valor: valor(v) }]));
      const p: PixReceived = { endToEndId: e2eId(ctx.now()), txid, chave: c.chave, valor: valor(due.total), componentesValor, horario: iso(ctx.now()) };
      ctx.pix.set(p.endToEndId, p);
      Object.assign(c, { status: "CONCLUIDA", pix: [p] });
      onPaid(c);
      ctx.notify("pix", { pix: [{ ...p }] }, "pix.received", c.chave);
      return c;
    },
  };
  return { routes, moves };
}
export type CobvMoves = ReturnType<typeof cobvRoutes>["moves"];
