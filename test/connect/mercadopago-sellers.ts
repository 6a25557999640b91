import assert from "node:assert/strict";
import { expectStatus, type TestApp } from "../helpers/app.js";
import { call } from "./helpers.js";

// Provider settlement's tests with the fake Mercado Pago: a seller links its account by the
// marketplace's OAuth, end to end (feira's authorize URL -> the fake's authorization page, where
// the seller accepts at once -> feira's callback).

export const MP_CALLBACK = "/v1/connect/oauth/callback";

/** The seller's browser: feira's authorize URL, the fake's page, the redirect's code and state. */
export async function authorizeAt(t: TestApp, url: string): Promise<{ code: string; state: string; userId: number }> {
  const page = await fetch(url, { redirect: "manual" });
  assert.equal(page.status, 302);
  const back = new URL(page.headers.get("location")!);
  assert.equal(`${back.origin}${back.pathname}`, `${t.config.publicBaseUrl}${MP_CALLBACK}`);
  const code = back.searchParams.get("code")!;
  return { code, state: back.searchParams.get("state")!, userId: Number(code.split("-").pop()) };
}

/** feira's OAuth callback, as the seller's browser calls it; each answer's body is added to `answers`. */
export async function oauthCallback(t: TestApp, query: Record<string, string>, answers: string[] = []) {
  const res = await t.app.inject({ method: "GET", url: `${MP_CALLBACK}?${new URLSearchParams(query).toString()}` });
  answers.push(res.body);
  return res;
}

/** Links a submerchant's Mercado Pago account end to end; the seller's user id. Every answer's body is added to `answers`. */
export async function linkMercadoPago(t: TestApp, masterKey: string, submerchantId: string, answers: string[] = []): Promise<number> {
  const opened = await call(t, "POST", `/v1/submerchants/${submerchantId}/provider-accounts`, masterKey, { processor: "mercadopago" });
  answers.push(opened.body);
  expectStatus(opened, 201);
  const { code, state, userId } = await authorizeAt(t, opened.json().authorizeUrl);
  const done = await oauthCallback(t, { code, state }, answers);
  expectStatus(done, 200);
  assert.equal(done.json().status, "active");
  assert.equal(done.json().id, String(userId));
  return userId;
}
