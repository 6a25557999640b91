import assert from "node:assert/strict";
import { basic, expectStatus, type TestApp } from "../helpers/app.js";
import { cardCharge, createCharge, get, methodCharge, post } from "../helpers/charges.js";
import { balanceOf, multipart, type Part } from "../connect/helpers.js";

// What the dispute tests share: a paid charge of each kind, the sandbox's dispute actions and
// the evidence form.

export interface DisputeBody {
  id: string; chargeId: string; kind: string; status: string; reason: string; amount: number; currency: string;
  evidenceDueBy: string; evidence: { text: string; files: { id: string; name: string; contentType: string; size: number }[] } | null;
  submittedAt: string | null; closedAt: string | null; createdAt: string;
}

/** A paid sandbox card charge of `amount` BRL. */
export async function paidCard(t: TestApp, key: string, amount = 100, extra: Record<string, unknown> = {}) {
  const c = await createCharge(t, key, { ...cardCharge("4111111111111111", extra), amount });
  assert.equal(c.status, "paid");
  return c;
}

/** A paid sandbox Pix charge of `amount` BRL. */
export async function paidPix(t: TestApp, key: string, amount = 80) {
  const c = await createCharge(t, key, methodCharge({ type: "pix" }, { amount }));
  expectStatus(await post(t, key, `/v1/sandbox/charges/${c.id}/pay`), 200);
  return c;
}

export async function openDispute(t: TestApp, key: string, chargeId: string, body: Record<string, unknown> = {}): Promise<DisputeBody> {
  const res = await post(t, key, `/v1/sandbox/charges/${chargeId}/dispute`, body);
  expectStatus(res, 201);
  return res.json() as DisputeBody;
}

export const closeDispute = (t: TestApp, key: string, id: string, outcome: "won" | "lost") =>
  post(t, key, `/v1/sandbox/disputes/${id}/close`, { outcome });

export function sendEvidence(t: TestApp, key: string, id: string, parts: Part[]) {
  const body = multipart(parts);
  return t.app.inject({ method: "POST", url: `/v1/disputes/${id}/evidence`, payload: body.payload, headers: { ...body.headers, authorization: basic(key) } });
}

/** A charge's disputes, newest first, as GET /v1/disputes?chargeId= lists them. */
export async function disputesOfCharge(t: TestApp, key: string, chargeId: string): Promise<DisputeBody[]> {
  const res = await get(t, key, `/v1/disputes?chargeId=${chargeId}`);
  expectStatus(res, 200);
  return (res.json() as { data: DisputeBody[] }).data;
}

export async function getDispute(t: TestApp, key: string, id: string): Promise<DisputeBody> {
  const res = await get(t, key, `/v1/disputes/${id}`);
  expectStatus(res, 200);
  return res.json() as DisputeBody;
}

/** available + pending, in cents: what the merchant has, whatever has settled. */
export async function heldBy(t: TestApp, key: string): Promise<number> {
  const b = await balanceOf(t, key);
  return b.available + b.pending;
}

/** The types of the merchant's events about `objectId`, oldest first. */
export async function eventTypes(t: TestApp, key: string, objectId: string): Promise<string[]> {
  const res = await get(t, key, `/v1/events?limit=100`);
  expectStatus(res, 200);
  const events = (res.json() as { data: { type: string; data: { id?: string } }[] }).data;
  return events.filter((e) => e.data.id === objectId).map((e) => e.type).reverse();
}
