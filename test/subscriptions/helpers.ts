import type { LightMyRequestResponse } from "fastify";
import { asc, eq } from "drizzle-orm";
import { events } from "../../src/db/schema.js";
import { basic, expectStatus, type TestApp } from "../helpers/app.js";
import { CARDS, customer } from "../helpers/charges.js";

export { CARDS, customer };

export async function call(t: TestApp, key: string, method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE", url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return t.app.inject({ method, url, headers: { authorization: basic(key), ...headers }, payload: payload as never });
}

export function card(number: string, extra: Record<string, unknown> = {}) {
  return { type: "credit_card", number, holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2035", cvv: "123", ...extra };
}

export async function createPlan(t: TestApp, key: string, body: Record<string, unknown> = {}) {
  const res = await call(t, key, "POST", "/v1/plans", { name: "Pro monthly", price: 29.9, currency: "BRL", interval: "month", ...body });
  expectStatus(res, 201);
  return res.json() as { id: string; price: number; currency: string };
}

export interface Sub {
  id: string; status: string; currentPeriodStart: string; currentPeriodEnd: string; billingDay: number; cancelledAt: string | null;
  cancellationType: string | null; refunded: boolean; cancelAtPeriodEnd: boolean; nextBillingAt: string | null; planId: string; nextPlanId: string | null;
  customerId: string; paymentMethod: { type: string; cardId?: string }; trialEnd: string | null;
  unpaidInvoice: { attempts: number; nextAttemptAt: string | null; periodStart: string } | null;
  charges: { chargeId: string; attempt: number; status: string; periodStart: string; reason: string | null }[];
}

export async function subscribe(t: TestApp, key: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Sub> {
  const res = await call(t, key, "POST", "/v1/subscriptions", { customer, paymentMethod: card(CARDS.visa), ...body }, headers);
  expectStatus(res, 201);
  return res.json();
}

export async function getSub(t: TestApp, key: string, id: string): Promise<Sub> {
  const res = await call(t, key, "GET", `/v1/subscriptions/${id}`);
  expectStatus(res, 200);
  return res.json();
}

export async function advance(t: TestApp, key: string, days: number) {
  const res = await call(t, key, "POST", "/v1/sandbox/clock/advance", { days });
  expectStatus(res, 200);
  return res.json() as { now: string; offsetDays: number; actions: { subscriptionId: string; action: string; at: string; chargeStatus?: string }[] };
}

/** The event types recorded for an object, oldest first, with their data. */
export async function eventsOf(t: TestApp, objectId: string) {
  return t.database.db.select({ type: events.type, data: events.data }).from(events).where(eq(events.objectId, objectId)).orderBy(asc(events.id));
}
