import { efiError, iso, obj, problem, type Clock, type Obj } from "./fake-efi-model.js";
import type { Route } from "./fake-efi-context.js";
import type { ApiRequest, FakeCore, Reply } from "./fake-provider.js";

// Webhook registration at Efí: PUT/GET/DELETE /v2/webhook/{chave} for Pix (received, devoluções,
// sends), /v2/webhookrec for recurrences, /v2/webhookcobr for recurring charges. Efí probes the
// URL when it is registered and refuses the registration if the probe fails. Notices go to the
// registered URL with "/pix" ("/rec", "/cobr") appended to the end of the string, so a URL that
// ends in "?ignorar=" receives the suffix as that parameter's value, the way Efí documents it.

export type WebhookKind = "pix" | "rec" | "cobr";
interface Registered { webhookUrl: string; criacao: string; chave?: string }

export interface WebhookOptions {
  now: Clock;
  pixKey: string;
  /** Efí requires https URLs; the tests' receivers are http, so this is off unless asked for. */
  httpsOnly: boolean;
  probeTimeoutMs: number;
}

export function webhookRoutes(core: FakeCore, opts: WebhookOptions) {
  const pixHooks = new Map<string, Registered>();
  const single: Partial<Record<"rec" | "cobr", Registered>> = {};

  // The registration's test notice: a POST to the URL as registered (no suffix) carrying no Pix.
  async function probe(url: string): Promise<string | undefined> {
    const entry = { label: "webhook.probe", url, body: JSON.stringify({ evento: "teste_webhook" }), headers: { "content-type": "application/json" }, attempts: 1, at: Date.now() };
    core.webhooks.sent.push(entry);
    try {
      const res = await fetch(url, { method: "POST", headers: entry.headers, body: entry.body, signal: AbortSignal.timeout(opts.probeTimeoutMs) });
      await res.text();
      Object.assign(entry, { status: res.status });
      return res.ok ? undefined : `A URL informada respondeu com o código HTTP ${res.status}`;
    } catch (err) {
      Object.assign(entry, { status: 0, error: (err as Error).message });
      return (err as Error).name === "TimeoutError" ? "A URL informada atingiu o tempo limite de resposta" : "A URL informada está inacessível";
    }
  }

  async function register(req: ApiRequest, kind: WebhookKind, chave?: string): Promise<Reply> {
    const url = obj(req.json)?.webhookUrl;
    let parsed: URL;
    try { parsed = new URL(String(url)); } catch { return efiError(400, "valor_invalido", "URL inválida"); }
    if (typeof url !== "string") return efiError(400, "valor_invalido", "URL inválida");
    if (opts.httpsOnly && parsed.protocol !== "https:") return efiError(400, "valor_invalido", "A URL do webhook deve usar o protocolo HTTPS");
    if (kind === "pix" && chave !== opts.pixKey) {
      return problem(400, "WebhookOperacaoInvalida", "Webhook inválido.", "O parâmetro chave não corresponde a uma chave DICT pertencente a este usuário recebedor.", [{ razao: "chave de outra conta", propriedade: "chave" }]);
    }
    // The fake cannot check the receiver's mutual TLS, so without skip-mTLS it finds none, as Efí would on a server that does not ask for its certificate.
    if (req.headers["x-skip-mtls-checking"] !== "true") return efiError(400, "webhook_invalido", "A autenticação de TLS mútuo não está configurada na URL informada");
    const failed = await probe(url);
    if (failed) return efiError(400, "webhook_invalido", failed);
    const reg: Registered = { webhookUrl: url, criacao: iso(opts.now()), ...(chave ? { chave } : {}) };
    if (kind === "pix") pixHooks.set(chave!, reg);
    else single[kind] = reg;
    // Efí documents 201 for the Pix webhook; for webhookrec and webhookcobr only the OpenAPI speaks: 200.
    return { status: kind === "pix" ? 201 : 200 };
  }

  const webhookNotFound = () => problem(404, "WebhookNaoEncontrado", "Não Encontrado", "O webhook não se encontra estabelecido.");
  const show = (r: Registered | undefined): Reply => (r ? { status: 200, body: r } : webhookNotFound());
  // Each registration needs its own scope (the Central Bank's OpenAPI 2.9.0 `security`: webhook.*,
  // webhookrec.*, webhookcobr.*): an application without Pix Automático's scopes still registers the Pix one.
  const routes: Route[] = [
    ["PUT", /^\/v2\/webhook\/([^/]+)$/, (req, m) => register(req, "pix", decodeURIComponent(m[1]!)), "webhook.write"],
    ["GET", /^\/v2\/webhook\/([^/]+)$/, (_req, m) => show(pixHooks.get(decodeURIComponent(m[1]!))), "webhook.read"],
    ["DELETE", /^\/v2\/webhook\/([^/]+)$/, (_req, m) => (pixHooks.delete(decodeURIComponent(m[1]!)) ? { status: 204 } : webhookNotFound()), "webhook.write"],
    ["GET", /^\/v2\/webhook$/, () => ({ status: 200, body: { parametros: { paginacao: { paginaAtual: 0, itensPorPagina: 100, quantidadeDePaginas: 1, quantidadeTotalDeItens: pixHooks.size } }, webhooks: [...pixHooks.values()] } }), "webhook.read"],
  ];
  for (const kind of ["rec", "cobr"] as const) {
    const path = new RegExp(`^/v2/webhook${kind}$`);
    routes.push(["PUT", path, (req) => register(req, kind), `webhook${kind}.write`], ["GET", path, () => show(single[kind]), `webhook${kind}.read`], ["DELETE", path, () => {
      if (!single[kind]) return webhookNotFound();
      delete single[kind];
      return { status: 204 };
    }, `webhook${kind}.write`]);
  }

  /** Where a notice of this kind goes now: the registered URL with the suffix appended as text. */
  function target(kind: WebhookKind, key?: string): string | undefined {
    const reg = kind === "pix" ? pixHooks.get(key ?? opts.pixKey) : single[kind];
    return reg ? `${reg.webhookUrl}/${kind}` : undefined;
  }

  function notify(kind: WebhookKind, body: Obj, label: string, key?: string): void {
    const text = JSON.stringify(body);
    // No target: core.notify records it as not sent (dropped), which a test can see.
    core.notify({ label, body: text, headers: () => ({}) }, target(kind, key) ?? "");
  }

  return { routes, notify, target, hasPixWebhook: (key: string) => pixHooks.has(key) };
}
