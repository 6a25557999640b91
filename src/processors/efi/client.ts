import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { rootCertificates, type ConnectionOptions } from "node:tls";
import { basicAuth, createHttpClient, type CallInput, type CallResult, type HttpClientOptions, type MappedError } from "../http-client.js";
import type { ProcessorFailure } from "../processor.js";

// HTTP to Efí Bank's API Pix (the Central Bank's standard API Pix plus Efí's Pix send). Every
// call, the token's included, is mutual TLS with the operator's certificate (EFI_CERTIFICATE: a
// PEM holding the certificate and its key, or a .p12); EFI_CA_FILE is trusted besides the
// public CAs (a local fake's). Calls carry an OAuth 2.0 client-credentials token (POST
// /oauth/token, HTTP Basic and `{"grant_type":"client_credentials"}`), reused until shortly
// before it expires: one refresh at a time, which concurrent calls wait for, and a call answered
// 401 (the token expired early, e.g. Efí revoked it) gets a new token and is sent once more (a
// 401 proves Efí did nothing). Efí keys its writes by ids feira derives from its own (txid,
// devolução id, idEnvio): a retry finds the first object instead of making a second.
// Nothing of a certificate, secret or token is logged or kept outside this closure.

export const EFI_DEFAULT_URL = "https://pix.api.efipay.com.br";

const alnum = (id: string) => id.replace(/[^A-Za-z0-9]/g, "");
/** feira's id as Efí's id of `min` to 35 letters and digits: its letters and digits, else a digest of it. */
function derived(id: string, min: number): string {
  const plain = alnum(id);
  return plain.length >= min && plain.length <= 35 ? plain : createHash("sha256").update(id).digest("hex").slice(0, 32);
}

/** The ids feira's objects have at Efí: the same object always gets the same id. */
export const efiIds = {
  /** A charge's cob (txid: 26 to 35 letters and digits). `ch_01jd...` is `ch01jd...`. */
  txid: (chargeId: string) => derived(chargeId, 26),
  /** A refund's devolução (id: 1 to 35). */
  devolucao: (refundId: string) => derived(refundId, 1),
  /** A payout's Pix send (idEnvio: 1 to 35). */
  envio: (payoutId: string) => derived(payoutId, 1),
  /**
   * Whether a devolução's id is one feira derived from its own refund ids (a refund `re_...`, a
   * late payment's `late_ch_...`): any other devolução on a Pix feira received is one it did not
   * ask for (a MED's), whatever its `natureza` says or leaves out.
   */
  isOwnDevolucao: (id: string | undefined) => typeof id === "string" && /^(re|latech)[0-9a-z]{26}$/.test(id),
  /** A charge's split configuration (id: 26 to 35, as a txid), distinct from its txid. */
  splitConfig: (chargeId: string) => derived(`sp_${chargeId}`, 26),
  /** A period's recurring charge (cobr txid: 26 to 35), from feira's debit id. */
  cobr: (debitId: string) => derived(debitId, 26),
  /**
   * The feira id a txid or idEnvio was derived from (`ch01jd...` is `ch_01jd...`), when it was
   * one of feira's ids; a notice then finds a charge whose create's answer was lost (no txid on it).
   */
  feiraId: (efiId: string): string | undefined => /^([a-z]{2,4})([0-9a-z]{26})$/.exec(efiId)?.slice(1).join("_"),
};

/**
 * Efí's error body as feira's text: its `nome` (`{nome, mensagem}`) or the Central Bank's
 * problem type (`https://pix.bcb.gov.br/api/v2/error/PixDevolucaoInvalida`), never its prose.
 */
export function mapEfiError(status: number, body: unknown): MappedError {
  const b = (body && typeof body === "object" ? body : {}) as { nome?: unknown; type?: unknown; error?: unknown };
  const named = [b.nome, typeof b.type === "string" ? b.type.split("/").pop() : undefined, b.error]
    .find((v): v is string => typeof v === "string" && /^[\w-]{1,60}$/.test(v));
  const code = named ?? `http_${status}`;
  return { providerCode: code, message: `the processor refused the request (${status}, code ${code})` };
}

export interface EfiConnection {
  clientId: string;
  clientSecret: string;
  /** Path of a PEM (certificate and private key) or of a .p12/.pfx. */
  certificate: string;
  certificatePassword?: string;
  /** Path of a PEM of CAs trusted besides the public ones. */
  caFile?: string;
}

export interface EfiClientOptions extends EfiConnection {
  baseUrl?: string;
  timeoutMs: number;
  connections?: number;
  log?: HttpClientOptions["log"];
  /** The clock tokens are timed by (tests). */
  now?: () => number;
}

/** Whether a certificate path names a PKCS#12 file (Efí hands out .p12). */
export const isPkcs12 = (path: string) => /\.(p12|pfx)$/i.test(path);

