import { randomBytes, randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";
import { makeEfiCertificates, type EfiCertificates } from "./fake-efi-certs.js";
import { moveReply, type EfiContext, type Route, type SettleMode } from "./fake-efi-context.js";
import { cobvRoutes, type CobV, type CobvMoves } from "./fake-efi-cobv.js";
import { efiError, obj, problem, type Clock } from "./fake-efi-model.js";
import { infractionRoutes, type InfractionMoves } from "./fake-efi-infractions.js";
import { pixRoutes, type PixMoves } from "./fake-efi-pix.js";
import { recRoutes, type RecMoves } from "./fake-efi-rec.js";
import { splitRoutes, type SplitMoves } from "./fake-efi-split.js";
import { webhookRoutes } from "./fake-efi-webhooks.js";
import { faultCounts, startFakeCore, type ApiRequest, type FakeProvider, type Reply } from "./fake-provider.js";

// A fake of Efí Bank's API Pix (the Central Bank's standard API Pix plus Efí's Pix send), built
// from the Central Bank's OpenAPI (bacen/pix-api 2.9.0), Efí's public documentation and its
// official Node SDK's endpoint list (docs/processors.md, "The Efí fake"): mutual TLS with
// certificates made at start, OAuth client credentials with expiring tokens, cob, cobv (Pix with a
// due date, fake-efi-cobv.ts), received Pix,
// devoluções (refunds and MED returns), Pix send, webhooks with Efí's probe and path suffixes
// (each registration behind its own scope), MED infractions and their defence, and Pix Automático
// (locrec, rec, solicrec, cobr), and the split de pagamento Pix. Faults, latency, and duplicated or reordered
// notices come from fake-provider.ts. A control API under /__fake/ moves objects as the payer,
// the payer's bank or the network would.
//
// Local mode: `npm run fake:efi` (FAKE_EFI_PORT, default 4040; control on port + 1, plain HTTP).

/** Every scope the fake knows (Efí's application settings, the Central Bank's OpenAPI `security`). */
export const ALL_SCOPES: readonly string[] = [
  "cob.write", "cob.read", "pix.write", "pix.read", "webhook.write", "webhook.read", "pix.send", "gn.pix.send.read", "rec.write", "rec.read",
  "cobr.write", "cobr.read", "solicrec.write", "solicrec.read", "payloadlocationrec.write", "payloadlocationrec.read",
  "webhookrec.write", "webhookrec.read", "webhookcobr.write", "webhookcobr.read",
];

export interface FakeEfiOptions {
  clientId?: string;
  clientSecret?: string;
  /** The account's Pix key: cobs must carry it, sends must pay from it. Default: a random EVP key. */
  pixKey?: string;
  /** Lifetime of an access token, on the fake's clock (Efí: 3600). */
  tokenTtlSeconds?: number;
  /** The fake's clock (cob expiry, token expiry, the cobr window); advanceClock() moves it on. */
  now?: Clock;
  port?: number;
  controlPort?: number;
  latencyMs?: number;
  webhookRetries?: number;
  webhookRetryDelayMs?: number;
  /** Devoluções and sends end at once after the answer ("auto", default) or when a test says. */
  devolucaoMode?: SettleMode;
  sendMode?: SettleMode;
  /** A second devolução under the same id: the Central Bank's 400 PixDevolucaoInvalida (default) or Efí's documented 409 devolucao_id_duplicado. */
  duplicateDevolucao?: "bcb-400" | "efi-409";
  /** Efí requires a webhook on the paying key before a send (default true). */
  sendNeedsWebhook?: boolean;
  webhookHttpsOnly?: boolean;
  p12Password?: string;
  /** The scopes the account's application has enabled (default: every scope the fake knows); tokens carry them. */
  scopes?: readonly string[];
}

export interface FakeEfi extends FakeProvider, PixMoves, CobvMoves, InfractionMoves, SplitMoves, Omit<RecMoves, "approveRec"> {
  clientId: string;
  clientSecret: string;
  pixKey: string;
  certs: EfiCertificates;
  ctx: EfiContext;
  /** The Pix with a due date made so far, by txid. */
  cobvs: Map<string, CobV>;
  approveRec(idRec: string): ReturnType<RecMoves["approveRec"]>;
  /** Where a notice of this kind goes now (registered URL + suffix), or undefined. */
  webhookTarget(kind: "pix" | "rec" | "cobr", key?: string): string | undefined;
  /** Moves the fake's clock on. */
  advanceClock(ms: number): void;
  /** Every token issued so far stops working, as after its lifetime. */
  expireTokens(): void;
  /** The application's scopes from now on (Efí's dashboard): tokens issued after this carry them. */
  setScopes(scopes: readonly string[]): void;
  setModes(modes: Partial<EfiContext["modes"]>): void;
  close(): Promise<void>;
}

export async function startFakeEfi(opts: FakeEfiOptions = {}): Promise<FakeEfi> {
  const clientId = opts.clientId ?? "Client_Id_fake_efi";
  const clientSecret = opts.clientSecret ?? "Client_Secret_fake_efi";
  const tokenTtl = opts.tokenTtlSeconds ?? 3600;
  let offset = 0;
  const now: Clock = () => new Date((opts.now?.() ?? new Date()).getTime() + offset);
  const certs = makeEfiCertificates(opts.p12Password);
  const tokens = new Map<string, { until: number; scopes: ReadonlySet<string> }>();
  let scopes: readonly string[] = opts.scopes ?? ALL_SCOPES;

  const core = await startFakeCore({
    basePath: "", port: opts.port, controlPort: opts.controlPort, latencyMs: opts.latencyMs, tls: { ...certs.server, ca: certs.ca },
    webhookRetries: opts.webhookRetries, webhookRetryDelayMs: opts.webhookRetryDelayMs,
    errorBody: (status, message) => (status === 404 ? problem(404, "NaoEncontrado", "Não Encontrado", message).body : { nome: "erro_aplicacao", mensagem: message }),
    api: (req) => api(req),
    control: (req) => control(req),
  });
  const pixKey = opts.pixKey ?? randomUUID();
  const hooks = webhookRoutes(core, { now, pixKey, httpsOnly: opts.webhookHttpsOnly ?? false, probeTimeoutMs: 5000 });
  const ctx: EfiContext = {
    now, pixKey, merchant: { name: "Loja Fake Efi", city: "SAO PAULO", cnpj: "12345678000195" }, account: { conta: "4815162", agencia: "0001", tipoConta: "CORRENTE" },
    cobs: new Map(), pix: new Map(), sends: new Map(), recs: new Map(), cobrs: new Map(), infracoes: new Map(),
    modes: { devolucao: opts.devolucaoMode ?? "auto", send: opts.sendMode ?? "auto", duplicateDevolucao: opts.duplicateDevolucao ?? "bcb-400", sendNeedsWebhook: opts.sendNeedsWebhook ?? true },
    notify: hooks.notify, hasPixWebhook: hooks.hasPixWebhook, onCobPaid: [],
  };
  const pix = pixRoutes(ctx);
  const rec = recRoutes(ctx);
  const cobvs = new Map<string, CobV>();
  // Efí's split de pagamento Pix: configurations, their vínculo to cobs and cobvs, the parts paid out.
  const split = splitRoutes(ctx, cobvs);
  const cobv = cobvRoutes(ctx, cobvs, split.cobvPaid);
  // Efí's acceptance of an infraction returns its amount by a devolução that names no nature.
  const infractions = infractionRoutes(ctx, (e2eid, amount) => pix.moves.med(e2eid, { natureza: null, valor: amount }));
  const routes: Route[] = [...pix.routes, ...cobv.routes, ...rec.routes, ...hooks.routes, ...infractions.routes, ...split.routes];

  // POST /oauth/token: HTTP Basic client_id:client_secret and {"grant_type":"client_credentials"}.
  function token(req: ApiRequest): Reply {
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? "")?.[1];
    if (Buffer.from(basic ?? "", "base64").toString("utf8") !== `${clientId}:${clientSecret}`) return { status: 401, body: { error: "invalid_client", error_description: "Credenciais inválidas" } };
    if (obj(req.json)?.grant_type !== "client_credentials") return { status: 400, body: { error: "unsupported_grant_type", error_description: "grant_type deve ser client_credentials" } };
    const accessToken = randomBytes(24).toString("base64url");
    tokens.set(accessToken, { until: now().getTime() + tokenTtl * 1000, scopes: new Set(scopes) });
    return { status: 200, body: { access_token: accessToken, token_type: "Bearer", expires_in: tokenTtl, scope: scopes.join(" ") } };
  }

  async function api(req: ApiRequest): Promise<Reply> {
    if (req.method === "POST" && req.path === "/oauth/token") return token(req);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const granted = bearer ? tokens.get(bearer) : undefined;
    if (granted === undefined || granted.until <= now().getTime()) return { status: 401, body: { nome: "nao_autorizado", mensagem: "Token de acesso inválido ou expirado" }, headers: { "www-authenticate": 'Bearer error="invalid_token"' } };
    if (req.jsonInvalid) return efiError(400, "json_invalido", "O corpo da requisição não é um JSON válido");
    for (const [method, path, handle, scope] of routes) {
      const m = method === req.method ? path.exec(req.path) : null;
      // The Central Bank's general refusal of what the application's scopes do not cover; its body names no scope.
      if (m && scope && !granted.scopes.has(scope)) return problem(403, "AcessoNegado", "Acesso Negado", "Requisição de participante autenticado que viola alguma regra de autorização.");
      if (m) return handle(req, m);
    }
    return problem(404, "NaoEncontrado", "Não Encontrado", `Nenhum recurso em ${req.method} ${req.path}`);
  }

  const approveRec = (idRec: string) => rec.moves.approveRec(idRec, pix.moves.pay);
  const setModes = (m: Partial<EfiContext["modes"]>) => Object.assign(ctx.modes, Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)));

  async function control(req: ApiRequest): Promise<Reply> {
    const b = obj(req.json) ?? {};
    const str = (k: string) => (typeof b[k] === "string" ? (b[k] as string) : undefined);
    const routes: [RegExp, (m: RegExpExecArray) => Reply][] = [
      [/^\/__fake\/cob\/([^/]+)\/pay$/, (m) => moveReply(pix.moves.pay(m[1]!, { infoPagador: str("infoPagador") }))],
      [/^\/__fake\/cobv\/([^/]+)\/pay$/, (m) => moveReply(cobv.moves.payCobv(m[1]!))],
      [/^\/__fake\/cob\/([^/]+)\/remove$/, (m) => moveReply(pix.moves.removeCob(m[1]!))],
      [/^\/__fake\/pix\/([^/]+)\/med$/, (m) => moveReply(pix.moves.med(m[1]!, { natureza: str("natureza") as "MED_FRAUDE" | undefined, valor: str("valor") }))],
      [/^\/__fake\/pix\/([^/]+)\/devolucao\/([^/]+)\/(finish|fail)$/, (m) => moveReply(pix.moves.finishDevolucao(m[1]!, m[2]!, m[3] === "finish", str("motivo")))],
      [/^\/__fake\/pix\/([^/]+)\/infraction$/, (m) => moveReply(infractions.moves.openInfraction(m[1]!, { valor: str("valor") }))],
      [/^\/__fake\/infraction\/([^/]+)\/(ACEITA|REJEITADA|CANCELADA_EFI)$/, (m) => moveReply(infractions.moves.decideInfraction(m[1]!, m[2] as "ACEITA"))],
      [/^\/__fake\/send\/([^/]+)\/(finish|fail)$/, (m) => moveReply(pix.moves.finishSend(m[1]!, m[2] === "finish", str("motivo")))],
      [/^\/__fake\/send\/([^/]+)\/(return|land)$/, (m) => moveReply(m[2] === "land" ? pix.moves.landSend(m[1]!) : pix.moves.returnSend(m[1]!, { valor: str("valor") }))],
      [/^\/__fake\/rec\/([^/]+)\/approve$/, (m) => moveReply(approveRec(m[1]!))],
      [/^\/__fake\/rec\/([^/]+)\/(reject|expire|cancel)$/, (m) => moveReply(rec.moves[`${m[2] as "reject" | "expire" | "cancel"}Rec`](m[1]!))],
      [/^\/__fake\/cobr\/([^/]+)\/debit$/, (m) => moveReply(rec.moves.debit(m[1]!, { ok: b.ok !== false, codigo: str("codigo") }))],
      [/^\/__fake\/clock$/, () => {
        if (!Number.isSafeInteger(b.advanceMs) || (b.advanceMs as number) < 0) return { status: 400, body: { message: "advanceMs must be a non-negative integer" } };
        offset += b.advanceMs as number;
        return { status: 200, body: { now: now().toISOString() } };
      }],
      [/^\/__fake\/expire-tokens$/, () => { tokens.clear(); return { status: 200, body: { ok: true } }; }],
      [/^\/__fake\/modes$/, () => { setModes(b as Partial<EfiContext["modes"]>); return { status: 200, body: ctx.modes }; }],
    ];
    for (const [path, handle] of req.method === "POST" ? routes : []) {
      const m = path.exec(req.path);
      if (m) return handle(m);
    }
    if (req.method === "GET" && req.path === "/__fake/state") {
      return { status: 200, body: { cobs: ctx.cobs.size, cobvs: cobvs.size, infracoes: ctx.infracoes.size, sends: ctx.sends.size, recs: ctx.recs.size, cobrs: ctx.cobrs.size, faults: faultCounts(core.requests), now: now().toISOString() } };
    }
    return { status: 404, body: { message: "unknown control route" } };
  }

  return {
    ...core.controls, url: core.origin, controlUrl: core.controlUrl, core, clientId, clientSecret, pixKey, certs, ctx,
    ...pix.moves, ...cobv.moves, cobvs, ...infractions.moves, ...split.moves, rejectRec: rec.moves.rejectRec, expireRec: rec.moves.expireRec, cancelRec: rec.moves.cancelRec, debit: rec.moves.debit, approveRec,
    webhookTarget: hooks.target,
    advanceClock: (ms) => { offset += ms; },
    expireTokens: () => tokens.clear(),
    setScopes: (next) => { scopes = [...next]; },
    setModes,
    close: async () => { await core.close(); certs.remove(); },
  };
}

