// HTTP to Melhor Envio (what this client relies on of its API: docs/melhor-envio.md). Every call has a
// timeout and is made outside any transaction that holds other work. Failures are values of one
// class with a kind, so callers decide what a buyer or a merchant sees; the provider's own text
// never leaves this file except in logs.

const TIMEOUT_MS = 8_000;

export type ProviderFailureKind =
  /** 401: the access token is missing, invalid or expired. */
  | "unauthenticated"
  /** 400/401 on the token endpoint: the code or refresh token was refused. */
  | "grant_refused"
  | "forbidden"
  | "rate_limited"
  /** Timeouts, connection errors, 5xx, unreadable answers. */
  | "unavailable"
  | "invalid_request";

export class ProviderFailure extends Error {
  constructor(readonly kind: ProviderFailureKind, readonly status: number | null, detail: string) {
    super(`melhor envio ${kind}${status ? ` (${status})` : ""}: ${detail.slice(0, 200)}`);
  }
}

export interface TokenSet {
  accessToken: string;
  refreshToken: string;
  expiresAt: Date;
}

export interface ProviderService {
  id: number;
  name: string;
  company: { id: number; name: string };
}

export interface CalculateInput {
  fromPostalCode: string;
  toPostalCode: string;
  products: { id: string; width: number; height: number; length: number; weight: number; insuranceValue: number; quantity: number }[];
  services: number[];
}

/** One element of the calculate answer: a priced service, or one carrying `error`. */
export interface QuotedService {
  id: number;
  name: string;
  company: { id: number; name: string };
  /** Minor units (cents); null when the element carries an error. */
  priceMinor: number | null;
  deliveryTime: number | null;
  error: string | null;
}

export interface MelhorEnvioClient {
  exchangeCode(input: { clientId: string; clientSecret: string; redirectUri: string; code: string }): Promise<TokenSet>;
  refresh(input: { clientId: string; clientSecret: string; refreshToken: string }): Promise<TokenSet>;
  listServices(accessToken: string, userAgent: string): Promise<ProviderService[]>;
  calculate(accessToken: string, userAgent: string, input: CalculateInput): Promise<QuotedService[]>;
}

/** "12.68" -> 1268, without binary floating point. */
export function priceToMinor(raw: unknown): number | null {
  const text = typeof raw === "number" ? raw.toFixed(2) : typeof raw === "string" ? raw.trim() : "";
  const m = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(text);
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? "0").padEnd(2, "0"));
}

export function createMelhorEnvioClient(opts: { baseUrl: string; fetch?: typeof fetch; timeoutMs?: number }): MelhorEnvioClient {
  const doFetch = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? TIMEOUT_MS;

  async function call(path: string, init: RequestInit): Promise<{ status: number; body: unknown }> {
    let res: Response;
    try {
      res = await doFetch(`${opts.baseUrl}${path}`, { ...init, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      throw new ProviderFailure("unavailable", null, (err as Error).name === "TimeoutError" ? "timed out" : (err as Error).message);
    }
    const text = await res.text().catch(() => "");
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    return { status: res.status, body };
  }

  function failOn(status: number, body: unknown, tokenEndpoint = false): never {
    const detail = typeof body === "string" ? body : JSON.stringify(body);
    if (tokenEndpoint && (status === 400 || status === 401)) throw new ProviderFailure("grant_refused", status, detail);
    if (status === 401) throw new ProviderFailure("unauthenticated", status, detail);
    if (status === 403) throw new ProviderFailure("forbidden", status, detail);
    if (status === 429) throw new ProviderFailure("rate_limited", status, detail);
    if (status === 422 || status === 400) throw new ProviderFailure("invalid_request", status, detail);
    throw new ProviderFailure("unavailable", status, detail);
  }

  async function token(form: Record<string, string>): Promise<TokenSet> {
    // Form-encoded, as RFC 6749 and the official SDK send it.
    const { status, body } = await call("/oauth/token", {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
    });
    if (status !== 200) failOn(status, body, true);
    const b = body as { access_token?: unknown; refresh_token?: unknown; expires_in?: unknown };
    if (typeof b?.access_token !== "string" || typeof b.refresh_token !== "string" || typeof b.expires_in !== "number") {
      throw new ProviderFailure("unavailable", status, "token answer without access_token, refresh_token or expires_in");
    }
    return { accessToken: b.access_token, refreshToken: b.refresh_token, expiresAt: new Date(Date.now() + b.expires_in * 1000) };
  }

  const apiHeaders = (accessToken: string, userAgent: string) => ({
    authorization: `Bearer ${accessToken}`,
    accept: "application/json",
    "content-type": "application/json",
    "user-agent": userAgent,
  });

  const company = (c: unknown) => {
    const o = (c ?? {}) as { id?: unknown; name?: unknown };
    return { id: Number(o.id) || 0, name: typeof o.name === "string" ? o.name : "" };
  };

  return {
    exchangeCode: (i) => token({ grant_type: "authorization_code", client_id: i.clientId, client_secret: i.clientSecret, redirect_uri: i.redirectUri, code: i.code }),
    refresh: (i) => token({ grant_type: "refresh_token", client_id: i.clientId, client_secret: i.clientSecret, refresh_token: i.refreshToken }),

    async listServices(accessToken, userAgent) {
      const { status, body } = await call("/api/v2/me/shipment/services", { method: "GET", headers: apiHeaders(accessToken, userAgent) });
      if (status !== 200) failOn(status, body);
      if (!Array.isArray(body)) throw new ProviderFailure("unavailable", status, "services answer is not an array");
      return body
        .filter((s): s is Record<string, unknown> => Boolean(s) && typeof s === "object" && Number.isInteger((s as { id?: unknown }).id))
        .map((s) => ({ id: s.id as number, name: String(s.name ?? ""), company: company(s.company) }));
    },

    async calculate(accessToken, userAgent, input) {
      const { status, body } = await call("/api/v2/me/shipment/calculate", {
        method: "POST",
        headers: apiHeaders(accessToken, userAgent),
        body: JSON.stringify({
          from: { postal_code: input.fromPostalCode },
          to: { postal_code: input.toPostalCode },
          products: input.products.map((p) => ({
            id: p.id, width: p.width, height: p.height, length: p.length, weight: p.weight,
            insurance_value: Number((p.insuranceValue / 100).toFixed(2)), quantity: p.quantity,
          })),
          options: { receipt: false, own_hand: false },
          services: input.services.join(","),
        }),
      });
      if (status !== 200) failOn(status, body);
      // One service asked for may come back as a bare object rather than an array.
      const list = Array.isArray(body) ? body : body && typeof body === "object" ? [body] : null;
      if (!list) throw new ProviderFailure("unavailable", status, "calculate answer is not an array");
      return list
        .filter((s): s is Record<string, unknown> => Boolean(s) && typeof s === "object" && Number.isInteger((s as { id?: unknown }).id))
        .map((s) => {
          const error = typeof s.error === "string" && s.error ? s.error : null;
          // The account's own adjustments win when present (the docs say to show custom_*).
          const priceMinor = error ? null : priceToMinor(s.custom_price ?? s.price);
          const days = Number(s.custom_delivery_time ?? s.delivery_time);
          return {
            id: s.id as number,
            name: String(s.name ?? ""),
            company: company(s.company),
            priceMinor,
            deliveryTime: Number.isInteger(days) ? days : null,
            error: error ?? (priceMinor === null ? "no price" : null),
          };
        });
    },
  };
}
