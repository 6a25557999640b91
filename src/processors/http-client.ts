import type { ConnectionOptions } from "node:tls";
import type { Dispatcher } from "undici";
import { loadUndici } from "../lib/undici-lazy.js";
import type { ProcessorFailure } from "./processor.js";

// A small JSON client for processor APIs. Every outcome is a value: a parsed 2xx body, or a
// ProcessorFailure whose kind says what feira may conclude. Only `connection_refused` proves
// that the provider received nothing (no connection, so no request bytes); a timeout, a socket
// closed after the request was written, a 5xx or a 429 leave open whether it acted, and the
// caller looks the payment up by feira's reference before anything else.
//
// Nothing of a request or response body, and no header, is logged: they carry card numbers,
// CVVs, card tokens and the provider's secret. The log line is method, path (without its query),
// status or failure kind, and duration.

/** What a provider's non-2xx body says, in a form safe to keep and show (never the raw body). */
export interface MappedError {
  providerCode?: string;
  message: string;
}

export interface HttpClientOptions {
  /** e.g. `https://api.pagar.me/core/v5`; a path is appended to it as is. */
  baseUrl: string;
  /** Bound on each call, connection included (PROCESSOR_TIMEOUT_MS). */
  timeoutMs: number;
  /** Headers sent on every call (authentication); computed once. */
  headers: Record<string, string>;
  /** Reads a provider's 4xx body into a code and a message feira writes. */
  mapError: (status: number, body: unknown) => MappedError;
  log?: (line: { method: string; path: string; status?: number; failure?: string; ms: number }) => void;
  /** For tests; otherwise one keep-alive agent per client. */
  dispatcher?: Dispatcher;
  /**
   * Connections the agent may open to the provider (each carries one call at a time): at least
   * the charges allowed to wait at once (PROCESSOR_MAX_WAITING), or the surplus would queue here
   * behind the others' answers. Default 32.
   */
  connections?: number;
  /** TLS options of the agent's connections: a client certificate and extra CAs (mutual TLS). */
  tls?: ConnectionOptions;
}

export interface CallInput {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** A body already encoded (multipart files), sent as it is under its content type, instead of `body`. */
  encoded?: { contentType: string; data: Buffer };
  headers?: Record<string, string>;
  /** Overrides the client's timeout for this call. */
  timeoutMs?: number;
}

export type CallResult =
  | { ok: true; status: number; body: unknown }
  /** `body` is for the adapter's own reading (e.g. a 404 on a lookup); it never leaves the adapter. */
  | { ok: false; failure: ProcessorFailure; body?: unknown };

export interface HttpClient {
  call(input: CallInput): Promise<CallResult>;
  close(): Promise<void>;
}

/** A provider answer larger than this is not a payment: refused as bad_response. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

// Errors raised before a connection existed: no byte of the request can have been sent.
const NOT_CONNECTED = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
// The socket went away while the request was in flight: it may have been received.
const LOST = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE", "UND_ERR_CLOSED"]);

function errorCodes(err: unknown): string[] {
  const codes: string[] = [];
  const seen = new Set<unknown>();
  const visit = (e: unknown) => {
    if (!e || typeof e !== "object" || seen.has(e)) return;
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
    if ((e as { name?: unknown }).name === "TimeoutError" || (e as { name?: unknown }).name === "AbortError") codes.push("TIMEOUT");
    visit((e as { cause?: unknown }).cause);
    if (e instanceof AggregateError) e.errors.forEach(visit);
  };
  visit(err);
  return codes;
}

/** Classifies a thrown transport error; conservative: anything unrecognised is `lost`. */
export function classifyTransportError(err: unknown, timedOut: boolean): ProcessorFailure {
  const codes = errorCodes(err);
  if (timedOut || codes.includes("TIMEOUT") || codes.some((c) => c.startsWith("UND_ERR_") && c.endsWith("TIMEOUT"))) {
    return { kind: "timeout", message: "the processor did not answer in time" };
  }
  const refused = codes.find((c) => NOT_CONNECTED.has(c));
  if (refused && !codes.some((c) => LOST.has(c))) return { kind: "connection_refused", message: `could not connect to the processor (${refused})` };
  return { kind: "lost", message: "the connection to the processor closed before its answer" };
}