/** The TLS options of every connection to Efí: the operator's certificate, and the CAs to trust. */
export function efiTls(o: EfiConnection): ConnectionOptions {
  const own = readFileSync(o.certificate);
  const identity: ConnectionOptions = isPkcs12(o.certificate)
    ? { pfx: own, ...(o.certificatePassword ? { passphrase: o.certificatePassword } : {}) }
    : { cert: own, key: own };
  return { ...identity, ...(o.caFile ? { ca: [...rootCertificates, readFileSync(o.caFile, "utf8")] } : {}) };
}

type Token = { value: string; renewAt: number };

export function createEfiClient(opts: EfiClientOptions) {
  const now = opts.now ?? Date.now;
  const http = createHttpClient({
    baseUrl: opts.baseUrl ?? EFI_DEFAULT_URL,
    timeoutMs: opts.timeoutMs,
    headers: {},
    mapError: mapEfiError,
    log: opts.log,
    connections: opts.connections,
    tls: efiTls(opts),
  });
  let token: Token | undefined;
  let refreshing: Promise<Token | ProcessorFailure> | undefined;

  async function fetchToken(): Promise<Token | ProcessorFailure> {
    const started = now();
    const r = await http.call({
      method: "POST", path: "/oauth/token", body: { grant_type: "client_credentials" },
      headers: { authorization: basicAuth(opts.clientId, opts.clientSecret) },
    });
    if (!r.ok) return r.failure;
    const b = (r.body ?? {}) as { access_token?: unknown; expires_in?: unknown };
    if (typeof b.access_token !== "string" || b.access_token === "") return { kind: "bad_response", message: "the processor's token answer had no access_token" };
    const ttlMs = (typeof b.expires_in === "number" && b.expires_in > 0 ? b.expires_in : 3600) * 1000;
    // Renewed a minute before it expires (half its life when it is shorter), so that no call
    // leaves with a token that lapses on the way.
    return { value: b.access_token, renewAt: started + Math.max(ttlMs - 60_000, ttlMs / 2) };
  }

  /** The token to call with: the current one, or the one refresh every waiting call shares. */
  async function accessToken(): Promise<Token | ProcessorFailure> {
    if (token && now() < token.renewAt) return token;
    refreshing ??= fetchToken().then((t) => {
      if ("value" in t) token = t;
      return t;
    }).finally(() => { refreshing = undefined; });
    return refreshing;
  }

  /**
   * No token means the call itself was never sent: a refusal of feira's credentials is the
   * provider refusing the request (a 4xx, reported as 401 whatever the token call's status, so
   * that a caller tells it from a refusal of the request itself), anything else proves nothing
   * was made either.
   */
  const noToken = (f: ProcessorFailure): CallResult => ({
    ok: false,
    failure: f.kind === "http_4xx"
      ? { ...f, status: 401, message: `the processor refused feira's credentials (${f.status}, code ${f.providerCode ?? "none"})` }
      : { kind: "connection_refused", message: `could not get an access token from the processor (${f.kind})` },
  });

  async function call(input: CallInput, retried = false): Promise<CallResult> {
    const t = await accessToken();
    if (!("value" in t)) return noToken(t);
    const r = await http.call({ ...input, headers: { ...input.headers, authorization: `Bearer ${t.value}` } });
    if (!r.ok && r.failure.status === 401 && !retried) {
      if (token === t) token = undefined;
      return call(input, true);
    }
    return r;
  }

  const cob = (txid: string) => `/v2/cob/${encodeURIComponent(txid)}`;
  const pix = (e2eid: string) => `/v2/pix/${encodeURIComponent(e2eid)}`;
  const devolucao = (e2eid: string, id: string) => `${pix(e2eid)}/devolucao/${encodeURIComponent(id)}`;
  return {
    createCob: (txid: string, body: Record<string, unknown>) => call({ method: "PUT", path: cob(txid), body }),
    getCob: (txid: string) => call({ method: "GET", path: cob(txid) }),
    reviseCob: (txid: string, body: Record<string, unknown>) => call({ method: "PATCH", path: cob(txid), body }),
    // Pix with a due date (cobv), under the same txids as cobs.
    createCobv: (txid: string, body: Record<string, unknown>) => call({ method: "PUT", path: `/v2/cobv/${encodeURIComponent(txid)}`, body }),
    getCobv: (txid: string) => call({ method: "GET", path: `/v2/cobv/${encodeURIComponent(txid)}` }),
    reviseCobv: (txid: string, body: Record<string, unknown>) => call({ method: "PATCH", path: `/v2/cobv/${encodeURIComponent(txid)}`, body }),
    getPix: (e2eid: string) => call({ method: "GET", path: pix(e2eid) }),
    devolver: (e2eid: string, id: string, body: Record<string, unknown>) => call({ method: "PUT", path: devolucao(e2eid, id), body }),
    getDevolucao: (e2eid: string, id: string) => call({ method: "GET", path: devolucao(e2eid, id) }),
    /** A Pix send from the account's key (Efí's own API; the SDK's pixSend). */
    send: (idEnvio: string, body: Record<string, unknown>) => call({ method: "PUT", path: `/v3/gn/pix/${encodeURIComponent(idEnvio)}`, body }),
    getSend: (idEnvio: string) => call({ method: "GET", path: `/v2/gn/pix/enviados/id-envio/${encodeURIComponent(idEnvio)}` }),
    // Pix Automático (the Central Bank's API Pix 2.9.0): locations, recurrences, recurring charges.
    createLocRec: () => call({ method: "POST", path: "/v2/locrec", body: {} }),
    createRec: (body: Record<string, unknown>) => call({ method: "POST", path: "/v2/rec", body }),
    /** With `txid`, the QR (dadosQR) is journey 3's: the recurrence and that cob together. */
    getRec: (idRec: string, txid?: string) => call({ method: "GET", path: `/v2/rec/${encodeURIComponent(idRec)}${txid ? `?txid=${encodeURIComponent(txid)}` : ""}` }),
    /** GET /v2/rec: the recurrences created in [inicio, fim] for a payer's CPF or CNPJ. */
    listRecs: (q: { inicio: string; fim: string; cpf?: string; cnpj?: string }) =>
      call({ method: "GET", path: `/v2/rec?${new URLSearchParams(Object.entries(q).filter((e): e is [string, string] => typeof e[1] === "string")).toString()}` }),
    reviseRec: (idRec: string, body: Record<string, unknown>) => call({ method: "PATCH", path: `/v2/rec/${encodeURIComponent(idRec)}`, body }),
    createCobr: (txid: string, body: Record<string, unknown>) => call({ method: "PUT", path: `/v2/cobr/${encodeURIComponent(txid)}`, body }),
    getCobr: (txid: string) => call({ method: "GET", path: `/v2/cobr/${encodeURIComponent(txid)}` }),
    /** PATCH /cobr/{txid} (CobRRevisada): `{status: "CANCELADA"}` until the day before its first attempt. */
    reviseCobr: (txid: string, body: Record<string, unknown>) => call({ method: "PATCH", path: `/v2/cobr/${encodeURIComponent(txid)}`, body }),
    /** A new attempt of a recurring charge on `date` (YYYY-MM-DD): POST /cobr/{txid}/retentativa/{data}. */
    retryCobr: (txid: string, date: string) => call({ method: "POST", path: `/v2/cobr/${encodeURIComponent(txid)}/retentativa/${encodeURIComponent(date)}` }),
    /** Efí's MED infractions on Pix the account received (GET /v2/gn/infracoes: inicio and fim required, the API Pix's paging). */
    listInfractions: (q: { inicio: string; fim: string; pagina: number; porPagina: number }) => call({
      method: "GET",
      path: `/v2/gn/infracoes?${new URLSearchParams({ inicio: q.inicio, fim: q.fim, "paginacao.paginaAtual": String(q.pagina), "paginacao.itensPorPagina": String(q.porPagina) }).toString()}`,
    }),
    /** The receiver's defence of an infraction (POST /v2/gn/infracoes/{idInfracao}/defesa: `{analise, justificativa}`). */
    defendInfraction: (idInfracao: string, body: { analise: "aceito" | "rejeitado"; justificativa: string }) =>
      call({ method: "POST", path: `/v2/gn/infracoes/${encodeURIComponent(idInfracao)}/defesa`, body }),
    /** The recurrences' and recurring charges' notice URL (webhookrec, webhookcobr). */
    registerRecWebhook: (kind: "webhookrec" | "webhookcobr", webhookUrl: string) =>
      call({ method: "PUT", path: `/v2/${kind}`, body: { webhookUrl }, headers: { "x-skip-mtls-checking": "true" } }),
    /**
     * Registers the notice URL of a Pix key. `x-skip-mtls-checking`: feira's notice route does
     * not ask for Efí's client certificate (it checks the URL's secret and reads everything back).
     */
    registerWebhook: (pixKey: string, webhookUrl: string) =>
      call({ method: "PUT", path: `/v2/webhook/${encodeURIComponent(pixKey)}`, body: { webhookUrl }, headers: { "x-skip-mtls-checking": "true" } }),
    // Efí's split de pagamento Pix (split.ts): a configuration under feira's id, and its vínculo to
    // a cob or, for a Pix with a due date, a cobv (the same routes under /v2/gn/split/cobv/).
    putSplitConfig: (id: string, body: Record<string, unknown>) => call({ method: "PUT", path: `/v2/gn/split/config/${encodeURIComponent(id)}`, body }),
    getSplitConfig: (id: string) => call({ method: "GET", path: `/v2/gn/split/config/${encodeURIComponent(id)}` }),
    linkSplit: (kind: "cob" | "cobv", txid: string, id: string) =>
      call({ method: "PUT", path: `/v2/gn/split/${kind}/${encodeURIComponent(txid)}/vinculo/${encodeURIComponent(id)}` }),
    getSplitOf: (kind: "cob" | "cobv", txid: string) => call({ method: "GET", path: `/v2/gn/split/${kind}/${encodeURIComponent(txid)}` }),
    close: () => http.close(),
  };
}

export type EfiClient = ReturnType<typeof createEfiClient>;
