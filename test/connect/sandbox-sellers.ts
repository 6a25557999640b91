import assert from "node:assert/strict";
import { expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge } from "../helpers/charges.js";
import { activeSubmerchants, call } from "./helpers.js";

// Sellers in provider settlement at the simulator, for the tests of its transfers.

export interface SandboxSeller { master: SeededMerchant; id: string; key: string }

/** `master` in provider settlement, with an active seller at the simulator on `payoutSchedule`. */
export async function sandboxSeller(t: TestApp, master: SeededMerchant, payoutSchedule: unknown): Promise<SandboxSeller> {
  const [sm] = await activeSubmerchants(t, master.sandboxKey, 1);
  expectStatus(await call(t, "PUT", "/v1/connect/settings", master.sandboxKey, { settlement: "provider" }), 200);
  expectStatus(await call(t, "POST", `/v1/submerchants/${sm!.id}/provider-accounts`, master.sandboxKey, { processor: "sandbox" }), 201);
  expectStatus(await call(t, "PATCH", `/v1/submerchants/${sm!.id}`, master.sandboxKey, { payoutSchedule }), 200);
  return { master, id: sm!.id, key: sm!.key };
}

/** A paid card charge of 100.00 BRL with 30 % to the seller: 2640 cents at the provider with FEES (provider-split.test.ts). */
export async function sandboxSale(t: TestApp, s: SandboxSeller): Promise<void> {
  const res = await call(t, "POST", "/v1/charges", s.master.sandboxKey, cardCharge(CARDS.visa, { split: [{ merchantId: s.id, percentage: 30 }] }));
  expectStatus(res, 201);
  assert.equal(res.json().status, "paid");
}

/** Moves the master's sandbox test clock `days` ahead (its advance runs the due transfers). */
export async function advanceClock(t: TestApp, master: SeededMerchant, days: number): Promise<void> {
  expectStatus(await call(t, "POST", "/v1/sandbox/clock/advance", master.sandboxKey, { days }), 200);
}
