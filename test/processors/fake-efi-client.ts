import { readFileSync } from "node:fs";
import { Agent, request } from "undici";
import type { FakeEfi } from "../helpers/fake-efi.js";

// A client of the Efí fake for its own tests, as an adapter would be: mutual TLS with the
// client certificate the fake handed out, OAuth client credentials, JSON both ways.

type Obj = Record<string, any>;
export interface Answer { status: number; body: Obj; text: string; headers: Record<string, string | string[] | undefined> }

export function efiClient(f: FakeEfi, how: "pem" | "p12" = "pem") {
  const connect = how === "pem"
    ? { ca: f.certs.ca, cert: f.certs.client.cert, key: f.certs.client.key }
    : { ca: f.certs.ca, pfx: readFileSync(f.certs.client.p12File), passphrase: f.certs.client.p12Password };
  const agent = new Agent({ connect });
  let token = "";

  async function raw(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, timeoutMs?: number): Promise<Answer> {
    const res = await request(f.url + path, {
      method: method as "GET", dispatcher: agent, body: body === undefined ? undefined : JSON.stringify(body),
      headers: { "content-type": "application/json", ...headers }, ...(timeoutMs ? { headersTimeout: timeoutMs, bodyTimeout: timeoutMs } : {}),
    });
    const text = await res.body.text();
    return { status: res.statusCode, text, body: (text ? JSON.parse(text) : {}) as Obj, headers: res.headers };
  }
  const basic = (id = f.clientId, secret = f.clientSecret) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
  async function login(): Promise<Answer> {
    const a = await raw("POST", "/oauth/token", { grant_type: "client_credentials" }, { authorization: basic() });
    token = a.body.access_token;
    return a;
  }
  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, timeoutMs?: number): Promise<Answer> {
    if (!token) await login();
    return raw(method, path, body, { authorization: `Bearer ${token}`, ...headers }, timeoutMs);
  }
  return { raw, basic, login, call, close: () => agent.close() };
}

let seq = 0;
/** A txid of 26 to 35 letters and digits, new each time. */
export const txid = () => `feira${Date.now()}${String(++seq).padStart(6, "0")}abcdefghij`.slice(0, 35);
export const cobBody = (f: FakeEfi, original = "10.50") => ({ calendario: { expiracao: 3600 }, devedor: { cpf: "12345678909", nome: "Maria Silva" }, valor: { original }, chave: f.pixKey, solicitacaoPagador: "Pedido 1" });
