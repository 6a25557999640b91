import type { LightMyRequestResponse } from "fastify";
import type { Config } from "../../src/config.js";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "./app.js";
import { startFakeMelhorEnvio, type FakeMelhorEnvio, type FakeOptions } from "./fake-melhor-envio.js";

// A feira app whose SHIPPING_PROVIDER_URL is the fake Melhor Envio, and the steps a merchant
// takes to connect it.

export interface ShippingWorld {
  t: TestApp;
  fake: FakeMelhorEnvio;
  close(): Promise<void>;
}

export const PANEL = "https://panel.example.com/settings/shipping";

export async function shippingWorld(fakeOpts: FakeOptions = {}, config: Partial<Config> = {}, logger?: Parameters<typeof buildTestApp>[1]): Promise<ShippingWorld> {
  const fake = await startFakeMelhorEnvio(fakeOpts);
  const t = await buildTestApp({ shippingProviderUrl: fake.url, panelUrl: PANEL, ...config }, logger);
  return { t, fake, close: async () => { await t.close(); await fake.close(); } };
}

export async function login(t: TestApp, m: SeededMerchant, environment: "sandbox" | "production" = "sandbox"): Promise<string> {
  const res = await t.app.inject({ method: "POST", url: "/v1/auth/login", payload: { email: m.email, password: m.password, environment } });
  expectStatus(res, 200);
  return `Bearer ${res.json().accessToken}`;
}

export function call(t: TestApp, auth: string | undefined, method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return t.app.inject({ method, url, headers: { ...(auth ? { authorization: auth } : {}), ...headers }, payload: payload as never });
}

export const keyAuth = (key: string) => basic(key);

/** Follows the authorize URL at the fake as a browser would, up to feira's callback; returns its answer. */
export async function authorizeAndCallback(w: ShippingWorld, jwt: string): Promise<{ callback: LightMyRequestResponse; callbackUrl: URL }> {
  const auth = await call(w.t, jwt, "GET", "/v1/shipping-provider/oauth/authorize");
  expectStatus(auth, 200);
  const res = await fetch(auth.json().url, { redirect: "manual" });
  if (res.status !== 302) throw new Error(`authorize at the fake answered ${res.status}: ${await res.text()}`);
  const callbackUrl = new URL(res.headers.get("location")!);
  const callback = await w.t.app.inject({ method: "GET", url: callbackUrl.pathname + callbackUrl.search });
  return { callback, callbackUrl };
}

/** Credentials, OAuth and settings: a merchant whose checkout links quote live freight. */
export async function connectMerchant(w: ShippingWorld, opts: { environment?: "sandbox" | "production"; services?: number[]; merchant?: SeededMerchant } = {}) {
  const merchant = opts.merchant ?? (await seedMerchant(w.t));
  const jwt = await login(w.t, merchant, opts.environment);
  const clientId = `app-${merchant.id}-${opts.environment ?? "sandbox"}`;
  const clientSecret = `secret-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  w.fake.registerApp({ clientId, clientSecret, redirectUri: `${w.t.config.publicBaseUrl}/v1/shipping-provider/oauth/callback` });
  expectStatus(await call(w.t, jwt, "POST", "/v1/shipping-provider/credentials", { clientId, clientSecret }), 200);
  const { callback } = await authorizeAndCallback(w, jwt);
  expectStatus(callback, 303);
  if (!String(callback.headers.location).includes("shipping=connected")) throw new Error(`not connected: ${callback.headers.location}`);
  expectStatus(await call(w.t, jwt, "PUT", "/v1/shipping-provider/settings", { originPostalCode: "01310-100", enabledServices: opts.services ?? [1, 2, 17] }), 200);
  return { merchant, jwt, clientId, clientSecret };
}

export const checkoutLink = (extra: Record<string, unknown> = {}) => ({
  title: "Caneca artesanal",
  description: "Cerâmica feita à mão",
  currency: "BRL",
  freightMode: "checkout",
  products: [{ title: "Caneca azul", unitPrice: 59.9, quantity: 2, physical: true, width: 12, height: 10, length: 12, weight: 0.4 }],
  ...extra,
});

export const buyer = { name: "Maria Silva", email: "maria@example.com", document: { type: "cpf", id: "529.982.247-25" } };
export const address = { postalCode: "20040-020", street: "Av. Rio Branco", number: "1", city: "Rio de Janeiro", state: "RJ", country: "BR" };
export const card = (number = "4111111111111111") => ({ type: "credit_card", number, holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2030", cvv: "123" });
