import { normalizeDocument } from "../../src/lib/documents.js";
import type { Cob, EfiContext, Route } from "./fake-efi-context.js";
import type { CobV } from "./fake-efi-cobv.js";
import { cents, efiError, iso, notFound, obj, TXID, type Obj } from "./fake-efi-model.js";
import type { ApiRequest, Reply } from "./fake-provider.js";

// Efí's split de pagamento Pix, as Efí documents it (docs/processors.md, "The Efí fake", split):
// a configuration (PUT /v2/gn/split/config/{id}, GET the same) with the issuing account's part
// (`minhaParte`) and the parts passed on (`repasses[]`, each to `favorecido.{cpf | cnpj, conta}`,
// an Efí account), in `porcentagem` or `fixo` (reais); its vínculo to a cob (PUT
// /v2/gn/split/cob/{txid}/vinculo/{id}; GET /v2/gn/split/cob/{txid} shows the cob with its
// `config`; DELETE the vínculo) or to a cobv, a Pix with a due date (the same under
// /v2/gn/split/cobv/). Routes and bodies: efipay/sdk-node-apis-efi 1.2.28, src/lib/constants.js
// and dist/types/methods/pix.d.ts. When the cob is paid, each part lands in its account's balance.
// Where the sources leave a rule out, the fake takes the strict side (written in the doc): the
// parts of a configuration are all of one `tipo`; percentages add up to 100.00; fixed parts add
// up to the cob's value exactly (more is refused at the vínculo as exceeding it); a favorecido
// must be an Efí account of that CPF/CNPJ; a cob is linked to one configuration, and only while ATIVA.
// A cobv's fixed parts add up to its valor.original; the Pix that pays it more (fine, interest)
// or less (discount) changes the issuing account's part only (Efí does not say; docs/processors.md).

interface SplitConfig extends Obj { id: string; status: string; revisao: number; descricao?: string; lancamento: { imediato: boolean }; split: { divisaoTarifa: string; minhaParte: Part; repasses: Repasse[] } }
interface Part extends Obj { tipo: "porcentagem" | "fixo"; valor: string }
interface Repasse extends Part { favorecido: { cpf?: string; cnpj?: string; conta: string } }

export interface SplitMoves {
  /** An Efí account a split may pass money on to: its number and its holder's CPF or CNPJ. */
  addSplitAccount(conta: string, document: string): void;
  /** What the account received from split parts, in cents. */
  splitBalance(conta: string): number;
  /** The configuration linked to a cob or cobv, if any. */
  splitOf(txid: string): SplitConfig | undefined;
}

const bad = (mensagem: string) => efiError(400, "valor_invalido", mensagem);
const PERCENT = /^\d{1,3}\.\d{2}$/;

type Kind = "cob" | "cobv";

