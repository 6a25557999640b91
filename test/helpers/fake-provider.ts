import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { IdempotencyStore } from "./fake-idempotency.js";
import { startWebhookSender, type OutgoingWebhook, type SentWebhook, type WebhookFault, type WebhookSender } from "./fake-webhook-sender.js";

// The HTTP machinery shared by the payment provider fakes (fake-pagarme.ts, fake-mercadopago.ts):
// a real server on 127.0.0.1, a log of every API request with its headers and raw body, fault
// modes that a test (or another process, through the control API) sets per run or for the next
// n calls, a latency added to every answer, an idempotency store, and a webhook sender. What a
// provider answers is the provider file's business; this file only decides whether and when
// the answer reaches the client.

export type FaultMode =
  | "none"
  | "refuse" // stop listening: new connections get ECONNREFUSED (nothing can have been created)
  | "reset" // accept, read the request, destroy the socket without doing the work
  | "hang" // accept, never answer, never do the work
  | "500" // answer 500 without doing the work
  | "429" // answer 429 with Retry-After without doing the work
  | "401" // answer 401 without doing the work (e.g. a token call refusing the credentials)
  | "lost-answer" // do the work, then destroy the socket before answering
  | "500-after-work" // do the work, then answer 500 (the provider broke after committing)
  | "late-answer"; // do the work, then answer forMs (default 30 s) late: after the client's timeout

export const FAULT_MODES: readonly FaultMode[] = ["none", "refuse", "reset", "hang", "500", "429", "401", "lost-answer", "500-after-work", "late-answer"];

export interface FaultSpec {
  mode: FaultMode;
  /** Only the next n matching API calls; absent = until cleared. Not for "refuse". */
  times?: number;
  /** Only calls whose "METHOD /path" (path below the base, no query) starts with this, e.g. "POST /orders". */
  match?: string;
  /** "refuse": listen again after this many ms (absent = until cleared); "late-answer": how late. */
  forMs?: number;
}

export interface RecordedRequest {
  n: number;
  method: string;
  /** "METHOD /path" below the API base, without the query string. */
  route: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
  /** The fault applied to this call, if any. */
  fault?: FaultMode;
  /** The status the API's handler answered (before any fault that loses the answer); unset for a fault's own answer. */
  status?: number;
}

export interface Reply { status: number; body?: unknown; headers?: Record<string, string>; raw?: Buffer }

export interface ApiRequest {
  method: string;
  /** Path below the API base, e.g. "/orders/or_x". */
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  /** The parsed JSON body; undefined when empty. */
  json: unknown;
  jsonInvalid: boolean;
  /** Runs once the answer was written, dropped or abandoned (used to end an idempotency key's in-flight window). */
  afterReply(fn: () => void): void;
}

export type Handler = (req: ApiRequest) => Promise<Reply> | Reply;

export interface CoreOptions {
  /** Prefix of the API paths, e.g. "/core/v5" or "". */
  basePath: string;
  port?: number;
  controlPort?: number;
  latencyMs?: number;
  api: Handler;
  /** Provider-specific control routes, called for /__fake/* paths the core does not handle. */
  control: Handler;
  /** The provider's error body for a status (used by the 500/429 faults and unknown routes). */
  errorBody(status: number, message: string): unknown;
  webhookRetries?: number;
  webhookRetryDelayMs?: number;
  /** Where webhooks go unless a call names its own URL; none = recorded as not sent. */
  webhookUrl?: string;
  idempotencyTtlMs?: number;
  /**
   * Keeps the connection after an API answer, as the real providers do (benchmarks: a new
   * connection per call would make the client pay a connect and a close, and run the machine
   * out of ephemeral ports at a thousand calls a second). Off by default: see write().
   */
  keepAlive?: boolean;
  /** Serve the API over HTTPS and refuse, in the handshake, a client without a certificate signed by `ca` (Efí's mutual TLS). */
  tls?: { key: string; cert: string; ca: string };
}