/** Classifies an HTTP status that is not 2xx. */
export function classifyStatus(status: number, mapped: MappedError): ProcessorFailure {
  if (status === 429) return { kind: "http_429", status, message: "the processor is rate limiting feira", ...code(mapped) };
  if (status >= 500) return { kind: "http_5xx", status, message: `the processor answered ${status}`, ...code(mapped) };
  if (status >= 400) return { kind: "http_4xx", status, message: mapped.message, ...code(mapped) };
  return { kind: "bad_response", status, message: `the processor answered ${status}` };
}

const code = (m: MappedError) => (m.providerCode === undefined ? {} : { providerCode: m.providerCode });

function urlOf(baseUrl: string, path: string, query: CallInput["query"]): string {
  const url = new URL(baseUrl.replace(/\/+$/, "") + path);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url.toString();
}

async function readBody(body: Dispatcher.ResponseData["body"]): Promise<{ text: string } | { tooLarge: true }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_RESPONSE_BYTES) {
      body.destroy();
      return { tooLarge: true };
    }
    chunks.push(chunk as Buffer);
  }
  return { text: Buffer.concat(chunks).toString("utf8") };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === "") return { ok: true, value: null };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

export function createHttpClient(opts: HttpClientOptions): HttpClient {
  // The agent is made on the first call, when undici is loaded (lib/undici-lazy.ts).
  let dispatcher: Dispatcher | undefined = opts.dispatcher;
  const log = opts.log ?? (() => undefined);

  async function call(input: CallInput): Promise<CallResult> {
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    const timeoutMs = input.timeoutMs ?? opts.timeoutMs;
    const signal = AbortSignal.timeout(timeoutMs);
    const fail = (failure: ProcessorFailure, status?: number, body?: unknown): CallResult => {
      log({ method: input.method, path: input.path, status, failure: failure.kind, ms: ms() });
      return body === undefined ? { ok: false, failure } : { ok: false, failure, body };
    };
    const { Agent, request } = await loadUndici();
    dispatcher ??= new Agent({ keepAliveTimeout: 4_000, connections: opts.connections ?? 32, ...(opts.tls ? { connect: opts.tls } : {}) });
    let res: Dispatcher.ResponseData;
    try {
      res = await request(urlOf(opts.baseUrl, input.path, input.query), {
        method: input.method,
        dispatcher,
        signal,
        headers: {
          accept: "application/json",
          ...(input.encoded ? { "content-type": input.encoded.contentType } : input.body === undefined ? {} : { "content-type": "application/json" }),
          ...opts.headers,
          ...input.headers,
        },
        body: input.encoded ? input.encoded.data : input.body === undefined ? undefined : JSON.stringify(input.body),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (err) {
      return fail(classifyTransportError(err, signal.aborted));
    }
    let read: Awaited<ReturnType<typeof readBody>>;
    try {
      read = await readBody(res.body);
    } catch (err) {
      // The status line arrived, so the request was received: never `connection_refused`.
      const failure = classifyTransportError(err, signal.aborted);
      return fail(failure.kind === "connection_refused" ? { kind: "lost", message: failure.message } : failure, res.statusCode);
    }
    if ("tooLarge" in read) return fail({ kind: "bad_response", status: res.statusCode, message: "the processor's answer was too large" }, res.statusCode);
    const parsed = parseJson(read.text);
    const status = res.statusCode;
    if (status >= 200 && status < 300) {
      if (!parsed.ok) return fail({ kind: "bad_response", status, message: "the processor's answer was not JSON" }, status);
      log({ method: input.method, path: input.path, status, ms: ms() });
      return { ok: true, status, body: parsed.value };
    }
    const body = parsed.ok ? parsed.value : null;
    return fail(classifyStatus(status, opts.mapError(status, body)), status, body);
  }

  return {
    call,
    close: async () => {
      if (!opts.dispatcher) await dispatcher?.close();
    },
  };
}

/** `Basic base64(user:password)`. */
export function basicAuth(user: string, password = ""): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
}