export function splitRoutes(ctx: EfiContext, cobvs: ReadonlyMap<string, CobV>): { routes: Route[]; moves: SplitMoves; cobvPaid: (c: CobV) => void } {
  const configs = new Map<string, SplitConfig>();
  const links = new Map<string, string>();
  const accounts = new Map<string, string>();
  const balances = new Map<string, number>();

  function part(v: unknown, where: string): Part | string {
    const p = obj(v);
    if (!p || (p.tipo !== "porcentagem" && p.tipo !== "fixo")) return `${where}.tipo deve ser "porcentagem" ou "fixo"`;
    const ok = p.tipo === "fixo" ? cents(p.valor) !== undefined || p.valor === "0.00" : typeof p.valor === "string" && PERCENT.test(p.valor) && Number(p.valor) <= 100;
    return ok ? { tipo: p.tipo, valor: String(p.valor) } : `${where}.valor é inválido`;
  }

  function repasse(v: unknown, i: number): Repasse | Reply {
    const p = part(v, `split.repasses[${i}]`);
    if (typeof p === "string") return bad(p);
    const f = obj(obj(v)?.favorecido);
    const conta = typeof f?.conta === "string" ? f.conta : "";
    const type = typeof f?.cnpj === "string" ? "cnpj" : typeof f?.cpf === "string" ? "cpf" : undefined;
    if (!f || !conta || !type) return bad(`split.repasses[${i}].favorecido deve conter conta e cpf ou cnpj`);
    const doc = normalizeDocument(type, String(f[type]));
    if (!doc.ok) return bad(`split.repasses[${i}].favorecido.${type} é inválido`);
    if (conta === ctx.account.conta) return bad(`split.repasses[${i}].favorecido.conta é a própria conta emissora`);
    // The account must exist at Efí and belong to that document.
    if (accounts.get(conta) !== doc.value) return efiError(400, "conta_invalida", `A conta ${conta} não existe ou não pertence ao ${type.toUpperCase()} informado`);
    return { ...p, favorecido: { [type]: doc.value, conta } };
  }

  function putConfig(req: ApiRequest, id: string): Reply {
    if (!TXID.test(id)) return bad("O id da configuração deve ter de 26 a 35 caracteres alfanuméricos");
    const b = obj(req.json) ?? {};
    const s = obj(b.split);
    if (typeof obj(b.lancamento)?.imediato !== "boolean") return bad("lancamento.imediato é obrigatório");
    if (!s || (s.divisaoTarifa !== "assumir_total" && s.divisaoTarifa !== "proporcional")) return bad('split.divisaoTarifa deve ser "assumir_total" ou "proporcional"');
    const mine = part(s.minhaParte, "split.minhaParte");
    if (typeof mine === "string") return bad(mine);
    if (!Array.isArray(s.repasses) || s.repasses.length === 0 || s.repasses.length > 20) return bad("split.repasses deve ter de 1 a 20 itens");
    const repasses: Repasse[] = [];
    for (const [i, r] of s.repasses.entries()) {
      const made = repasse(r, i);
      if ("status" in made && typeof made.status === "number") return made as Reply;
      repasses.push(made as Repasse);
    }
    if (repasses.some((r) => r.tipo !== mine.tipo)) return bad("As partes de uma configuração devem ser todas do mesmo tipo");
    if (mine.tipo === "porcentagem" && Math.round([mine, ...repasses].reduce((n, p) => n + Number(p.valor) * 100, 0)) !== 10_000) return bad("A soma das porcentagens deve ser 100.00");
    const earlier = configs.get(id);
    const config: SplitConfig = {
      id, status: "ATIVA", revisao: earlier ? earlier.revisao + 1 : 0, ...(typeof b.descricao === "string" ? { descricao: b.descricao } : {}),
      lancamento: { imediato: obj(b.lancamento)!.imediato as boolean }, split: { divisaoTarifa: String(s.divisaoTarifa), minhaParte: mine, repasses },
      criacao: earlier?.criacao ?? iso(ctx.now()),
    };
    configs.set(id, config);
    return { status: 200, body: structuredClone(config) };
  }

  /** Each part's cents for a cob's value, or why the configuration cannot split it. */
  function amounts(config: SplitConfig, value: number): { conta: string; cents: number }[] | string {
    const parts = [config.split.minhaParte, ...config.split.repasses];
    if (config.split.minhaParte.tipo === "fixo") {
      const total = parts.reduce((n, p) => n + (cents(p.valor) ?? 0), 0);
      if (total > value) return "A soma das partes do split excede o valor da cobrança";
      if (total < value) return "A soma das partes do split deve ser igual ao valor da cobrança";
      return parts.map((p, i) => ({ conta: i === 0 ? ctx.account.conta : (p as Repasse).favorecido.conta, cents: cents(p.valor) ?? 0 }));
    }
    const passed = config.split.repasses.map((r) => ({ conta: r.favorecido.conta, cents: Math.floor((value * Number(r.valor) * 100) / 10_000) }));
    return [{ conta: ctx.account.conta, cents: value - passed.reduce((n, p) => n + p.cents, 0) }, ...passed];
  }

  // Efí keeps one txid per charge of either kind: a cob's txid is no cobv's.
  const chargeOf = (kind: Kind, txid: string): Cob | CobV | undefined => (kind === "cob" ? ctx.cobs.get(txid) : cobvs.get(txid));

  function link(kind: Kind, txid: string, id: string): Reply {
    const cob = chargeOf(kind, txid);
    const config = configs.get(id);
    if (!cob || !config) return notFound();
    if (cob.status !== "ATIVA") return efiError(400, "cobranca_nao_ativa", "Somente uma cobrança ATIVA pode ser vinculada a um split");
    if (links.has(txid)) return efiError(400, "cobranca_ja_vinculada", "A cobrança já está vinculada a uma configuração de split");
    const split = amounts(config, cents(cob.valor.original) ?? 0);
    if (typeof split === "string") return bad(split);
    links.set(txid, id);
    return { status: 204 };
  }

  /** DELETE .../vinculo: the cob is no longer split; only while ATIVA. */
  function unlink(kind: Kind, txid: string): Reply {
    const cob = chargeOf(kind, txid);
    if (!cob || !links.has(txid)) return notFound();
    if (cob.status !== "ATIVA") return efiError(400, "cobranca_nao_ativa", "Somente uma cobrança ATIVA pode ser desvinculada de um split");
    links.delete(txid);
    return { status: 204 };
  }

  /** The cob (pixSplitDetailCharge: config {id, status, revisao, descricao, tipo}) or cobv (pixSplitDetailDueCharge: config {id, status, descricao}) with its split. */
  function splitOf(kind: Kind, txid: string): Reply {
    const cob = chargeOf(kind, txid);
    if (!cob) return notFound();
    const config = configs.get(links.get(txid) ?? "");
    const { pix: _pix, ...shown } = cob;
    const about = config && (kind === "cob"
      ? { id: config.id, status: config.status, revisao: config.revisao, descricao: config.descricao, tipo: config.split.minhaParte.tipo }
      : { id: config.id, status: config.status, descricao: config.descricao });
    return { status: 200, body: { ...structuredClone(shown), ...(about ? { config: about } : {}) } };
  }

  /** Paid: each part lands in its account (the issuer's part stays in the issuing account, with what the Pix paid beyond or under the value). */
  function paid(txid: string, value: number, paidCents: number) {
    const config = configs.get(links.get(txid) ?? "");
    const split = config ? amounts(config, value) : undefined;
    if (!split || typeof split === "string") return;
    split[0]!.cents += paidCents - value;
    for (const p of split) balances.set(p.conta, (balances.get(p.conta) ?? 0) + p.cents);
  }
  ctx.onCobPaid.push((cob: Cob) => paid(cob.txid, cents(cob.valor.original) ?? 0, cents(cob.valor.original) ?? 0));
  const cobvPaid = (c: CobV) => paid(c.txid, cents(c.valor.original) ?? 0, cents(c.pix?.[0]?.valor) ?? 0);

  const routes: Route[] = [
    ["PUT", /^\/v2\/gn\/split\/config\/([^/]+)$/, (req, m) => putConfig(req, m[1]!)],
    ["GET", /^\/v2\/gn\/split\/config\/([^/]+)$/, (_req, m) => (configs.has(m[1]!) ? { status: 200, body: structuredClone(configs.get(m[1]!)!) } : notFound())],
    ["PUT", /^\/v2\/gn\/split\/(cobv?)\/([^/]+)\/vinculo\/([^/]+)$/, (_req, m) => link(m[1] as Kind, m[2]!, m[3]!)],
    ["DELETE", /^\/v2\/gn\/split\/(cobv?)\/([^/]+)\/vinculo(?:\/[^/]+)?$/, (_req, m) => unlink(m[1] as Kind, m[2]!)],
    ["GET", /^\/v2\/gn\/split\/(cobv?)\/([^/]+)$/, (_req, m) => splitOf(m[1] as Kind, m[2]!)],
  ];
  const moves: SplitMoves = {
    addSplitAccount: (conta, document) => { accounts.set(conta, document.replace(/[^0-9A-Za-z]/g, "").toUpperCase()); },
    splitBalance: (conta) => balances.get(conta) ?? 0,
    splitOf: (txid) => configs.get(links.get(txid) ?? ""),
  };
  return { routes, moves, cobvPaid };
}