export interface FakeCore {
  /** Origin of the API server, e.g. http://127.0.0.1:4020 (add the base path for the API). */
  origin: string;
  /** Origin of a second server that serves only the control API: it stays up while the API refuses connections. */
  controlUrl: string;
  requests: RecordedRequest[];
  webhooks: WebhookSender;
  keys: IdempotencyStore<Reply>;
  webhookUrl(): string | undefined;
  /** Sends to `url`, or to the configured webhook URL; with neither, records it as not sent. */
  notify(hook: Omit<OutgoingWebhook, "url">, url?: string): void;
  controls: FakeControls;
  fault(): FaultSpec;
  setFault(mode: FaultMode | FaultSpec, opts?: Omit<FaultSpec, "mode">): Promise<void>;
  latencyMs(): number;
  setLatency(ms: number): void;
  /**
   * Answers wait (their work done, as with latency) until the returned function is called: a
   * test releases them once what it waits for has happened, instead of guessing a latency.
   */
  holdAnswers(): () => void;
  close(): Promise<void>;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function parseFault(body: unknown): FaultSpec | string {
  const b = (body ?? {}) as Record<string, unknown>;
  if (!FAULT_MODES.includes(b.mode as FaultMode)) return `mode must be one of ${FAULT_MODES.join(", ")}`;
  for (const k of ["times", "forMs"] as const) {
    if (b[k] !== undefined && !(Number.isSafeInteger(b[k]) && (b[k] as number) > 0)) return `${k} must be a positive integer`;
  }
  if (b.match !== undefined && typeof b.match !== "string") return "match must be a string such as \"POST /orders\"";
  return { mode: b.mode as FaultMode, times: b.times as number | undefined, match: b.match as string | undefined, forMs: b.forMs as number | undefined };
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

// Every answer closes its connection: a client then never holds a pooled socket, so "refuse"
// is always ECONNREFUSED on the next call and never a reused socket reset under it (which a
// client must treat as ambiguous). On 127.0.0.1 a new connection per call costs little.
function write(res: http.ServerResponse, reply: Reply): void {
  if (res.destroyed) return;
  const headers: Record<string, string> = { connection: "close", ...reply.headers };
  let payload: Buffer | string = "";
  if (reply.raw) payload = reply.raw;
  else if (reply.body !== undefined) {
    payload = JSON.stringify(reply.body);
    headers["content-type"] ??= "application/json; charset=utf-8";
  }
  res.writeHead(reply.status, headers);
  res.end(payload);
}

/** What both provider fakes offer a test besides their own resources. */
export interface FakeControls {
  requests: RecordedRequest[];
  webhooks: SentWebhook[];
  setFault(mode: FaultMode | FaultSpec, opts?: Omit<FaultSpec, "mode">): Promise<void>;
  setLatency(ms: number): void;
  setWebhookUrl(url: string | undefined): void;
  setWebhookFault(mode: WebhookFault, times?: number): void;
  /** Waits until every webhook was delivered or gave up (a held out-of-order one is released). */
  flushWebhooks(): Promise<void>;
  /** Forgets every idempotency key, as their lifetime (24 h) would. */
  expireIdempotencyKeys(): void;
}

/** The common face of a provider fake. */
export interface FakeProvider extends FakeControls {
  /** The API base URL to configure in feira. */
  url: string;
  controlUrl: string;
  core: FakeCore;
}

export async function startFakeCore(opts: CoreOptions): Promise<FakeCore> {
  const requests: RecordedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  let fault: FaultSpec = { mode: "none" };
  let latency = opts.latencyMs ?? 0;
  let refuseTimer: NodeJS.Timeout | undefined;
  let closed = false;
  let held: { until: Promise<void>; release(): void } | undefined;
  const webhooks = startWebhookSender({ retries: opts.webhookRetries ?? 3, retryDelayMs: opts.webhookRetryDelayMs ?? 200 });
  const keys = new IdempotencyStore<Reply>(opts.idempotencyTtlMs ?? 86_400_000);
  let webhookUrl = opts.webhookUrl;

  // The matching fault for this call, consumed if counted.
  function takeFault(route: string): FaultSpec | undefined {
    if (fault.mode === "none" || fault.mode === "refuse") return undefined;
    if (fault.match && !route.startsWith(fault.match)) return undefined;
    const taken = { ...fault };
    if (fault.times !== undefined && --fault.times <= 0) fault = { mode: "none" };
    return taken;
  }

  async function control(req: ApiRequest): Promise<Reply> {
    const route = `${req.method} ${req.path}`;
    if (route === "POST /__fake/fault") {
      const spec = parseFault(req.json);
      if (typeof spec === "string") return { status: 400, body: { message: spec } };
      await core.setFault(spec);
      return { status: 200, body: { fault: core.fault() } };
    }
    if (route === "POST /__fake/latency") {
      const ms = (req.json as { ms?: unknown } | undefined)?.ms;
      if (!Number.isSafeInteger(ms) || (ms as number) < 0) return { status: 400, body: { message: "ms must be a non-negative integer" } };
      latency = ms as number;
      return { status: 200, body: { latencyMs: latency } };
    }
    if (route === "POST /__fake/webhook-fault") {
      const b = (req.json ?? {}) as { mode?: WebhookFault; times?: number };
      const err = webhooks.setFault(b.mode as WebhookFault, b.times);
      return err ? { status: 400, body: { message: err } } : { status: 200, body: { webhookFault: b.mode } };
    }
    if (route === "POST /__fake/webhooks/flush") { await webhooks.flush(); return { status: 200, body: { webhooks: webhooks.sent.length } }; }
    if (route === "GET /__fake/webhooks") return { status: 200, body: webhooks.sent };
    if (route === "GET /__fake/requests") return { status: 200, body: requests };
    if (route === "POST /__fake/webhook-url") { webhookUrl = (req.json as { url?: string } | undefined)?.url; return { status: 200, body: { webhookUrl } }; }
    if (route === "POST /__fake/expire-idempotency-keys") { keys.expireAll(); return { status: 200, body: { ok: true } }; }
    return opts.control(req);
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, controlOnly: boolean): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const rawBody = await readBody(req);
    let json: unknown;
    let jsonInvalid = false;
    if (rawBody.trim() !== "") { try { json = JSON.parse(rawBody); } catch { jsonInvalid = true; } }
    const after: (() => void)[] = [];
    let settled = false;
    const settle = () => { if (!settled) { settled = true; for (const fn of after) fn(); } };
    res.on("close", settle);
    const isControl = url.pathname.startsWith("/__fake/");
    const base = opts.basePath;
    const path = isControl ? url.pathname : url.pathname.startsWith(base) ? url.pathname.slice(base.length) || "/" : "";
    const apiReq: ApiRequest = { method: req.method ?? "GET", path, query: url.searchParams, headers: req.headers, rawBody, json, jsonInvalid, afterReply: (fn) => after.push(fn) };
    if (isControl) return write(res, await control(apiReq));
    if (controlOnly || path === "") return write(res, { status: 404, body: opts.errorBody(404, "Not found") });

    const route = `${apiReq.method} ${path}`;
    const record: RecordedRequest = { n: requests.length + 1, method: apiReq.method, route, url: req.url ?? "", headers: { ...req.headers }, body: rawBody, at: Date.now() };
    requests.push(record);
    const taken = takeFault(route);
    const mode = taken?.mode;
    if (mode) record.fault = mode;
    if (mode === "hang") { hanging.add(res); res.on("close", () => hanging.delete(res)); return; }
    if (mode === "reset") { req.socket.destroy(); return; }
    if (mode === "500" || mode === "429" || mode === "401") {
      if (latency > 0) await sleep(latency);
      return write(res, { status: Number(mode), body: opts.errorBody(Number(mode), mode === "429" ? "Too Many Requests" : "Internal Server Error"), headers: mode === "429" ? { "retry-after": "1" } : {} });
    }
    const reply = await opts.api(apiReq);
    record.status = reply.status;
    // The work is done; latency delays only the answer, so a client that gives up early leaves
    // a payment behind, as it would with a slow provider.
    if (latency > 0) await sleep(latency);
    if (held) await held.until;
    if (mode === "late-answer") await sleep(taken?.forMs ?? 30_000);
    if (mode === "lost-answer") { req.socket.destroy(); settle(); return; }
    if (mode === "500-after-work") return write(res, { status: 500, body: opts.errorBody(500, "Internal Server Error") });
    write(res, opts.keepAlive ? { ...reply, headers: { ...reply.headers, connection: "keep-alive" } } : reply);
  }

  const listener = (controlOnly: boolean) => (req: http.IncomingMessage, res: http.ServerResponse) => {
    handle(req, res, controlOnly).catch((err: Error) => write(res, { status: 500, body: opts.errorBody(500, err.message) }));
  };
  const api = opts.tls
    ? https.createServer({ ...opts.tls, requestCert: true, rejectUnauthorized: true }, listener(false))
    : http.createServer(listener(false));
  const ctl = http.createServer(listener(true));
  await new Promise<void>((r) => api.listen(opts.port ?? 0, "127.0.0.1", r));
  await new Promise<void>((r) => ctl.listen(opts.controlPort ?? 0, "127.0.0.1", r));
  const apiPort = (api.address() as AddressInfo).port;

  // New connections are refused from now on; calls being answered finish (a hung one is cut).
  function stopListening(): void {
    api.close();
    api.closeIdleConnections();
    for (const res of hanging) res.destroy();
  }
  const listenAgain = () => new Promise<void>((r, reject) => { api.once("error", reject); api.listen(apiPort, "127.0.0.1", () => { api.off("error", reject); r(); }); });

  const core: FakeCore = {
    origin: `${opts.tls ? "https" : "http"}://127.0.0.1:${apiPort}`,
    controlUrl: `http://127.0.0.1:${(ctl.address() as AddressInfo).port}`,
    requests,
    webhooks,
    keys,
    webhookUrl: () => webhookUrl,
    notify(hook, url = webhookUrl) {
      if (url) webhooks.send({ ...hook, url });
      else webhooks.sent.push({ label: hook.label, url: "", body: hook.body, headers: {}, attempts: 0, dropped: true, at: Date.now() });
    },
    controls: {
      requests,
      webhooks: webhooks.sent,
      setFault: (mode, more) => core.setFault(mode, more),
      setLatency: (ms) => { latency = ms; },
      setWebhookUrl: (url) => { webhookUrl = url; },
      setWebhookFault: (mode, times) => { const e = webhooks.setFault(mode, times); if (e) throw new Error(e); },
      flushWebhooks: () => webhooks.flush(),
      expireIdempotencyKeys: () => keys.expireAll(),
    },
    fault: () => ({ ...fault }),
    async setFault(m, more = {}) {
      const next: FaultSpec = typeof m === "string" ? { mode: m, ...more } : { ...m };
      const wasRefusing = fault.mode === "refuse";
      clearTimeout(refuseTimer);
      fault = next;
      if (next.mode === "refuse" && !wasRefusing) stopListening();
      if (next.mode !== "refuse" && wasRefusing && !closed) await listenAgain();
      if (next.mode === "refuse" && next.forMs) refuseTimer = setTimeout(() => { void core.setFault("none"); }, next.forMs);
    },
    latencyMs: () => latency,
    setLatency(ms) { latency = ms; },
    holdAnswers() {
      let release!: () => void;
      const until = new Promise<void>((r) => { release = r; });
      held = { until, release };
      return () => { if (held?.until === until) held = undefined; release(); };
    },
    async close() {
      closed = true;
      held?.release();
      clearTimeout(refuseTimer);
      for (const res of hanging) res.destroy();
      await webhooks.close();
      const shut = (s: http.Server | https.Server) => new Promise<void>((r) => { if (!s.listening) return r(); s.closeAllConnections(); s.close(() => r()); });
      await Promise.all([shut(api), shut(ctl)]);
    },
  };
  return core;
}

// ---- small pieces both providers need ----

/** How many API calls each fault mode was applied to, for GET /__fake/state. */
export function faultCounts(requests: readonly RecordedRequest[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of requests) if (r.fault) out[r.fault] = (out[r.fault] ?? 0) + 1;
  return out;
}


export function luhnValid(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Brand by prefix, as far as the fakes need it (the Elo ranges are the ones the test cards use). */
export function cardBrand(number: string): "visa" | "mastercard" | "amex" | "elo" | "hipercard" | "unknown" {
  if (/^(4011|4312|4389|4514|4576|5041|5066|5067|509|6277|6362|6363|650|6516|6550)/.test(number)) return "elo";
  if (/^(606282|3841)/.test(number)) return "hipercard";
  if (/^4/.test(number)) return "visa";
  if (/^(5[1-5]|2[2-7])/.test(number)) return "mastercard";
  if (/^3[47]/.test(number)) return "amex";
  return "unknown";
}

export function randomAlnum(n: number): string {
  const abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let s = "";
  for (let i = 0; i < n; i++) s += abc[Math.floor(Math.random() * abc.length)];
  return s;
}

/** A Pix end-to-end id: "E" + payer ISPB (8) + yyyyMMddHHmm + 11 alphanumerics (32 characters). */
export function endToEndId(ispb = "18236120"): string {
  const d = new Date();
  const stamp = d.toISOString().replace(/[-T:]/g, "").slice(0, 12);
  return `E${ispb}${stamp}${randomAlnum(11)}`;
}

export const basicUser = (authorization: string | undefined): string | undefined => {
  const m = /^Basic (.+)$/i.exec(authorization ?? "");
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, "base64").toString("utf8");
  const i = decoded.indexOf(":");
  return i < 0 ? decoded : decoded.slice(0, i);
};
