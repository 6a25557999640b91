import type { LightMyRequestResponse } from "fastify";
import type { TestApp } from "../helpers/app.js";
import { multipart, type Part } from "../connect/helpers.js";

// A browser-like client of the panel over app.inject: it keeps cookies (as a browser would for
// Path=/panel), reads the CSRF token from the last page, and sends same-origin form posts.

export interface PanelClient {
  cookies: Map<string, string>;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  post(url: string, form: Record<string, string | string[]>, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** A form of enctype multipart/form-data (files), with the page's CSRF token as its first part. */
  postMultipart(url: string, parts: Part[], headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** The CSRF token of the last HTML page read. */
  csrf: string;
}

export function csrfOf(html: string): string {
  return /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
}

/** `remoteAddress`: the client address the requests come from (the login lockouts count it). */
export function panelClient(t: TestApp, origin = "http://localhost:3000", remoteAddress?: string): PanelClient {
  const cookies = new Map<string, string>();
  const remember = (res: LightMyRequestResponse) => {
    const raw = res.headers["set-cookie"];
    for (const line of Array.isArray(raw) ? raw : raw ? [raw] : []) {
      const [pair = ""] = String(line).split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (/Max-Age=0/i.test(String(line)) || value === "") cookies.delete(name);
      else cookies.set(name, value);
    }
    const type = String(res.headers["content-type"] ?? "");
    if (type.startsWith("text/html")) {
      const token = csrfOf(res.body);
      if (token) client.csrf = token;
    }
    return res;
  };
  const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const client: PanelClient = {
    cookies,
    csrf: "",
    async get(url, headers = {}) {
      return remember(await t.app.inject({ method: "GET", url, headers: { accept: "text/html", cookie: cookieHeader(), ...headers }, remoteAddress }));
    },
    async post(url, form, headers = {}) {
      const body = new URLSearchParams();
      for (const [k, v] of Object.entries({ _csrf: client.csrf, ...form })) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
      return remember(await t.app.inject({
        method: "POST", url, payload: body.toString(), remoteAddress,
        headers: { "content-type": "application/x-www-form-urlencoded", origin, "sec-fetch-site": "same-origin", cookie: cookieHeader(), ...headers },
      }));
    },
    async postMultipart(url, parts, headers = {}) {
      const body = multipart([{ field: "_csrf", content: client.csrf }, ...parts]);
      return remember(await t.app.inject({
        method: "POST", url, payload: body.payload, remoteAddress,
        headers: { ...body.headers, origin, "sec-fetch-site": "same-origin", cookie: cookieHeader(), ...headers },
      }));
    },
  };
  return client;
}

/** Signs in through the login form; returns the client holding the session. */
export async function signIn(t: TestApp, email: string, password: string): Promise<PanelClient> {
  const c = panelClient(t);
  await c.get("/panel/login");
  const res = await c.post("/panel/login", { email, password });
  if (res.statusCode !== 303) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
  await c.get("/panel");
  return c;
}
