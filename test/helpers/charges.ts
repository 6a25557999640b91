import type { LightMyRequestResponse } from "fastify";
import { basic, expectStatus, type TestApp } from "./app.js";

export const CARDS = {
  visa: "4111111111111111",
  mastercard: "5555555555554444",
  declined: "4000000000000002",
  insufficientFunds: "4000000000009995",
  processingError: "4000000000000119",
  inAnalysis: "4000000000000259",
  threeDS: "4000000000003220",
  blocked: "4000000000000101",
};

export const customer = { name: "Maria Silva", email: "maria@example.com", document: { type: "cpf", id: "529.982.247-25" } };

export function cardCharge(number: string, extra: Record<string, unknown> = {}, method: Record<string, unknown> = {}) {
  return {
    amount: 100,
    currency: "BRL",
    customer,
    paymentMethod: {
      type: "credit_card", number, holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2030", cvv: "123", installments: 1, ...method,
    },
    ...extra,
  };
}

export function methodCharge(paymentMethod: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { amount: 50.5, currency: "BRL", customer, paymentMethod, ...extra };
}

export async function post(t: TestApp, key: string, url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: "POST", url, headers: { authorization: basic(key), ...headers }, payload: payload as never });
}

export async function get(t: TestApp, key: string, url: string): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: "GET", url, headers: { authorization: basic(key) } });
}

/** Creates a charge and returns the 201 body (fails the test with the body otherwise). */
export async function createCharge(t: TestApp, key: string, body: unknown) {
  const res = await post(t, key, "/v1/charges", body);
  expectStatus(res, 201);
  return res.json() as { id: string; status: string; paymentDetails: Record<string, unknown> | null; reason: string | null };
}