// Local mode: a fake for a feira started with EFI_API_URL pointing here.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const port = Number(process.env.FAKE_EFI_PORT ?? 4040);
  const fake = await startFakeEfi({
    port, controlPort: Number(process.env.FAKE_EFI_CONTROL_PORT ?? (port ? port + 1 : 0)), latencyMs: Number(process.env.FAKE_LATENCY_MS ?? 0),
    clientId: process.env.EFI_CLIENT_ID, clientSecret: process.env.EFI_CLIENT_SECRET, pixKey: process.env.EFI_PIX_KEY,
  });
  console.log(`fake Efí on ${fake.url} (mutual TLS; control API on ${fake.controlUrl}/__fake/...)`);
  console.log(`start feira with EFI_API_URL=${fake.url} EFI_CLIENT_ID=${fake.clientId} EFI_CLIENT_SECRET=${fake.clientSecret} `
    + `EFI_PIX_KEY=${fake.pixKey} EFI_CERTIFICATE=${fake.certs.client.pemFile} EFI_CA_FILE=${fake.certs.caFile} `
    + `EFI_ACCOUNT_NUMBER=${fake.ctx.account.conta} EFI_ACCOUNT_TYPE=${fake.ctx.account.tipoConta} EFI_ACCOUNT_BRANCH=${fake.ctx.account.agencia} `
    + `(or EFI_CERTIFICATE=${fake.certs.client.p12File} EFI_CERTIFICATE_PASSWORD=${fake.certs.client.p12Password})`);
  process.once("SIGINT", () => { void fake.close().then(() => process.exit(0)); });
  process.once("SIGTERM", () => { void fake.close().then(() => process.exit(0)); });
}
