import { createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";

// A faithful fake of Melhor Envio (its API as docs/melhor-envio.md states it), on 127.0.0.1, spoken
// to over HTTP: the authorize page (redirects with a one-time code and the state), the token
// endpoint (authorization_code and refresh_token grants, form, JSON or multipart; rotating
// refresh tokens; JWT access tokens that expire), services, and shipment calculate (prices as
// strings, per-service errors inside a 200, the `services` filter). It refuses calls without a
// "name (email)" User-Agent, answers 401 {"message":"Unauthenticated."} for a bad or expired
// token, 403 without the scope, and 429 past its per-minute limit. It counts every call.
//
// Local mode: `npm run fake:melhor-envio` starts it on FAKE_MELHOR_ENVIO_PORT (default 4010)
// with one app registered for a feira on http://localhost:3000 (see README).

export interface FakeApp { clientId: string; clientSecret: string; redirectUri: string }

export interface FakeOptions {
  /** Seconds an access token lives (the real one: 2592000). */
  tokenTtlSeconds?: number;
  /** Requests per minute per token before 429 (the real one: 250). */
  rateLimitPerMinute?: number;
}

export const FAKE_SERVICES = [
  { id: 1, name: "PAC", company: { id: 1, name: "Correios" }, base: 1860, perKg: 400, days: 6 },
  { id: 2, name: "SEDEX", company: { id: 1, name: "Correios" }, base: 3240, perKg: 700, days: 2 },
  { id: 3, name: ".Package", company: { id: 2, name: "Jadlog" }, base: 2150, perKg: 300, days: 5 },
  { id: 17, name: "Mini Envios", company: { id: 1, name: "Correios" }, base: 1200, perKg: 0, days: 8 },
];

export interface FakeMelhorEnvio {
  url: string;
  registerApp(app: FakeApp): void;
  /** Calls per route name ("authorize", "token:authorization_code", "token:refresh_token", "services", "calculate"). */
  calls: Record<string, number>;
  /** The User-Agent and Authorization of the last API call, and the last calculate body. */
  last: { userAgent?: string; authorization?: string; accept?: string; calculateBody?: Record<string, unknown> };
  /** Makes every issued access token expired now (as if time passed). */
  expireAccessTokens(): void;
  /** Revokes every token: refreshes fail with 400 invalid_grant, API calls 401. */
  revokeAll(): void;
  /** The next n API calls answer this status (500, 503, 429...). */
  failNext(status: number, n?: number): void;
  /** Delay before answering token refreshes, to widen race windows. */
  refreshDelayMs: number;
  close(): Promise<void>;
}

const b64url = (v: string | Buffer) => Buffer.from(v).toString("base64url");

export async function startFakeMelhorEnvio(opts: FakeOptions = {}, port = 0): Promise<FakeMelhorEnvio> {
  const ttl = opts.tokenTtlSeconds ?? 2_592_000;
  const limit = opts.rateLimitPerMinute ?? 250;
  const signKey = randomBytes(32);
  const apps = new Map<string, FakeApp>();
  const codes = new Map<string, { clientId: string; redirectUri: string; scopes: string[] }>();
  const access = new Map<string, { exp: number; scopes: string[]; refresh: string }>();
  const refresh = new Map<string, { clientId: string; scopes: string[] }>();
  const perMinute = new Map<string, { window: number; n: number }>();
  const calls: Record<string, number> = {};
  const last: FakeMelhorEnvio["last"] = {};
  let failures: { status: number; n: number } | null = null;
  const count = (name: string) => { calls[name] = (calls[name] ?? 0) + 1; };

  function mint(clientId: string, scopes: string[]) {
    const now = Math.floor(Date.now() / 1000);
    const header = b64url(JSON.stringify({ typ: "JWT", alg: "HS256" }));
    const payload = b64url(JSON.stringify({ aud: clientId, jti: randomBytes(20).toString("hex"), iat: now, nbf: now, exp: now + ttl, sub: "42", scopes }));
    const token = `${header}.${payload}.${createHmac("sha256", signKey).update(`${header}.${payload}`).digest("base64url")}`;
    const refreshToken = randomBytes(32).toString("hex");
    access.set(token, { exp: (now + ttl) * 1000, scopes, refresh: refreshToken });
    refresh.set(refreshToken, { clientId, scopes });
    return { token_type: "Bearer", expires_in: ttl, access_token: token, refresh_token: refreshToken };
  }

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
  const oauthError = (res: http.ServerResponse, status: number, error: string, description: string) =>
    send(res, status, { error, error_description: description, hint: "Check that all required parameters have been provided", message: description });

  async function readBody(req: http.IncomingMessage): Promise<Record<string, unknown>> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const type = req.headers["content-type"] ?? "";
    if (type.includes("application/json")) { try { return JSON.parse(raw); } catch { return {}; } }
    if (type.includes("multipart/form-data")) {
      const out: Record<string, string> = {};
      for (const m of raw.matchAll(/name="([^"]+)"\r\n\r\n([^\r]*)\r\n/g)) out[m[1]!] = m[2]!;
      return out;
    }
    return Object.fromEntries(new URLSearchParams(raw));
  }

  function calculate(body: Record<string, unknown>) {
    const from = (body.from as { postal_code?: string } | undefined)?.postal_code;
    const to = (body.to as { postal_code?: string } | undefined)?.postal_code;
    const errors: Record<string, string[]> = {};
    if (!from) errors["from.postal_code"] = ["O campo from.postal code é obrigatório."];
    if (!to) errors["to.postal_code"] = ["O campo to.postal code é obrigatório."];
    const forms = ["products", "volumes", "package"].filter((k) => body[k] !== undefined);
    if (forms.length !== 1) errors.products = ["Informe products, volumes ou package."];
    if (Object.keys(errors).length > 0) return { status: 422, body: { message: "The given data was invalid.", errors } };
    const products = (body.products ?? []) as { weight: number; quantity: number; width: number; height: number; length: number }[];
    const weight = products.reduce((s, p) => s + p.weight * p.quantity, 0);
    const big = products.some((p) => Math.max(p.width, p.height, p.length) > 100);
    const wanted = typeof body.services === "string" && body.services ? body.services.split(",").map(Number) : null;
    const list = FAKE_SERVICES.filter((s) => !wanted || wanted.includes(s.id)).map((s) => {
      const company = { ...s.company, picture: `https://www.melhorenvio.com.br/images/shipping-companies/${s.company.name.toLowerCase()}.png` };
      // Mini Envios carries only light parcels; CEPs starting with 69 are beyond Jadlog's reach.
      if (s.id === 17 && weight > 0.3) return { id: s.id, name: s.name, company, error: "Dimensões do objeto ultrapassam o limite da transportadora." };
      if (s.id === 3 && String(to).startsWith("69")) return { id: s.id, name: s.name, company, error: "Transportadora não atende este trecho." };
      if (big) return { id: s.id, name: s.name, company, error: "Dimensões do objeto ultrapassam o limite da transportadora." };
      const cents = s.base + Math.round(s.perKg * weight);
      const price = (cents / 100).toFixed(2);
      return {
        id: s.id, name: s.name, price, custom_price: price, discount: "0.00", currency: "R$",
        delivery_time: s.days, delivery_range: { min: s.days - 1, max: s.days }, custom_delivery_time: s.days,
        custom_delivery_range: { min: s.days - 1, max: s.days },
        packages: [{ price, discount: "0.00", format: "box", weight: weight.toFixed(2), insurance_value: "0.00", dimensions: { height: 10, width: 10, length: 10 }, products: [] }],
        additional_services: { receipt: false, own_hand: false, collect: false }, company,
      };
    });
    return { status: 200, body: list };
  }

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    try {
      if (req.method === "GET" && url.pathname === "/oauth/authorize") {
        count("authorize");
        const q = url.searchParams;
        const app = apps.get(q.get("client_id") ?? "");
        if (!app || app.redirectUri !== q.get("redirect_uri")) {
          res.writeHead(400, { "content-type": "text/plain; charset=utf-8" });
          return res.end("Client invalid");
        }
        if (q.get("response_type") !== "code") return oauthError(res, 400, "unsupported_response_type", "The authorization server does not support this response type.");
        const code = randomBytes(20).toString("hex");
        codes.set(code, { clientId: app.clientId, redirectUri: app.redirectUri, scopes: (q.get("scope") ?? "").split(" ").filter(Boolean) });
        const to = new URL(app.redirectUri);
        to.searchParams.set("code", code);
        if (q.get("state") !== null) to.searchParams.set("state", q.get("state")!);
        res.writeHead(302, { location: to.toString() });
        return res.end();
      }

      if (req.method === "POST" && url.pathname === "/oauth/token") {
        const body = await readBody(req);
        const grant = String(body.grant_type ?? "");
        count(`token:${grant}`);
        const app = apps.get(String(body.client_id ?? ""));
        if (!app || app.clientSecret !== body.client_secret) return oauthError(res, 401, "invalid_client", "Client authentication failed");
        if (grant === "authorization_code") {
          const code = codes.get(String(body.code ?? ""));
          codes.delete(String(body.code ?? ""));
          if (!code || code.clientId !== app.clientId || code.redirectUri !== body.redirect_uri) {
            return oauthError(res, 400, "invalid_grant", "The provided authorization grant is invalid, expired, or revoked.");
          }
          return send(res, 200, mint(app.clientId, code.scopes));
        }
        if (grant === "refresh_token") {
          if (fake.refreshDelayMs > 0) await new Promise((r) => setTimeout(r, fake.refreshDelayMs));
          const old = refresh.get(String(body.refresh_token ?? ""));
          if (!old || old.clientId !== app.clientId) return oauthError(res, 400, "invalid_grant", "The refresh token is invalid.");
          // Rotation: the old refresh token and its access tokens stop working.
          refresh.delete(String(body.refresh_token));
          for (const [t, a] of access) if (a.refresh === body.refresh_token) access.delete(t);
          return send(res, 200, mint(app.clientId, old.scopes));
        }
        return oauthError(res, 400, "unsupported_grant_type", "The authorization grant type is not supported by the authorization server.");
      }

      if (url.pathname.startsWith("/api/v2/me/")) {
        const ua = req.headers["user-agent"] ?? "";
        last.userAgent = ua;
        last.authorization = req.headers.authorization;
        last.accept = req.headers.accept;
        if (!/^.+ \([^()\s@]+@[^()\s@]+\)$/.test(ua)) return send(res, 400, { message: "User-Agent obrigatório: Aplicação (email para contato técnico)" });
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
        const grant = access.get(token);
        if (!grant || grant.exp <= Date.now()) return send(res, 401, { message: "Unauthenticated." });
        const minute = Math.floor(Date.now() / 60_000);
        const used = perMinute.get(token);
        const n = used && used.window === minute ? used.n + 1 : 1;
        perMinute.set(token, { window: minute, n });
        if (n > limit) return send(res, 429, { message: "Too Many Attempts." }, { "retry-after": "60" });
        if (failures && failures.n > 0) {
          failures.n--;
          count(`failed:${failures.status}`);
          return send(res, failures.status, { message: "Server Error" });
        }
        if (!grant.scopes.includes("shipping-calculate")) return send(res, 403, { message: "This action is unauthorized." });
        if (req.method === "GET" && url.pathname === "/api/v2/me/shipment/services") {
          count("services");
          return send(res, 200, FAKE_SERVICES.map((s) => ({
            id: s.id, name: s.name, type: "normal", range: "interstate", restrictions: {}, requirements: [], optionals: [],
            company: { ...s.company, picture: "https://www.melhorenvio.com.br/images/shipping-companies/x.png" },
          })));
        }
        if (req.method === "POST" && url.pathname === "/api/v2/me/shipment/calculate") {
          count("calculate");
          const body = await readBody(req);
          last.calculateBody = body;
          const out = calculate(body);
          return send(res, out.status, out.body);
        }
      }
      send(res, 404, { message: "Not Found" });
    } catch (err) {
      send(res, 500, { message: (err as Error).message });
    }
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const fake: FakeMelhorEnvio = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    registerApp: (app) => { apps.set(app.clientId, app); },
    calls, last,
    expireAccessTokens() { for (const a of access.values()) a.exp = Date.now() - 1; },
    revokeAll() { access.clear(); refresh.clear(); },
    failNext(status, n = 1) { failures = { status, n }; },
    refreshDelayMs: 0,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
  return fake;
}

// Local mode, for the README walk-through.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const port = Number(process.env.FAKE_MELHOR_ENVIO_PORT ?? 4010);
  const feira = (process.env.FEIRA_URL ?? "http://localhost:3000").replace(/\/+$/, "");
  const app = { clientId: "feira-local", clientSecret: "feira-local-secret", redirectUri: `${feira}/v1/shipping-provider/oauth/callback` };
  const fake = await startFakeMelhorEnvio({}, port);
  fake.registerApp(app);
  console.log(`fake Melhor Envio on ${fake.url}`);
  console.log(`app registered: clientId=${app.clientId} clientSecret=${app.clientSecret} redirectUri=${app.redirectUri}`);
  console.log(`start feira with SHIPPING_PROVIDER_URL=${fake.url}`);
}
